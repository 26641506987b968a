package io.ecrepair.hdfs.coder;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decodes that HDFS's own readers asked of our coders and did not get: a vector code's partial
 * cells, an LRC loss the k blocks HDFS picked cannot rebuild. The reader gets the reason as an
 * IOException, but some readers never show it to a person (a DataNode serving WebHDFS has
 * already sent its response header and can only cut the stream), so the JVM where the decode
 * failed also logs it: one WARN a minute at most, with how many more there were.
 */
public final class StockDecodeFailures {
  private static final Logger LOG = LoggerFactory.getLogger(StockDecodeFailures.class);
  private static final long WARN_EVERY_NANOS = 60_000_000_000L;
  private static final LongAdder FAILURES = new LongAdder();
  private static final LongAdder UNLOGGED = new LongAdder();
  private static final AtomicLong LAST_WARN = new AtomicLong(System.nanoTime() - WARN_EVERY_NANOS);

  private StockDecodeFailures() {}

  /** Counts one failed stock decode and logs why, unless a minute has not passed since the last WARN. */
  public static void record(String why) {
    FAILURES.increment();
    long now = System.nanoTime();
    long last = LAST_WARN.get();
    if (now - last >= WARN_EVERY_NANOS && LAST_WARN.compareAndSet(last, now)) {
      long more = UNLOGGED.sumThenReset();
      LOG.warn("ec-repair: a decode by HDFS's own reader failed: {}{}", why,
          more == 0 ? "" : " (" + more + " more since the last such message)");
    } else {
      UNLOGGED.increment();
    }
  }

  /** Stock decodes that failed in this JVM. */
  public static long count() {
    return FAILURES.sum();
  }
}
