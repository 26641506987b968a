package io.ecrepair.hdfs.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class FrameBuffersTest {
  @Test
  void arraysComeInSizeClassesAndAreReused() {
    FrameBuffers buffers = new FrameBuffers(1 << 20);
    byte[] a = buffers.take(5000);
    assertEquals(5120, a.length, "above 4 KiB: the next quarter step between powers of two");
    assertEquals(1, buffers.take(0).length);
    assertEquals(4096, buffers.take(4096).length);
    assertEquals(2048, buffers.take(1500).length, "up to 4 KiB: powers of two");
    buffers.give(a);
    assertEquals(5120, buffers.keptBytes());
    assertSame(a, buffers.take(4500), "an idle array of the size class is handed out again");
    assertEquals(0, buffers.keptBytes());
    assertNotSame(a, buffers.take(5000), "an array is handed out once");
    for (int length = 4097; length < (64 << 20); length += length / 7 + 13) {
      int size = FrameBuffers.sizeClass(length);
      assertTrue(size >= length && size <= length * 1.25 + 1, length + " bytes get an array of " + size);
    }
  }

  @Test
  void idleArraysStayWithinTheBudget() {
    FrameBuffers buffers = new FrameBuffers(10_000);
    byte[] a = buffers.take(8192);
    byte[] b = buffers.take(8192);
    buffers.give(a);
    buffers.give(b); // 16 KiB would exceed the budget: dropped
    assertEquals(8192, buffers.keptBytes());
    assertSame(a, buffers.take(8000));
    FrameBuffers none = new FrameBuffers(0);
    none.give(none.take(10));
    assertEquals(0, none.keptBytes());
    assertThrows(IllegalArgumentException.class, () -> new FrameBuffers(-1));
  }

  /**
   * Frames read into reused arrays: a short frame in an array that held a longer one is
   * verified and returned by its own length only, and a changed byte still fails its checksum.
   */
  @Test
  void framesReadIntoReusedArraysAreVerifiedByTheirOwnLength() throws IOException {
    byte[] longer = filled(6000, 3);
    byte[] shorter = filled(5500, 11);
    FrameBuffers buffers = new FrameBuffers(1 << 20);
    DataInputStream in = stream(longer, shorter, null);
    PlanFrames.Frame first = PlanFrames.readFrame(in, 8192, "test", buffers);
    assertArrayEquals(longer, Arrays.copyOf(first.bytes(), first.length()));
    buffers.give(first.bytes());
    PlanFrames.Frame second = PlanFrames.readFrame(in, 8192, "test", buffers);
    assertSame(first.bytes(), second.bytes(), "the second frame reuses the first one's array");
    assertEquals(shorter.length, second.length());
    assertArrayEquals(shorter, Arrays.copyOf(second.bytes(), second.length()));
    assertNull(PlanFrames.readFrame(in, 8192, "test", buffers));

    byte[] bad = filled(5500, 5);
    DataInputStream flipped = stream(longer, bad, 2050);
    buffers.give(PlanFrames.readFrame(flipped, 8192, "test", buffers).bytes());
    assertThrows(PlanFrames.FrameFailure.class, () -> PlanFrames.readFrame(flipped, 8192, "test", buffers));
  }

  private static byte[] filled(int n, int seed) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (i * seed + 1);
    }
    return b;
  }

  /** Two frames and the end mark; {@code flipAt} changes a byte of the second after its checksum. */
  private static DataInputStream stream(byte[] first, byte[] second, Integer flipAt) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    PlanFrames.writeFrame(out, first, first.length, PlanFrames.crc(first, 0, first.length));
    int crc = PlanFrames.crc(second, 0, second.length);
    byte[] sent = second.clone();
    if (flipAt != null) {
      sent[flipAt] ^= 0x20;
    }
    PlanFrames.writeFrame(out, sent, sent.length, crc);
    PlanFrames.writeEnd(out);
    return new DataInputStream(new ByteArrayInputStream(bytes.toByteArray()));
  }
}
