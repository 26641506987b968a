package io.ecrepair.gf;

import java.util.Arrays;

/**
 * An immutable matrix over GF(2^8), row-major. Generator matrices, their inverses and the
 * coefficient matrices handed to {@link RegionCoder} are all of this type.
 */
public final class GFMatrix {
  private final int rows;
  private final int cols;
  private final byte[] a;

  public GFMatrix(int rows, int cols, byte[] entries) {
    if (rows < 0 || cols < 0 || entries.length != rows * cols) {
      throw new IllegalArgumentException(
          "a " + rows + "x" + cols + " matrix needs " + rows * cols + " entries, got " + entries.length);
    }
    this.rows = rows;
    this.cols = cols;
    this.a = entries.clone();
  }

  public static GFMatrix identity(int n) {
    byte[] e = new byte[n * n];
    for (int i = 0; i < n; i++) {
      e[i * n + i] = 1;
    }
    return new GFMatrix(n, n, e);
  }

  /**
   * The systematic Cauchy generator of ISA-L's {@code gf_gen_cauchy1_matrix} and Hadoop's
   * {@code RSUtil.genCauchyMatrix}: identity on top, then row i, column j = 1 / (i xor j).
   * Every k x k submatrix is invertible for n <= 256, so the code is MDS.
   */
  public static GFMatrix systematicCauchy(int n, int k) {
    if (k < 1 || n < k || n > 256) {
      throw new IllegalArgumentException("Cauchy generator needs 1 <= k <= n <= 256, got n=" + n + " k=" + k);
    }
    byte[] e = new byte[n * k];
    for (int i = 0; i < k; i++) {
      e[i * k + i] = 1;
    }
    for (int i = k; i < n; i++) {
      for (int j = 0; j < k; j++) {
        e[i * k + j] = GF256.inv((byte) (i ^ j));
      }
    }
    return new GFMatrix(n, k, e);
  }

  /**
   * A systematic MDS generator built from the Vandermonde matrix with row i = (x_i^0 ..
   * x_i^(k-1)), x_i = 2^i, times the inverse of its top k x k block. Any k rows of a
   * Vandermonde matrix with distinct x_i are independent, and right-multiplying by an
   * invertible matrix keeps that, so the result is MDS for n <= 255.
   */
  public static GFMatrix systematicVandermonde(int n, int k) {
    if (k < 1 || n < k || n > 255) {
      throw new IllegalArgumentException("Vandermonde generator needs 1 <= k <= n <= 255, got n=" + n + " k=" + k);
    }
    GFMatrix v = vandermonde(n, k);
    return v.multiply(v.selectRows(range(k)).invert());
  }

  /** Row i = (x_i^0, x_i^1, ..., x_i^(cols-1)) with x_i = 2^i. */
  public static GFMatrix vandermonde(int rows, int cols) {
    byte[] e = new byte[rows * cols];
    for (int i = 0; i < rows; i++) {
      byte x = GF256.exp(i);
      for (int j = 0; j < cols; j++) {
        e[i * cols + j] = GF256.pow(x, j);
      }
    }
    return new GFMatrix(rows, cols, e);
  }

  public int rows() {
    return rows;
  }

  public int cols() {
    return cols;
  }

  public byte get(int r, int c) {
    return a[r * cols + c];
  }

  /** A copy of the entries, row-major. */
  public byte[] toArray() {
    return a.clone();
  }

  public byte[] row(int r) {
    return Arrays.copyOfRange(a, r * cols, (r + 1) * cols);
  }

  public GFMatrix selectRows(int[] which) {
    byte[] e = new byte[which.length * cols];
    for (int i = 0; i < which.length; i++) {
      System.arraycopy(a, which[i] * cols, e, i * cols, cols);
    }
    return new GFMatrix(which.length, cols, e);
  }

