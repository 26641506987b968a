package io.ecrepair.gf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The native (ISA-L) and Java region coders agree byte for byte with a scalar reference. */
class RegionCoderTest {
  private static RegionCoder isal;
  private static final RegionCoder JAVA = RegionCoders.java();

  @BeforeAll
  static void loadNative() {
    // Tests run with ecrepair.native.required=true: a missing library fails here, loudly.
    RegionCoders.requireNativeIfConfigured();
    isal = RegionCoders.nativeAvailable() ? RegionCoders.isal() : null;
  }

  enum Kind { HEAP, HEAP_SLICED, DIRECT }

  private static ByteBuffer alloc(Kind kind, int size) {
    return switch (kind) {
      case HEAP -> ByteBuffer.allocate(size);
      // A heap buffer whose array offset is not zero.
      case HEAP_SLICED -> ByteBuffer.allocate(size + 13).position(13).slice();
      case DIRECT -> ByteBuffer.allocateDirect(size);
    };
  }

  private static ByteBuffer randomBuffer(Random rnd, Kind kind, int size) {
    ByteBuffer b = alloc(kind, size);
    byte[] bytes = new byte[size];
    rnd.nextBytes(bytes);
    b.put(0, bytes);
    return b;
  }

  private static byte[] bytes(ByteBuffer b, int off, int len) {
    byte[] out = new byte[len];
    b.get(off, out);
    return out;
  }

  /** The definition: out[r][i] = sum_j M[r][j] * in[j][i], byte by byte. */
  private static byte[][] reference(GFMatrix m, byte[][] in, byte[][] prior, boolean accumulate) {
    int len = in.length == 0 ? prior[0].length : in[0].length;
    byte[][] out = new byte[m.rows()][len];
    for (int r = 0; r < m.rows(); r++) {
      for (int i = 0; i < len; i++) {
        int s = accumulate ? prior[r][i] & 0xFF : 0;
        for (int j = 0; j < m.cols(); j++) {
          s ^= GF256.mul(m.get(r, j) & 0xFF, in[j][i] & 0xFF);
        }
        out[r][i] = (byte) s;
      }
    }
    return out;
  }

  private static GFMatrix randomMatrix(Random rnd, int rows, int cols) {
    byte[] e = new byte[rows * cols];
    rnd.nextBytes(e);
    if (e.length > 2) {
      e[0] = 0; // coefficients 0 and 1 take special paths in the Java coder
      e[1] = 1;
    }
    return new GFMatrix(rows, cols, e);
  }

  private void checkEncode(RegionCoder coder, long seed, int k, int rows, int len, Kind inKind, Kind outKind,
                           boolean accumulate) {
    Random rnd = new Random(seed);
    GFMatrix m = randomMatrix(rnd, rows, k);
    ByteBuffer[] in = new ByteBuffer[k];
    int[] inOff = new int[k];
    byte[][] inBytes = new byte[k][];
    for (int j = 0; j < k; j++) {
      inOff[j] = rnd.nextInt(40);
      in[j] = randomBuffer(rnd, inKind, inOff[j] + len + rnd.nextInt(5));
      inBytes[j] = bytes(in[j], inOff[j], len);
    }
    ByteBuffer[] out = new ByteBuffer[rows];
    int[] outOff = new int[rows];
    byte[][] prior = new byte[rows][];
    for (int r = 0; r < rows; r++) {
      outOff[r] = rnd.nextInt(40);
      out[r] = randomBuffer(rnd, outKind, outOff[r] + len + 7);
      prior[r] = bytes(out[r], outOff[r], len);
    }
    byte[][] before = new byte[rows][];
    for (int r = 0; r < rows; r++) {
      before[r] = bytes(out[r], 0, out[r].capacity());
    }
    coder.encode(coder.prepare(m), in, inOff, out, outOff, len, accumulate);
    byte[][] expected = reference(m, inBytes, prior, accumulate);
    for (int r = 0; r < rows; r++) {
      assertArrayEquals(expected[r], bytes(out[r], outOff[r], len),
          coder.name() + " output " + r + " len " + len + " " + inKind + "->" + outKind + " acc=" + accumulate);
      // Bytes outside the region are untouched.
      byte[] after = bytes(out[r], 0, out[r].capacity());
      for (int i = 0; i < after.length; i++) {
        if (i < outOff[r] || i >= outOff[r] + len) {
          assertEquals(before[r][i], after[i], "byte " + i + " outside the output region changed");
        }
      }
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 7, 15, 16, 31, 32, 33, 63, 64, 65, 100, 255, 1000, 4097, 65536 + 3})
  void encodeMatchesReferenceForOddLengths(int len) {
    for (Kind inKind : Kind.values()) {
      for (Kind outKind : Kind.values()) {
        for (boolean acc : new boolean[] {false, true}) {
          long seed = len * 131L + inKind.ordinal() * 7 + outKind.ordinal() + (acc ? 1000 : 0);
          checkEncode(JAVA, seed, 6, 3, len, inKind, outKind, acc);
          if (isal != null) {
            checkEncode(isal, seed, 6, 3, len, inKind, outKind, acc);
          }
        }
      }
    }
  }

