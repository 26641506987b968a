package io.ecrepair.harness;

import java.util.SplittableRandom;

/**
 * The benchmark's file contents: pseudo-random bytes that any process can regenerate at any
 * offset from (seed, offset) alone, so the writer, the verifier and the degraded-read probe
 * (another JVM) agree without holding gigabytes in memory.
 */
public final class PatternData {
  /** Bytes per independently seeded chunk. */
  static final int CHUNK = 64 * 1024;

  private final long seed;

  public PatternData(long seed) {
    this.seed = seed;
  }

  /** Fills {@code out[off, off+len)} with the file's bytes at {@code position}. */
  public void fill(long position, byte[] out, int off, int len) {
    long pos = position;
    int done = 0;
    byte[] chunk = new byte[CHUNK];
    while (done < len) {
      long index = pos / CHUNK;
      int within = (int) (pos % CHUNK);
      chunk(index, chunk);
      int n = Math.min(CHUNK - within, len - done);
      System.arraycopy(chunk, within, out, off + done, n);
      done += n;
      pos += n;
    }
  }

  /** Whether {@code data[off, off+len)} is exactly the file's bytes at {@code position}. */
  public boolean matches(long position, byte[] data, int off, int len) {
    byte[] expected = new byte[len];
    fill(position, expected, 0, len);
    return java.util.Arrays.equals(expected, 0, len, data, off, off + len);
  }

  private void chunk(long index, byte[] out) {
    SplittableRandom r = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + index);
    for (int i = 0; i < out.length; i += 8) {
      long v = r.nextLong();
      for (int b = 0; b < 8; b++) {
        out[i + b] = (byte) (v >>> (8 * b));
      }
    }
  }
}
