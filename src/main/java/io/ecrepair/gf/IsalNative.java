package io.ecrepair.gf;

import java.nio.ByteBuffer;

/**
 * The JNI entry points of {@code libecrepair} (native/ecrepair_jni.c). Arguments are checked
 * in Java by the callers; the C side trusts them.
 */
final class IsalNative {
  /** Bumped whenever these signatures change, so a stale library is refused. */
  static final int ABI_VERSION = 4;

  private IsalNative() {}

  static native int abiVersion();

  /** ec_init_tables: matrix is rows x k, row-major; tables is a direct buffer of 32*k*rows bytes. */
  static native void initTables(int k, int rows, byte[] matrix, ByteBuffer tables);

  /** ec_encode_data (or, with accumulate, ec_encode_data_update per input) on direct buffers. */
  static native void encodeDirect(ByteBuffer tables, int k, int rows, int len,
                                  ByteBuffer[] in, int[] inOff, ByteBuffer[] out, int[] outOff,
                                  boolean accumulate);

  /** The same on heap arrays (offsets already include the array offsets). */
  static native void encodeArrays(ByteBuffer tables, int k, int rows, int len,
                                  byte[][] in, int[] inOff, byte[][] out, int[] outOff,
                                  boolean accumulate);

  /** Runs a whole LinearProgram (see LinearProgram.NativeForm) over direct buffers in one call. */
  static native void runProgram(ByteBuffer tables, int[] code, ByteBuffer[] buffers, int[] bases, int unitBytes);

  static native void xorDirect(ByteBuffer src, int srcOff, ByteBuffer dst, int dstOff, int len);

  static native void xorArrays(byte[] src, int srcOff, byte[] dst, int dstOff, int len);

  /** The calling thread's nice (Linux: its own, not its process's), or Integer.MIN_VALUE if unknown. */
  static native int threadNice();

  /** Sets the calling thread's nice; returns 0, or the errno (EACCES: raising priority needs privilege). */
  static native int setThreadNice(int nice);
}
