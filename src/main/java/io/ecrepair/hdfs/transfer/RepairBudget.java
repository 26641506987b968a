package io.ecrepair.hdfs.transfer;

import org.apache.hadoop.hdfs.util.DataTransferThrottler;

/**
 * One DataNode's budget for repair traffic: every repair route of ours (central reads, agent range
 * reads and serves, value streams of plans and chains, writes to targets) takes its bytes from the
 * budget of its direction, so the DataNode's repair traffic in and out stays under the limits
 * however many repairs run and whichever route they took. Degraded reads served to clients are
 * foreground traffic and never pass here.
 *
 * <p>The limits change on a live DataNode ({@link #set}): the next period (half a second) runs at
 * the new rate, for the threads already waiting too. A limit of 0 means unlimited, as HDFS's own
 * bandwidth settings do.
 */
public final class RepairBudget {
  /** A budget without limits (for callers outside a DataNode: the CLI, tests). */
  public static final RepairBudget UNLIMITED = new RepairBudget(0, 0);

  private final Direction in = new Direction();
  private final Direction out = new Direction();

  public RepairBudget(long inBytesPerSecond, long outBytesPerSecond) {
    set(inBytesPerSecond, outBytesPerSecond);
  }

  /** The highest limit (1 TiB/s): Hadoop's throttler computes with the rate times its period in milliseconds. */
  public static final long MAX_BYTES_PER_SECOND = 1L << 40;
  /** The lowest limit (1 KiB/s): below 2 bytes/s Hadoop's throttler grants nothing per period, and waits for good. */
  public static final long MIN_BYTES_PER_SECOND = 1024;

  /** New limits in bytes per second (0: unlimited), in effect from the next throttling period. */
  public void set(long inBytesPerSecond, long outBytesPerSecond) {
    check(inBytesPerSecond);
    check(outBytesPerSecond);
    in.set(inBytesPerSecond);
    out.set(outBytesPerSecond);
  }

  /** A new inbound limit; the outbound one stays. */
  public void setIn(long bytesPerSecond) {
    in.set(check(bytesPerSecond));
  }

  /** A new outbound limit; the inbound one stays. */
  public void setOut(long bytesPerSecond) {
    out.set(check(bytesPerSecond));
  }

  /** {@code v} when it is a limit this budget takes: 0 (unlimited) or 1 KiB/s to 1 TiB/s. */
  public static long check(long v) {
    if (v != 0 && (v < MIN_BYTES_PER_SECOND || v > MAX_BYTES_PER_SECOND)) {
      throw new IllegalArgumentException("a repair bandwidth is 0 (unlimited) or " + MIN_BYTES_PER_SECOND + " to "
          + MAX_BYTES_PER_SECOND + " bytes per second (1k to 1t), not " + v);
    }
    return v;
  }

  public long inBytesPerSecond() {
    return in.limit;
  }

  public long outBytesPerSecond() {
    return out.limit;
  }

  /** {@code bytes} of repair traffic arrived; blocks while the inbound budget is spent. */
  public void received(long bytes) {
    in.take(bytes);
  }

  /** {@code bytes} of repair traffic are about to leave; blocks while the outbound budget is spent. */
  public void sending(long bytes) {
    out.take(bytes);
  }

  /** One direction: Hadoop's throttler (whose rate can change while threads wait on it), or none. */
  private static final class Direction {
    /** A rate that pays any wait off within one period: how a lifted limit lets its waiters go. */
    private static final long RELEASE = MAX_BYTES_PER_SECOND;

    private volatile long limit;
    /** Null when unlimited. */
    private volatile DataTransferThrottler throttler;

    synchronized void set(long bytesPerSecond) {
      long was = limit;
      limit = bytesPerSecond;
      DataTransferThrottler t = throttler;
      if (bytesPerSecond == 0) {
        throttler = null;
        if (t != null) {
          t.setBandwidth(RELEASE);  // dropped: its reserve, now huge, never meters anyone again
        }
      } else if (t == null) {
        throttler = new DataTransferThrottler(bytesPerSecond);
      } else {
        // Waiters pay the rest of their wait at the new rate. A lower rate also gets a throttler
        // of its own: the old one may hold a period of the old rate in reserve.
        t.setBandwidth(bytesPerSecond);
        if (bytesPerSecond < was) {
          throttler = new DataTransferThrottler(bytesPerSecond);
        }
      }
    }

    void take(long bytes) {
      DataTransferThrottler t = throttler;
      if (t != null) {
        t.throttle(bytes);
      }
    }
  }
}
