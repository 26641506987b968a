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

  /** New limits in bytes per second (0: unlimited), in effect from the next throttling period. */
  public void set(long inBytesPerSecond, long outBytesPerSecond) {
    for (long v : new long[] {inBytesPerSecond, outBytesPerSecond}) {
      if (v < 0 || v > MAX_BYTES_PER_SECOND) {
        throw new IllegalArgumentException("a repair bandwidth is 0 (unlimited) or 1 to " + MAX_BYTES_PER_SECOND
            + " bytes per second, not " + v);
      }
    }
    in.set(inBytesPerSecond);
    out.set(outBytesPerSecond);
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
        t.setBandwidth(bytesPerSecond);  // waiters pay the rest of their wait at the new rate
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
