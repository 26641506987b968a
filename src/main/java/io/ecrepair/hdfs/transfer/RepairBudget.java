package io.ecrepair.hdfs.transfer;

import org.apache.hadoop.hdfs.util.DataTransferThrottler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One DataNode's budget for repair traffic: every repair route of ours (central reads, agent range
 * reads and serves, value streams of plans and chains, writes to targets) takes its bytes from the
 * budget of its direction, so the DataNode's repair traffic in and out stays under the limits
 * however many repairs run and whichever route they took. Degraded reads served to clients are
 * foreground traffic and never pass here.
 *
 * <p>The limits change on a live DataNode ({@link #set}): the next period (half a second) runs at
 * the new rate, for the threads already waiting too. A limit of 0 means unlimited, as HDFS's own
 * bandwidth settings do. Beside the operator's limits, an adaptive controller may set limits of
 * its own ({@link #adapt}); the lower of the two holds.
 *
 * <p>Repair sockets are also marked with the budget's DSCP, if it has one ({@link #mark}), so a
 * network that honours it sends repair traffic after the clients' at packet granularity, which
 * no rate limit of ours can. Its threads likewise run at repair's CPU priority ({@link #nice}),
 * so on a busy host the CPU serves the clients first.
 */
public final class RepairBudget {
  private static final Logger LOG = LoggerFactory.getLogger(RepairBudget.class);
  /** A budget without limits (for callers outside a DataNode: the CLI, tests). */
  public static final RepairBudget UNLIMITED = new RepairBudget(0, 0);

  private final Direction in = new Direction();
  private final Direction out = new Direction();
  /** The IP traffic class byte repair sockets get (the DSCP shifted past the ECN bits); 0: left alone. */
  private final int trafficClass;
  private final RepairNice nice;

  /** A budget whose traffic leaves unmarked, from threads at the DataNode's priority. */
  public RepairBudget(long inBytesPerSecond, long outBytesPerSecond) {
    this(inBytesPerSecond, outBytesPerSecond, 0, RepairNice.NONE);
  }

  /** A budget whose sockets are marked with {@code dscp} (0-63; 0: unmarked), from threads at {@code nice}. */
  public RepairBudget(long inBytesPerSecond, long outBytesPerSecond, int dscp, RepairNice nice) {
    if (dscp < 0 || dscp > 63) {
      throw new IllegalArgumentException("a DSCP is 0 to 63, not " + dscp);
    }
    set(inBytesPerSecond, outBytesPerSecond);
    this.trafficClass = dscp << 2;
    this.nice = nice;
  }

  /** The CPU priority repair work under this budget runs at ({@link RepairNice#NONE} for clients' reads). */
  public RepairNice nice() {
    return nice;
  }

  /** The DSCP repair sockets are marked with (0: unmarked). */
  public int dscp() {
    return trafficClass >> 2;
  }

  /**
   * Marks {@code s} as repair traffic: what it sends from here carries the budget's DSCP. A
   * socket the system will not mark stays as it is (marking only orders packets, it guards nothing).
   */
  public void mark(java.net.Socket s) {
    if (trafficClass == 0) {
      return;
    }
    try {
      s.setTrafficClass(trafficClass);
    } catch (java.io.IOException e) {
      LOG.debug("ec-repair: cannot mark a repair socket with DSCP {}: {}", dscp(), e.toString());
    }
  }

  /** The highest limit (1 TiB/s): Hadoop's throttler computes with the rate times its period in milliseconds. */
  public static final long MAX_BYTES_PER_SECOND = 1L << 40;
  /** The lowest limit (1 KiB/s): below 2 bytes/s Hadoop's throttler grants nothing per period, and waits for good. */
  public static final long MIN_BYTES_PER_SECOND = 1024;

  /** New limits in bytes per second (0: unlimited), in effect from the next throttling period. */
  public void set(long inBytesPerSecond, long outBytesPerSecond) {
    check(inBytesPerSecond);
    check(outBytesPerSecond);
    in.setOperator(inBytesPerSecond);
    out.setOperator(outBytesPerSecond);
  }

  /** A new inbound limit; the outbound one stays. */
  public void setIn(long bytesPerSecond) {
    in.setOperator(check(bytesPerSecond));
  }

  /** A new outbound limit; the inbound one stays. */
  public void setOut(long bytesPerSecond) {
    out.setOperator(check(bytesPerSecond));
  }

  /**
   * The adaptive controller's limits (0: none), held together with the operator's: the lower one
   * meters the traffic.
   */
  public void adapt(long inBytesPerSecond, long outBytesPerSecond) {
    check(inBytesPerSecond);
    check(outBytesPerSecond);
    in.setAdaptive(inBytesPerSecond);
    out.setAdaptive(outBytesPerSecond);
  }

  /** The inbound limit in force now: the lower of the operator's and the adaptive one (0: unlimited). */
  public long inBytesPerSecondNow() {
    return in.limit;
  }

  /** The outbound limit in force now. */
  public long outBytesPerSecondNow() {
    return out.limit;
  }

  /** {@code v} when it is a limit this budget takes: 0 (unlimited) or 1 KiB/s to 1 TiB/s. */
  public static long check(long v) {
    if (v != 0 && (v < MIN_BYTES_PER_SECOND || v > MAX_BYTES_PER_SECOND)) {
      throw new IllegalArgumentException("a repair bandwidth is 0 (unlimited) or " + MIN_BYTES_PER_SECOND + " to "
          + MAX_BYTES_PER_SECOND + " bytes per second (1k to 1t), not " + v);
    }
    return v;
  }

  /** The operator's inbound limit (configuration or JMX). */
  public long inBytesPerSecond() {
    return in.operator;
  }

  /** The operator's outbound limit. */
  public long outBytesPerSecond() {
    return out.operator;
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

    /** The operator's limit, the adaptive controller's, and the one in force (the lower; 0 = unlimited). */
    private volatile long operator;
    private long adaptive;
    private volatile long limit;
    /** Null when unlimited. */
    private volatile DataTransferThrottler throttler;

    synchronized void setOperator(long bytesPerSecond) {
      operator = bytesPerSecond;
      set(lower(operator, adaptive));
    }

    synchronized void setAdaptive(long bytesPerSecond) {
      adaptive = bytesPerSecond;
      set(lower(operator, adaptive));
    }

    /** The lower of two limits where 0 is none. */
    static long lower(long a, long b) {
      return a == 0 ? b : b == 0 ? a : Math.min(a, b);
    }

    private void set(long bytesPerSecond) {
      long was = limit;
      if (bytesPerSecond == was) {
        return;
      }
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
        // Waiters pay the rest of their wait at the new rate. A much lower rate also gets a
        // throttler of its own: the old one may hold a period of the old rate in reserve. (Not for
        // a small step down, as the adaptive controller makes: a fresh throttler starts with a
        // full period, so frequent small steps would each grant one extra.)
        t.setBandwidth(bytesPerSecond);
        if (bytesPerSecond < was / 2) {
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