  public GFMatrix multiply(GFMatrix b) {
    if (cols != b.rows) {
      throw new IllegalArgumentException("cannot multiply " + rows + "x" + cols + " by " + b.rows + "x" + b.cols);
    }
    byte[] e = new byte[rows * b.cols];
    for (int i = 0; i < rows; i++) {
      for (int t = 0; t < cols; t++) {
        int x = a[i * cols + t] & 0xFF;
        if (x == 0) {
          continue;
        }
        for (int j = 0; j < b.cols; j++) {
          e[i * b.cols + j] ^= (byte) GF256.mul(x, b.a[t * b.cols + j]);
        }
      }
    }
    return new GFMatrix(rows, b.cols, e);
  }

  /** The inverse by Gauss-Jordan elimination; throws {@link SingularMatrixException}. */
  public GFMatrix invert() {
    if (rows != cols) {
      throw new IllegalArgumentException("only a square matrix has an inverse, this is " + rows + "x" + cols);
    }
    int n = rows;
    byte[] m = a.clone();
    byte[] inv = identity(n).a;
    for (int col = 0; col < n; col++) {
      int pivot = col;
      while (pivot < n && m[pivot * n + col] == 0) {
        pivot++;
      }
      if (pivot == n) {
        throw new SingularMatrixException("matrix is singular (column " + col + " has no pivot)");
      }
      swapRows(m, n, pivot, col);
      swapRows(inv, n, pivot, col);
      byte scale = GF256.inv(m[col * n + col]);
      scaleRow(m, n, col, scale);
      scaleRow(inv, n, col, scale);
      for (int r = 0; r < n; r++) {
        byte f = m[r * n + col];
        if (r != col && f != 0) {
          addScaledRow(m, n, col, r, f);
          addScaledRow(inv, n, col, r, f);
        }
      }
    }
    return new GFMatrix(n, n, inv);
  }

  /** The rank, by elimination on a copy. */
  public int rank() {
    return pivotColumns().length;
  }

  /**
   * The pivot columns of the row echelon form (by elimination on a copy): their number is the
   * rank, and the rows restricted to them form an invertible square when the rows are
   * independent.
   */
  public int[] pivotColumns() {
    byte[] m = a.clone();
    int[] pivots = new int[Math.min(rows, cols)];
    int rank = 0;
    for (int col = 0; col < cols && rank < rows; col++) {
      int pivot = rank;
      while (pivot < rows && m[pivot * cols + col] == 0) {
        pivot++;
      }
      if (pivot == rows) {
        continue;
      }
      swapRows(m, cols, pivot, rank);
      scaleRow(m, cols, rank, GF256.inv(m[rank * cols + col]));
      for (int r = 0; r < rows; r++) {
        byte f = m[r * cols + col];
        if (r != rank && f != 0) {
          addScaledRow(m, cols, rank, r, f);
        }
      }
      pivots[rank++] = col;
    }
    return java.util.Arrays.copyOf(pivots, rank);
  }

  private static void swapRows(byte[] m, int width, int r1, int r2) {
    if (r1 == r2) {
      return;
    }
    for (int j = 0; j < width; j++) {
      byte t = m[r1 * width + j];
      m[r1 * width + j] = m[r2 * width + j];
      m[r2 * width + j] = t;
    }
  }

  private static void scaleRow(byte[] m, int width, int r, byte f) {
    for (int j = 0; j < width; j++) {
      m[r * width + j] = GF256.mul(m[r * width + j], f);
    }
  }

  /** row dst += f * row src. */
  private static void addScaledRow(byte[] m, int width, int src, int dst, byte f) {
    for (int j = 0; j < width; j++) {
      m[dst * width + j] ^= GF256.mul(m[src * width + j], f);
    }
  }

  static int[] range(int n) {
    int[] r = new int[n];
    for (int i = 0; i < n; i++) {
      r[i] = i;
    }
    return r;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof GFMatrix m && m.rows == rows && m.cols == cols && Arrays.equals(m.a, a);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(a) * 31 + rows;
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder();
    for (int r = 0; r < rows; r++) {
      for (int c = 0; c < cols; c++) {
        s.append(String.format("%02x", a[r * cols + c] & 0xFF)).append(c + 1 < cols ? " " : "\n");
      }
    }
    return s.toString();
  }
}