  @Test
  void encodeMatchesReferenceForManyShapes() {
    Random rnd = new Random(42);
    for (int trial = 0; trial < 60; trial++) {
      int k = 1 + rnd.nextInt(16);
      int rows = 1 + rnd.nextInt(8);
      int len = rnd.nextInt(3000);
      Kind a = Kind.values()[rnd.nextInt(3)];
      Kind b = Kind.values()[rnd.nextInt(3)];
      boolean acc = rnd.nextBoolean();
      checkEncode(JAVA, trial, k, rows, len, a, b, acc);
      if (isal != null) {
        checkEncode(isal, trial, k, rows, len, a, b, acc);
      }
    }
  }

  @Test
  void nativeAndJavaGiveIdenticalBytesOnLargeRegions() {
    org.junit.jupiter.api.Assumptions.assumeTrue(isal != null, "native library not loaded");
    Random rnd = new Random(7);
    GFMatrix m = GFMatrix.systematicCauchy(14, 10).selectRows(new int[] {10, 11, 12, 13});
    int len = (1 << 20) + 5;
    ByteBuffer[] in = new ByteBuffer[10];
    for (int j = 0; j < 10; j++) {
      in[j] = randomBuffer(rnd, Kind.DIRECT, len);
    }
    ByteBuffer[] a = new ByteBuffer[4];
    ByteBuffer[] b = new ByteBuffer[4];
    for (int r = 0; r < 4; r++) {
      a[r] = ByteBuffer.allocateDirect(len);
      b[r] = ByteBuffer.allocate(len);
    }
    isal.encode(isal.prepare(m), in, a, len);
    JAVA.encode(JAVA.prepare(m), in, b, len);
    for (int r = 0; r < 4; r++) {
      assertArrayEquals(bytes(b[r], 0, len), bytes(a[r], 0, len));
    }
  }

  @Test
  void multiplyAndXor() {
    Random rnd = new Random(3);
    for (RegionCoder coder : isal == null ? new RegionCoder[] {JAVA} : new RegionCoder[] {JAVA, isal}) {
      for (Kind kind : Kind.values()) {
        for (int c : new int[] {0, 1, 2, 0x53, 0xFF}) {
          int len = 1 + rnd.nextInt(500);
          ByteBuffer src = randomBuffer(rnd, kind, len + 3);
          ByteBuffer dst = randomBuffer(rnd, kind, len + 5);
          byte[] s = bytes(src, 3, len);
          byte[] d = bytes(dst, 5, len);
          coder.multiply((byte) c, src, 3, dst, 5, len);
          for (int i = 0; i < len; i++) {
            assertEquals((byte) GF256.mul(c, s[i]), dst.get(5 + i), coder.name() + " multiply by " + c);
          }
          ByteBuffer dst2 = randomBuffer(rnd, kind, len + 5);
          d = bytes(dst2, 5, len);
          coder.xor(src, 3, dst2, 5, len);
          for (int i = 0; i < len; i++) {
            assertEquals((byte) (s[i] ^ d[i]), dst2.get(5 + i), coder.name() + " xor");
          }
        }
      }
    }
  }

  @Test
  void badRegionsAreRefused() {
    for (RegionCoder coder : isal == null ? new RegionCoder[] {JAVA} : new RegionCoder[] {JAVA, isal}) {
      CodingTables t = coder.prepare(GFMatrix.identity(2));
      ByteBuffer small = ByteBuffer.allocate(10);
      ByteBuffer big = ByteBuffer.allocate(100);
      assertThrows(IndexOutOfBoundsException.class, () -> coder.encode(t,
          new ByteBuffer[] {small, big}, new int[2], new ByteBuffer[] {big, big}, new int[2], 50, false));
      assertThrows(IllegalArgumentException.class, () -> coder.encode(t,
          new ByteBuffer[] {big}, new int[1], new ByteBuffer[] {big, big}, new int[2], 5, false));
      assertThrows(IllegalArgumentException.class, () -> coder.encode(t,
          new ByteBuffer[] {big, big}, new int[2], new ByteBuffer[] {big, big.asReadOnlyBuffer()}, new int[2], 5, false));
    }
  }

  @Test
  void testsRunWithTheNativeLibraryWhenRequired() {
    if (RegionCoders.nativeRequired()) {
      assertTrue(RegionCoders.nativeAvailable(), RegionCoders.nativeUnavailableReason());
      assertEquals("native", RegionCoders.best().name());
    }
  }
}
