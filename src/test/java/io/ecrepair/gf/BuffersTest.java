package io.ecrepair.gf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class BuffersTest {
  @Test
  void alignedBuffersHaveExactlyTheSizeAskedFor() {
    for (int size = 0; size < 300; size++) {
      ByteBuffer b = Buffers.alignedDirect(size);
      assertEquals(size, b.capacity());
      assertEquals(size, b.remaining());
      assertTrue(b.isDirect());
      assertEquals(0, b.alignmentOffset(0, Buffers.ALIGNMENT), "starts on a cache line");
    }
  }
}
