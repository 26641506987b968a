package io.ecrepair.gf;

import java.nio.ByteBuffer;

/** Buffer allocation and clearing for the coding hot path. */
public final class Buffers {
  /** A cache line: SIMD loads from such buffers never straddle two lines. */
  public static final int ALIGNMENT = 64;
  /** Source of bulk zero writes (a bulk put is a memory copy; a byte loop is not). */
  private static final byte[] ZEROS = new byte[64 * 1024];

  private Buffers() {}

  /** A direct buffer of exactly {@code size} bytes starting on a 64-byte boundary. */
  public static ByteBuffer alignedDirect(int size) {
    // alignedSlice rounds both ends inward to the alignment: allocate whole lines plus one.
    int lines = (size + ALIGNMENT - 1) / ALIGNMENT;
    return ByteBuffer.allocateDirect((lines + 1) * ALIGNMENT).alignedSlice(ALIGNMENT).limit(size).slice();
  }

  /** Sets bytes [from, to) of {@code b}, within its limit, to zero (absolute indices; position and limit unchanged). */
  public static void zero(ByteBuffer b, int from, int to) {
    for (int i = from; i < to; i += ZEROS.length) {
      b.put(i, ZEROS, 0, Math.min(ZEROS.length, to - i));
    }
  }
}
