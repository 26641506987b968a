package io.ecrepair.gf;

/**
 * Arithmetic in GF(2^8) with the polynomial x^8 + x^4 + x^3 + x^2 + 1 (0x11D) and
 * generator 2: the field of ISA-L and of Hadoop's {@code GF256}, so our bytes match theirs.
 */
public final class GF256 {
  public static final int POLYNOMIAL = 0x11D;

  private static final int[] EXP = new int[512];
  private static final int[] LOG = new int[256];
  private static final byte[][] MUL = new byte[256][256];
  private static final byte[] INV = new byte[256];

  static {
    int x = 1;
    for (int i = 0; i < 255; i++) {
      EXP[i] = x;
      LOG[x] = i;
      x <<= 1;
      if ((x & 0x100) != 0) {
        x ^= POLYNOMIAL;
      }
    }
    for (int i = 255; i < EXP.length; i++) {
      EXP[i] = EXP[i - 255];
    }
    for (int a = 1; a < 256; a++) {
      for (int b = 1; b < 256; b++) {
        MUL[a][b] = (byte) EXP[LOG[a] + LOG[b]];
      }
      INV[a] = (byte) EXP[255 - LOG[a]];
    }
  }

  private GF256() {}

  public static byte mul(byte a, byte b) {
    return MUL[a & 0xFF][b & 0xFF];
  }

  public static int mul(int a, int b) {
    return MUL[a & 0xFF][b & 0xFF] & 0xFF;
  }

  /** The multiplicative inverse; 0 has none. */
  public static byte inv(byte a) {
    if (a == 0) {
      throw new ArithmeticException("0 has no inverse in GF(2^8)");
    }
    return INV[a & 0xFF];
  }

  public static byte div(byte a, byte b) {
    return mul(a, inv(b));
  }

  /** 2^e, the generator raised to e (any e >= 0). */
  public static byte exp(int e) {
    return (byte) EXP[e % 255];
  }

  /** a^e for e >= 0 (0^0 = 1). */
  public static byte pow(byte a, int e) {
    if (e == 0) {
      return 1;
    }
    if (a == 0) {
      return 0;
    }
    return (byte) EXP[(int) ((long) LOG[a & 0xFF] * e % 255)];
  }

  /** The 256-entry row c*x for all x: the lookup table of the Java region path. */
  static byte[] mulRow(byte c) {
    return MUL[c & 0xFF];
  }
}
