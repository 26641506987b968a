package io.ecrepair.gf;

import java.nio.ByteBuffer;

/** Buffer allocation for the coding hot path. */
public final class Buffers {
  /** A cache line: SIMD loads from such buffers never straddle two lines. */
  public static final int ALIGNMENT = 64;

  private Buffers() {}

  /** A direct buffer of exactly {@code size} bytes starting on a 64-byte boundary. */
  public static ByteBuffer alignedDirect(int size) {
    // alignedSlice rounds both ends inward to the alignment: allocate whole lines plus one.
    int lines = (size + ALIGNMENT - 1) / ALIGNMENT;
    return ByteBuffer.allocateDirect((lines + 1) * ALIGNMENT).alignedSlice(ALIGNMENT).limit(size).slice();
  }
}
