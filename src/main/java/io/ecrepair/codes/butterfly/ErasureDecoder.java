package io.ecrepair.codes.butterfly;

import io.ecrepair.ecdag.Ecdag;
import java.util.Arrays;

/**
 * The decoding graph of Butterfly(k) for up to two erased units, built by the same recursion
 * that defines the code (see {@link ButterflyParity}): the erased data are found layer by
 * layer through the sub-codes, then the erased parities are re-encoded. Reads every sub-chunk
 * of the units it needs (k*alpha sub-chunks, as for any MDS decode).
 *
 * <p>Erased data columns, by what survives:
 * <ul>
 *   <li>one data column, H survives: the row-parity step, D[r][c] = H[r] + the rest of row r;
 *   <li>one data column with H erased: {@link #withButterflyParity}, using B alone;
 *   <li>two data columns: {@link #twoColumns}, using H and B.
 * </ul>
 * Sub-codes receive their own parities as XORs of stored and already decoded sub-chunks,
 * following the code's definition: for a view D = [a A; b B] with parities H_w, B_w,
 * <pre>
 *   H_{w-1}(A)[i]   = H_w[i] + a[i]                  B_{w-1}(A)[i]   = B_w[i] + b[h-1-i]
 *   H_{w-1}(P B)[j] = H_w[2h-1-j] + b[h-1-j]         B_{w-1}(P B)[j] = B_w[2h-1-j] + H_w[j]
 * </pre>
 */
final class ErasureDecoder {
  private final ButterflyParity parity;
  private final int k;
  private final int alpha;
  private final Ecdag.Builder g;
  private final Leaves leaves;
  private final boolean[] erased;
  private final boolean[] output;
  /** Vertex of D[row][column] once known, per column; -1 while unknown; leaves made lazily. */
  private final int[][] data;

  private ErasureDecoder(ButterflyParity parity, boolean[] erased, boolean[] output) {
    this.parity = parity;
    this.k = parity.dataUnits();
    this.alpha = parity.alpha();
    this.g = Ecdag.builder(alpha);
    this.leaves = new Leaves(g, k + 2, alpha);
    this.erased = erased;
    this.output = output;
    this.data = new int[k][alpha];
    for (int[] column : data) {
      Arrays.fill(column, -1);
    }
  }

  /**
   * The graph rebuilding the {@code outputs} from the units not in {@code erased}
   * (outputs a subset of erased, at most two erased).
   */
  static Ecdag graph(ButterflyParity parity, int[] erasedUnits, int[] outputs) {
    int n = parity.dataUnits() + 2;
    boolean[] erased = new boolean[n];
    boolean[] output = new boolean[n];
    for (int u : erasedUnits) {
      erased[u] = true;
    }
    for (int u : outputs) {
      output[u] = true;
    }
    ErasureDecoder d = new ErasureDecoder(parity, erased, output);
    d.decodeData();
    d.encodeParities();
    return d.g.build();
  }

  private void decodeData() {
    int[] lost = new int[2];
    int count = 0;
    for (int c = 0; c < k; c++) {
      if (erased[c]) {
        lost[count++] = c;
      }
    }
    if (count == 0) {
      return;
    }
    SubcodeView whole = SubcodeView.whole(alpha);
    boolean hErased = erased[k];
    if (count == 1 && !hErased) {
      rowParityStep(whole, lost[0], stored(k));
    } else if (count == 1) {
      withButterflyParity(whole, lost[0], stored(k + 1));
    } else {
      twoColumns(whole, lost[0], lost[1], stored(k), stored(k + 1));
    }
  }

  /**
   * Re-encodes the erased parities that are outputs. B uses H (stored or rebuilt) where that is
   * shorter, else the data alone.
   */
  private void encodeParities() {
    int hUnit = k;
    int bUnit = k + 1;
    int[] h = null;
    if (erased[hUnit] && output[hUnit]) {
      h = new int[alpha];
      for (int r = 0; r < alpha; r++) {
        Xor x = new Xor();
        addTerms(x, parity.horizontalRow(r));
        h[r] = x.repaired(g, hUnit, r);
      }
    }
    if (!(erased[bUnit] && output[bUnit])) {
      return;
    }
    boolean withH = h != null || !erased[hUnit];
    for (int r = 0; r < alpha; r++) {
      Xor x = new Xor();
      for (int t : withH ? parity.butterflyRowFromDataAndH(r) : parity.butterflyRow(r)) {
        int unit = parity.unitOf(t);
        int row = parity.rowOf(t);
        if (unit != hUnit) {
          x.add(dataVertex(unit, row));
        } else {
          x.add(h != null ? h[row] : leaves.of(hUnit, row));
        }
      }
      x.repaired(g, bUnit, r);
    }
  }

  /** Row-parity step: column c (global) of the view from the view's horizontal parity hv. */
  private void rowParityStep(SubcodeView v, int c, Xor[] hv) {
    for (int i = 0; i < v.height(); i++) {
      Xor x = hv[i].copy();
      for (int j = v.firstColumn(); j < k; j++) {
        if (j != c) {
          x.add(dataVertex(j, v.row(i)));
        }
      }
      solved(c, v.row(i), x);
    }
  }

