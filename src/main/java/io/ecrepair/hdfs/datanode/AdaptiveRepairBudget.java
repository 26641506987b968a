package io.ecrepair.hdfs.datanode;

import io.ecrepair.hdfs.task.DataNodeKeys;
import io.ecrepair.hdfs.transfer.RepairBudget;
import java.lang.reflect.Field;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.metrics.DataNodeMetrics;
import org.apache.hadoop.metrics2.lib.MutableCounterLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The adaptive repair budget: twice a second it reads what the DataNode's data transfer served
 * to readers (out) and received from writers (in), and gives repair what that foreground leaves
 * of the link's share ({@value DataNodeKeys#REPAIR_LINK_SHARE_PERCENT_KEY}), never less than the
 * floor ({@value DataNodeKeys#REPAIR_FLOOR_PERCENT_KEY}) and without limit when there is no
 * foreground. The operator's limits still cap it ({@link RepairBudget#adapt}).
 *
 * <p>Repair bytes our routes move never pass the data transfer's counters (agents read and send
 * on their own port), so repair is not mistaken for foreground and does not throttle itself.
 * What does pass them (a rebuilt block arriving at its target, HDFS's own reconstruction reads)
 * is real traffic on the link that this budget does not meter, so counting it as foreground
 * keeps the link's total where it should be.
 */
final class AdaptiveRepairBudget implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AdaptiveRepairBudget.class);
  static final long PERIOD_MS = 500;
  /** Foreground under this share of the link (a 128 KiB read every 2 s on 100 Mbit/s) counts as none: repair runs at full speed. */
  static final double IDLE_SHARE = 0.005;
  /** Per period, how much of a foreground estimate remains when its traffic stops (full speed again within 4 s). */
  static final double DECAY = 0.5;
  /** Limits within this ratio of the one in force are not applied (each change costs the throttlers a step). */
  static final double STEP = 0.1;

  private final RepairBudget budget;
  private final LongSupplier readBytes;
  private final LongSupplier writtenBytes;
  private final long linkBytesPerSecond;
  private final int sharePercent;
  private final int floorPercent;
  private final ScheduledExecutorService timer;
  private long lastRead;
  private long lastWritten;
  private long lastNanos;
  private double foregroundIn;
  private double foregroundOut;
  private long appliedIn;
  private long appliedOut;
  private boolean closed;

  private AdaptiveRepairBudget(RepairBudget budget, LongSupplier readBytes, LongSupplier writtenBytes,
                               long linkBytesPerSecond, int sharePercent, int floorPercent, String name) {
    this.budget = budget;
    this.readBytes = readBytes;
    this.writtenBytes = writtenBytes;
    this.linkBytesPerSecond = linkBytesPerSecond;
    this.sharePercent = sharePercent;
    this.floorPercent = floorPercent;
    this.lastRead = readBytes.getAsLong();
    this.lastWritten = writtenBytes.getAsLong();
    this.lastNanos = System.nanoTime();
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "ec-repair adaptive budget " + name);
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * The DataNode's adaptive budget, running; null when the configuration does not ask for one.
   * Refuses a configuration that asks for one without a link rate, or with shares out of range.
   */
  static AdaptiveRepairBudget start(DataNode dn, Configuration conf, RepairBudget budget, String name) {
    if (!conf.getBoolean(DataNodeKeys.REPAIR_ADAPTIVE_KEY, DataNodeKeys.REPAIR_ADAPTIVE_DEFAULT)) {
      return null;
    }
    long mbit = conf.getLong(DataNodeKeys.REPAIR_LINK_MBIT_KEY, 0);
    if (mbit < 1 || mbit > 8_000_000) {
      throw new IllegalArgumentException(DataNodeKeys.REPAIR_ADAPTIVE_KEY + "=true needs the DataNode's link rate: set "
          + DataNodeKeys.REPAIR_LINK_MBIT_KEY + " to its Mbit/s (1 to 8000000), not " + mbit);
    }
    int share = percent(conf, DataNodeKeys.REPAIR_LINK_SHARE_PERCENT_KEY, DataNodeKeys.REPAIR_LINK_SHARE_PERCENT_DEFAULT);
    int floor = percent(conf, DataNodeKeys.REPAIR_FLOOR_PERCENT_KEY, DataNodeKeys.REPAIR_FLOOR_PERCENT_DEFAULT);
    if (floor > share) {
      throw new IllegalArgumentException(DataNodeKeys.REPAIR_FLOOR_PERCENT_KEY + " (" + floor + ") is above "
          + DataNodeKeys.REPAIR_LINK_SHARE_PERCENT_KEY + " (" + share + ")");
    }
    DataNodeMetrics m = dn.getMetrics();
    AdaptiveRepairBudget a = new AdaptiveRepairBudget(budget, counter(m, "bytesRead"), counter(m, "bytesWritten"),
        mbit * 1_000_000 / 8, share, floor, name);
    a.timer.scheduleWithFixedDelay(a::tick, PERIOD_MS, PERIOD_MS, TimeUnit.MILLISECONDS);
    LOG.info("ec-repair: adaptive repair budget on {}: repair gets what foreground traffic leaves of {}% of a {} "
        + "Mbit/s link, at least {}%, all of it when there is none", name, share, mbit, floor);
    return a;
  }

  private static int percent(Configuration conf, String key, int def) {
    int v = conf.getInt(key, def);
    if (v < 1 || v > 100) {
      throw new IllegalArgumentException(key + " must be 1 to 100, not " + v);
    }
    return v;
  }

  /** One of the DataNode's data transfer byte counters (the same field in every Hadoop line we build for). */
  private static LongSupplier counter(DataNodeMetrics metrics, String field) {
    try {
      Field f = DataNodeMetrics.class.getDeclaredField(field);
      f.setAccessible(true);
      MutableCounterLong c = (MutableCounterLong) f.get(metrics);
      return c::value;
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw new IllegalStateException("this Hadoop's DataNode metrics have no counter " + field + " to adapt the "
          + "repair budget to (" + e + "); turn " + DataNodeKeys.REPAIR_ADAPTIVE_KEY + " off", e);
    }
  }

  private synchronized void tick() {
    if (closed) {
      return;
    }
    try {
      long now = System.nanoTime();
      long read = readBytes.getAsLong();
      long written = writtenBytes.getAsLong();
      double seconds = Math.max(1e-3, (now - lastNanos) / 1e9);
      foregroundOut = estimate(foregroundOut, rate(read - lastRead, seconds));
      foregroundIn = estimate(foregroundIn, rate(written - lastWritten, seconds));
      lastRead = read;
      lastWritten = written;
      lastNanos = now;
      long in = limit(linkBytesPerSecond, sharePercent, floorPercent, foregroundIn);
      long out = limit(linkBytesPerSecond, sharePercent, floorPercent, foregroundOut);
      if (differs(appliedIn, in) || differs(appliedOut, out)) {
        appliedIn = in;
        appliedOut = out;
        budget.adapt(in, out);
        LOG.debug("ec-repair: adaptive repair budget in {} out {} bytes/s (0 = unlimited) for foreground in {} out {}",
            in, out, (long) foregroundIn, (long) foregroundOut);
      }
    } catch (RuntimeException e) {
      LOG.warn("ec-repair: adaptive repair budget: {}", e.toString());
    }
  }

  /**
   * Repair's limit (bytes/s, 0 = unlimited) for a link of {@code link} bytes/s carrying
   * {@code foreground} bytes/s of foreground traffic.
   */
  static long limit(long link, int sharePercent, int floorPercent, double foreground) {
    if (foreground < link * IDLE_SHARE) {
      return 0;
    }
    long floor = link * floorPercent / 100;
    long rest = (long) (link * sharePercent / 100.0 - foreground);
    return Math.min(RepairBudget.MAX_BYTES_PER_SECOND, Math.max(RepairBudget.MIN_BYTES_PER_SECOND,
        Math.max(floor, rest)));
  }

  /** Bytes per second of a counter's step; no link carries more than its rate (page-cache reads over loopback would seem to). */
  private double rate(long bytes, double seconds) {
    return Math.max(0, Math.min(linkBytesPerSecond, bytes / seconds));
  }

  /** A foreground estimate that rises at once with its traffic and falls slowly after it. */
  static double estimate(double previous, double measured) {
    return Math.max(measured, previous * DECAY);
  }

  /** Whether a new limit is worth applying: to or from unlimited, or a step of more than {@link #STEP}. */
  static boolean differs(long applied, long next) {
    if (applied == 0 || next == 0) {
      return applied != next;
    }
    return Math.abs(next - applied) > STEP * applied;
  }

  @Override
  public synchronized void close() {
    closed = true;
    timer.shutdownNow();
    budget.adapt(0, 0);
  }
}
