package io.ecrepair.codes.clay;

/**
 * The numbers of a Clay code (n, k, d) without building it: q = d - k + 1 nodes per
 * y-section, t = ceil(n / q) sections, nu = q*t - n virtual (shortened, all-zero) nodes,
 * sub-packetization alpha = q^t and beta = alpha / q sub-chunks read from each of the d
 * helpers of a single-node repair. The CLI {@code info} command uses this directly.
 *
 * @param n units (k data + m parity), at most 255
 * @param k data units
 * @param d helpers of a single-node repair, k <= d <= n - 1
 */
public record ClayParameters(int n, int k, int d, int q, int t, int virtualNodes, int alpha) {
  /** Largest sub-packetization accepted: plans and tables grow with alpha. */
  public static final int MAX_ALPHA = 1 << 16;

  public ClayParameters {
    if (q != d - k + 1 || (long) q * t != n + virtualNodes || alpha != pow(q, t)) {
      throw new IllegalArgumentException("inconsistent Clay parameters; use ClayParameters.of(n, k, d)");
    }
  }

  /** Validates (n, k, d) and derives q, t, nu and alpha. */
  public static ClayParameters of(int n, int k, int d) {
    if (k < 1 || n <= k || n > 255) {
      throw new IllegalArgumentException("Clay needs 1 <= k < n <= 255, got n=" + n + " k=" + k);
    }
    if (d < k || d > n - 1) {
      throw new IllegalArgumentException(
          "Clay needs k <= d <= n-1 (here " + k + " <= d <= " + (n - 1) + "), got d=" + d);
    }
    int q = d - k + 1;
    int t = (n + q - 1) / q;
    int nu = q * t - n;
    if (n + nu > 256) {
      throw new IllegalArgumentException("Clay(" + n + "," + k + "," + d + ") needs a base code of length "
          + (n + nu) + " > 256 over GF(2^8)");
    }
    long alpha = 1;
    for (int i = 0; i < t; i++) {
      alpha *= q;
      if (alpha > MAX_ALPHA) {
        throw new IllegalArgumentException("Clay(" + n + "," + k + "," + d + ") has sub-packetization "
            + q + "^" + t + " > " + MAX_ALPHA + "; choose a larger d (larger q) or a smaller n");
      }
    }
    return new ClayParameters(n, k, d, q, t, nu, (int) alpha);
  }

  /** m = n - k: erasures any stripe survives. */
  public int m() {
    return n - k;
  }

  /** alpha / q: sub-chunks read from each helper in a single-node repair. */
  public int beta() {
    return alpha / q;
  }

  /** Length of the base MDS code: n plus the virtual nodes (a multiple of q). */
  public int baseLength() {
    return n + virtualNodes;
  }

  /** Dimension of the base MDS code: k plus the virtual nodes. */
  public int baseDimension() {
    return k + virtualNodes;
  }

  /** Repair bandwidth of one lost unit, in units: d * beta / alpha = d / q. */
  public double repairUnitsPerLostUnit() {
    return (double) d / q;
  }

  private static int pow(int b, int e) {
    long r = 1;
    for (int i = 0; i < e; i++) {
      r *= b;
      if (r > Integer.MAX_VALUE) {
        return -1;
      }
    }
    return (int) r;
  }
}
