package io.ecrepair.hdfs.agent;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * Heap arrays for the value frames of distributed repairs, kept for reuse up to a byte budget.
 * A frame lives from the moment it is read (or computed) until the part that needs it copied it
 * out, often across a young collection: with a fresh array per frame, a DataNode's young
 * collections copied the frames queued at that moment and took 0.3-1.1 s each during a CLAY-10-4
 * full-node recovery (the JVM's flight recorder, 17 DataNodes sharing two cores), stopping
 * every repair that DataNode took part in. Arrays are not cleared between uses: a frame
 * is only ever read up to the length written into it.
 */
public final class FrameBuffers {
  private final long budgetBytes;
  private final Map<Integer, ArrayDeque<byte[]>> free = new HashMap<>();
  private long keptBytes;

  /** Keeps at most {@code budgetBytes} of idle arrays (0: keeps none). */
  public FrameBuffers(long budgetBytes) {
    if (budgetBytes < 0) {
      throw new IllegalArgumentException("negative frame buffer budget " + budgetBytes);
    }
    this.budgetBytes = budgetBytes;
  }

  /** An array of {@link #sizeClass}({@code length}) bytes. */
  public byte[] take(int length) {
    int size = sizeClass(length);
    synchronized (this) {
      ArrayDeque<byte[]> q = free.get(size);
      byte[] b = q == null ? null : q.pollLast();
      if (b != null) {
        keptBytes -= size;
        return b;
      }
    }
    return new byte[size];
  }

  /**
   * The array size a frame of {@code length} bytes gets: a power of two up to 4 KiB, above that
   * the next quarter step between powers of two, so frames of near sizes share arrays while an
   * array wastes at most a quarter of its bytes (what parts are charged for is what they hold).
   */
  public static int sizeClass(int length) {
    if (length <= 4096) {
      return length <= 1 ? 1 : Integer.highestOneBit(length - 1) << 1;
    }
    int step = Integer.highestOneBit(length - 1) / 4;
    return (int) Math.min(Integer.MAX_VALUE, ((long) length + step - 1) / step * step);
  }

  /** Keeps {@code b} (one {@link #take} returned) if the budget allows; nothing may use it after. */
  public void give(byte[] b) {
    synchronized (this) {
      if (keptBytes + b.length <= budgetBytes) {
        free.computeIfAbsent(b.length, s -> new ArrayDeque<>()).addLast(b);
        keptBytes += b.length;
      }
    }
  }

  /** Bytes of idle arrays kept now. */
  public synchronized long keptBytes() {
    return keptBytes;
  }
}
