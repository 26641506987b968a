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

  /** An array of at least {@code length} bytes (a power of two, so that frames of near sizes share arrays). */
  public byte[] take(int length) {
    int size = length <= 1 ? 1 : Integer.highestOneBit(length - 1) << 1;
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
