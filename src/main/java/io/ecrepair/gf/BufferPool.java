package io.ecrepair.gf;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * Aligned direct buffers kept for reuse, up to a byte budget. A fresh direct buffer costs the
 * JVM a zeroing pass that faults every page in: on a DataNode rebuilding blocks with 4 MiB
 * cells (tens of MiB of cell buffers per task), perf showed those page faults taking about
 * two thirds of the repair threads' CPU. A buffer handed out is zeroed, so it reads exactly as
 * a fresh one; a caller gives it back only once nothing else can still write into it.
 */
public final class BufferPool {
  private final long budgetBytes;
  private final Map<Integer, ArrayDeque<ByteBuffer>> free = new HashMap<>();
  private long keptBytes;

  /** A pool keeping at most {@code budgetBytes} of idle buffers (0: keeps none). */
  public BufferPool(long budgetBytes) {
    if (budgetBytes < 0) {
      throw new IllegalArgumentException("negative buffer pool budget " + budgetBytes);
    }
    this.budgetBytes = budgetBytes;
  }

  /** A zeroed direct buffer of exactly {@code size} bytes on a 64-byte boundary (position 0, limit size). */
  public ByteBuffer take(int size) {
    ByteBuffer b;
    synchronized (this) {
      ArrayDeque<ByteBuffer> q = free.get(size);
      b = q == null ? null : q.pollLast();
      if (b != null) {
        keptBytes -= size;
      }
    }
    if (b == null) {
      return Buffers.alignedDirect(size);
    }
    b.clear(); // a caller may have left a shorter limit
    Buffers.zero(b, 0, b.capacity());
    return b;
  }

  /**
   * Keeps {@code b} (one {@link #take} returned) for a later take, if the budget allows; null
   * is ignored. The caller must hold no other reference that may still be written through.
   */
  public void give(ByteBuffer b) {
    if (b == null || !b.isDirect()) {
      return;
    }
    int size = b.capacity();
    synchronized (this) {
      if (keptBytes + size <= budgetBytes) {
        free.computeIfAbsent(size, s -> new ArrayDeque<>()).addLast(b);
        keptBytes += size;
      }
    }
  }

  /** Bytes of idle buffers kept now. */
  public synchronized long keptBytes() {
    return keptBytes;
  }
}
