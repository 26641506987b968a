package io.ecrepair.gf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class BufferPoolTest {
  @Test
  void aReusedBufferComesBackZeroedAlignedAndWhole() {
    BufferPool pool = new BufferPool(1 << 20);
    int size = 200_000; // not a multiple of the zeroing chunk or the alignment
    ByteBuffer b = pool.take(size);
    assertTrue(b.isDirect());
    assertEquals(0, b.position());
    assertEquals(size, b.limit());
    assertEquals(size, b.capacity());
    assertEquals(0, b.alignmentOffset(0, Buffers.ALIGNMENT));
    for (int i = 0; i < size; i++) {
      b.put(i, (byte) (i * 31 + 7 | 1));
    }
    b.position(123).limit(4567);
    pool.give(b);
    assertEquals(size, pool.keptBytes());

    ByteBuffer again = pool.take(size);
    assertSame(b, again);
    assertEquals(0, again.position());
    assertEquals(size, again.limit());
    for (int i = 0; i < size; i++) {
      assertEquals(0, again.get(i), "byte " + i);
    }
    assertEquals(0, pool.keptBytes());
  }

  @Test
  void keepsNoMoreThanItsBudgetAndMatchesSizesExactly() {
    BufferPool pool = new BufferPool(3 * 1024);
    ByteBuffer a = pool.take(1024);
    ByteBuffer b = pool.take(1024);
    ByteBuffer c = pool.take(2048);
    pool.give(a);
    pool.give(b);
    pool.give(c); // over the budget: dropped
    assertEquals(2048, pool.keptBytes());
    assertNotSame(c, pool.take(2048));
    ByteBuffer d = pool.take(1024);
    assertTrue(d == a || d == b);
    pool.give(null);
    pool.give(ByteBuffer.allocate(16)); // heap buffers are never pooled
    assertEquals(1024, pool.keptBytes());
  }

  @Test
  void aZeroBudgetKeepsNothingAndANegativeOneIsRefused() {
    BufferPool pool = new BufferPool(0);
    ByteBuffer a = pool.take(64);
    pool.give(a);
    assertEquals(0, pool.keptBytes());
    assertNotSame(a, pool.take(64));
    assertThrows(IllegalArgumentException.class, () -> new BufferPool(-1));
  }
}