  /** Column c (global) of the view from the view's butterfly parity bv (its H unknown). */
  private void withButterflyParity(SubcodeView v, int c, Xor[] bv) {
    if (v.isSingleColumn()) {
      solved(c, v.row(0), bv[0]); // B_1(d) = d
      return;
    }
    int h = v.half();
    int f = v.firstColumn();
    SubcodeView top = v.top();
    SubcodeView flipped = v.flippedBottom();
    if (c == f) {
      // The view's first column: b from the top half of B, a from its bottom half.
      int[][] innerTop = parity.butterfly(top);
      for (int i = 0; i < h; i++) {
        Xor x = bv[i].copy();
        addTerms(x, innerTop[i]);
        solved(c, v.mirrored(i), x); // (P b)[i] = B_w[i] + B_{w-1}(A)[i]
      }
      int[][] innerFlipped = parity.butterfly(flipped);
      for (int j = 0; j < h; j++) {
        Xor x = bv[2 * h - 1 - j].copy(); // = H_w[j] + B_{w-1}(P B)[j], and H_w[j] = a[j] + H_{w-1}(A)[j]
        addTerms(x, innerFlipped[j]);
        addTerms(x, parity.rowSum(v.row(j), f + 1));
        solved(c, v.row(j), x);
      }
      return;
    }
    // A deeper column: decode it in A first, then in P B, whose B needs A's horizontal parity.
    Xor[] bTop = new Xor[h];
    for (int i = 0; i < h; i++) {
      bTop[i] = bv[i].copy().add(dataVertex(f, v.mirrored(i)));
    }
    withButterflyParity(top, c, bTop);
    Xor[] bFlipped = new Xor[h];
    for (int j = 0; j < h; j++) {
      bFlipped[j] = bv[2 * h - 1 - j].copy();
      addTerms(bFlipped[j], parity.rowSum(v.row(j), f));
    }
    withButterflyParity(flipped, c, bFlipped);
  }

  /** Columns c1 < c2 (global) of the view from its parities hv and bv. */
  private void twoColumns(SubcodeView v, int c1, int c2, Xor[] hv, Xor[] bv) {
    int h = v.half();
    int f = v.firstColumn();
    SubcodeView top = v.top();
    SubcodeView flipped = v.flippedBottom();
    if (c1 == f) {
      // B_{w-1}(P B) = flipped bottom of B_w + top of H_w needs no data of the first column:
      // decode c2 in P B, then b by row parity, then c2 in A, then a by row parity.
      Xor[] bFlipped = new Xor[h];
      for (int j = 0; j < h; j++) {
        bFlipped[j] = bv[2 * h - 1 - j].copy().addAll(hv[j]);
      }
      withButterflyParity(flipped, c2, bFlipped);
      rowParityStep(v.bottomHalf(), c1, Arrays.copyOfRange(hv, h, 2 * h));
      Xor[] bTop = new Xor[h];
      for (int i = 0; i < h; i++) {
        bTop[i] = bv[i].copy().add(dataVertex(f, v.mirrored(i)));
      }
      withButterflyParity(top, c2, bTop);
      rowParityStep(v.topHalf(), c1, Arrays.copyOfRange(hv, 0, h));
      return;
    }
    // Both columns are deeper: the first column is known, so both sub-codes get both parities.
    Xor[] hTop = new Xor[h];
    Xor[] bTop = new Xor[h];
    Xor[] hFlipped = new Xor[h];
    Xor[] bFlipped = new Xor[h];
    for (int i = 0; i < h; i++) {
      hTop[i] = hv[i].copy().add(dataVertex(f, v.row(i)));
      bTop[i] = bv[i].copy().add(dataVertex(f, v.mirrored(i)));
      hFlipped[i] = hv[2 * h - 1 - i].copy().add(dataVertex(f, v.mirrored(i)));
      bFlipped[i] = bv[2 * h - 1 - i].copy().addAll(hv[i]);
    }
    twoColumns(top, c1, c2, hTop, bTop);
    twoColumns(flipped, c1, c2, hFlipped, bFlipped);
  }

  private void addTerms(Xor x, int[] terms) {
    for (int t : terms) {
      x.add(dataVertex(parity.unitOf(t), parity.rowOf(t)));
    }
  }

  /** A stored parity as per-row single-vertex values. */
  private Xor[] stored(int unit) {
    Xor[] x = new Xor[alpha];
    for (int r = 0; r < alpha; r++) {
      x[r] = Xor.of(leaves.of(unit, r));
    }
    return x;
  }

  private int dataVertex(int column, int row) {
    if (!erased[column]) {
      return leaves.of(column, row);
    }
    int v = data[column][row];
    if (v < 0) {
      throw new IllegalStateException("Butterfly(" + k + "): D[" + row + "][" + column + "] used before it is decoded");
    }
    return v;
  }

  private void solved(int column, int row, Xor value) {
    if (data[column][row] >= 0) {
      throw new IllegalStateException("Butterfly(" + k + "): D[" + row + "][" + column + "] decoded twice");
    }
    data[column][row] = output[column] ? value.repaired(g, column, row) : value.vertex(g);
  }
}
