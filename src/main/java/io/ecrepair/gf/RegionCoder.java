package io.ecrepair.gf;

import java.nio.ByteBuffer;

/**
 * GF(2^8) operations over memory regions, in the shape of ISA-L's {@code erasure_code.h}:
 * a handful of functions over plain buffers. Offsets are absolute indices into each
 * buffer (as {@link ByteBuffer#get(int)}); positions and limits are never touched.
 * Buffers may be heap or direct, and may mix.
 */
public interface RegionCoder {

  /** "native" (ISA-L) or "java". */
  String name();

  /** Prepares a rows x cols coefficient matrix for {@link #encode}. */
  CodingTables prepare(GFMatrix matrix);

  /**
   * out[r] = sum over j of M[r][j] * in[j], for every byte of the regions (each {@code len}
   * bytes long); with {@code accumulate} the products are XORed into out[r] instead.
   */
  void encode(CodingTables tables, ByteBuffer[] in, int[] inOff,
              ByteBuffer[] out, int[] outOff, int len, boolean accumulate);

  /** dst = c * src. The regions may be the same but must not partly overlap. */
  void multiply(byte c, ByteBuffer src, int srcOff, ByteBuffer dst, int dstOff, int len);

  /** dst ^= src. */
  void xor(ByteBuffer src, int srcOff, ByteBuffer dst, int dstOff, int len);

  /**
   * Runs every step of a program, in order, over the given buffers: region (b, u) is
   * bytes [bases[b] + u*unitBytes, +unitBytes) of buffers[b].
   */
  void run(LinearProgram program, ByteBuffer[] buffers, int[] bases, int unitBytes);

  /** Convenience: out = M * in over whole regions starting at index 0. */
  default void encode(CodingTables tables, ByteBuffer[] in, ByteBuffer[] out, int len) {
    encode(tables, in, new int[in.length], out, new int[out.length], len, false);
  }
}
