package io.ecrepair.codes.butterfly;

import java.util.Arrays;

/**
 * The two parities of Butterfly(k) as XOR sets ("terms") of sub-chunks, built by the recursion
 * of Pamies-Juarez et al. (FAST'16, section 3; En Gad et al., ISIT'13).
 *
 * <p>The data form an alpha x k array D, alpha = 2^(k-1): column c is data unit c, row r its
 * sub-chunk r. A term names one sub-chunk as {@code unit * alpha + row}; unit k is the H parity.
 *
 * <ul>
 *   <li><b>H</b> (unit k), the horizontal parity: H[r] = D[r][0] + D[r][1] + ... + D[r][k-1].
 *   <li><b>B</b> (unit k+1), the butterfly parity, by recursion on the number of columns. For one
 *       column (one row): B_1(d) = d. For w columns, write the view as
 *       <pre>
 *         D = | a  A |   a, b: the first column's top and bottom halves (h = 2^(w-2) rows each)
 *             | b  B |   A, B: the other w-1 columns, top and bottom halves
 *       </pre>
 *       and let P flip a column upside down. Then
 *       <pre>
 *         B_w(D) = | P b + B_{w-1}(A)                 |   top half
 *                  | P ( H_w(a A) + B_{w-1}(P B) )    |   bottom half
 *       </pre>
 *       where H_w(a A) = a + H_{w-1}(A) is the horizontal parity of the top half rows.
 * </ul>
 *
 * Every coefficient is 0 or 1, so all coding is XOR; no two terms of a B row coincide (the
 * parts above cover disjoint sub-chunks), so a B row of Butterfly(k) XORs 1 + sum_{j=2..k}
 * (j+1)/2 data sub-chunks on average (32.5 for k = 10).
 */
final class ButterflyParity {
  private final int k;
  private final int alpha;
  private final int[][] dataTerms;
  private volatile int[][] termsWithH;

  ButterflyParity(int k) {
    this.k = k;
    this.alpha = 1 << (k - 1);
    this.dataTerms = butterfly(SubcodeView.whole(alpha));
  }

  int dataUnits() {
    return k;
  }

  int alpha() {
    return alpha;
  }

  int term(int unit, int row) {
    return unit * alpha + row;
  }

  int unitOf(int term) {
    return term / alpha;
  }

  int rowOf(int term) {
    return term & (alpha - 1);
  }

  /** B[r] as data sub-chunks only (the code's definition). Shared: do not modify. */
  int[] butterflyRow(int r) {
    return dataTerms[r];
  }

  /**
   * B[r] when H is at hand (re-encoding B after a decode, repairing a data unit): each partial
   * horizontal parity of the recursion (row g, columns f..k-1) is taken as H[g] + D[g][0..f-1]
   * where that is shorter than the k-f data sub-chunks. About 20 terms per row for k = 10
   * instead of 32.5. Shared: do not modify.
   */
  int[] butterflyRowFromDataAndH(int r) {
    int[][] t = termsWithH;
    if (t == null) {
      int[] suffixUnits = new int[k];
      Arrays.fill(suffixUnits, -1);
      suffixUnits[0] = k;
      t = butterfly(SubcodeView.whole(alpha), suffixUnits);
      termsWithH = t;
    }
    return t[r];
  }

  /** H[r] as data sub-chunks. */
  int[] horizontalRow(int r) {
    return rowSum(r, 0);
  }

  /** B of a sub-code view, per local row, as data sub-chunks only. */
  int[][] butterfly(SubcodeView v) {
    int[] none = new int[k];
    Arrays.fill(none, -1);
    return butterfly(v, none);
  }

  /**
   * B of a sub-code view, per local row. {@code suffixUnits[q]} names a unit holding the
   * suffix sums S_q[g] = D[g][q] + ... + D[g][k-1] for every row g (S_0 = H), or -1: each
   * partial horizontal parity of the recursion is then taken from the cheapest of the data
   * and those suffix sums.
   */
  int[][] butterfly(SubcodeView v, int[] suffixUnits) {
    if (v.isSingleColumn()) {
      return new int[][] {{term(v.firstColumn(), v.row(0))}}; // B_1(d) = d
    }
    int h = v.half();
    int[][] top = butterfly(v.top(), suffixUnits);
    int[][] flippedBottom = butterfly(v.flippedBottom(), suffixUnits);
    int[][] rows = new int[2 * h][];
    for (int i = 0; i < h; i++) {
      // Top half: (P b)[i] + B_{w-1}(A)[i], where (P b)[i] is the first column's mirrored row.
      rows[i] = prepend(term(v.firstColumn(), v.mirrored(i)), top[i]);
      // Bottom half, upside down: row 2h-1-i = H_w(a A)[i] + B_{w-1}(P B)[i].
      rows[2 * h - 1 - i] = concat(rowSum(v.row(i), v.firstColumn(), suffixUnits), flippedBottom[i]);
    }
    return rows;
  }

  /** Horizontal parity of global row g over columns first..k-1, as data sub-chunks. */
  int[] rowSum(int g, int first) {
    int[] t = new int[k - first];
    for (int c = first; c < k; c++) {
      t[c - first] = term(c, g);
    }
    return t;
  }

  /**
   * Horizontal parity of row g over columns first..k-1 from the cheapest source: the data
   * alone, or a stored suffix sum S_q[g] plus the data columns between q and first.
   */
  int[] rowSum(int g, int first, int[] suffixUnits) {
    int bestQ = -1;
    int bestCost = k - first;
    for (int q = 0; q < k; q++) {
      if (suffixUnits[q] >= 0 && Math.abs(first - q) + 1 < bestCost) {
        bestQ = q;
        bestCost = Math.abs(first - q) + 1;
      }
    }
    if (bestQ < 0) {
      return rowSum(g, first);
    }
    int[] t = new int[bestCost];
    t[0] = term(suffixUnits[bestQ], g);
    for (int c = Math.min(first, bestQ), i = 1; c < Math.max(first, bestQ); c++) {
      t[i++] = term(c, g);
    }
    return t;
  }

  private static int[] prepend(int x, int[] rest) {
    int[] r = new int[rest.length + 1];
    r[0] = x;
    System.arraycopy(rest, 0, r, 1, rest.length);
    return r;
  }

  private static int[] concat(int[] a, int[] b) {
    int[] r = new int[a.length + b.length];
    System.arraycopy(a, 0, r, 0, a.length);
    System.arraycopy(b, 0, r, a.length, b.length);
    return r;
  }
}
