package io.ecrepair.codes.butterfly;

import io.ecrepair.ecdag.Ecdag;
import java.util.Arrays;

/**
 * Repair of one lost unit of Butterfly(k) from all n-1 = k+1 others: which sub-chunks each
 * helper sends, and the graph rebuilding the lost unit from them. Helpers send stored
 * sub-chunks unchanged (repair by transfer); the newcomer does all the XORs.
 *
 * <h2>Which sub-chunks (alpha/2 from every helper for data units and H)</h2>
 * Write a row index r in k-1 bits, bit k-2 the highest.
 * <ul>
 *   <li>data unit 0: rows with bit k-2 = 0, the top half (one run of alpha/2 sub-chunks);
 *   <li>data unit c, 0 &lt; c &lt; k-1: rows with bit k-1-c = bit k-2-c (2^(c-1)+1 runs of
 *       blocks of 2^(k-2-c) rows, touching blocks merged). Recursively: the rows R' that unit
 *       c-1 of Butterfly(k-1) uses, plus their mirror images alpha-1-R', because unit c is
 *       column c-1 of both sub-codes (the top half A and the flipped bottom half P B);
 *   <li>data unit k-1, the innermost column: the even rows from the data units and H, the odd
 *       rows from B (alpha/2 runs of one sub-chunk: the B helper's set is the complement);
 *   <li>H (unit k): the bottom half, rows alpha/2..alpha-1, from every helper;
 *   <li>B (unit k+1): every sub-chunk of the k data units and nothing from H, k*alpha in all.
 * </ul>
 *
 * <h2>How (two named steps)</h2>
 * A lost data unit c: the <i>row-parity step</i> rebuilds D[r][c] = H[r] + the other data of
 * row r for every read row r; the <i>butterfly step</i> takes each read row of B, which
 * contains exactly one sub-chunk of column c outside the read rows, every other term being
 * read or already rebuilt, and solves it for that sub-chunk. A lost H: H[r] for the read
 * (bottom) rows is the XOR of the read data row; each read B row r is H[alpha-1-r] (the H_w(a A)
 * part of the top level) plus terms of read rows, so H[alpha-1-r] = B[r] + those terms. A lost
 * B is re-encoded from the data. Partial horizontal parities inside B rows are taken from read
 * or rebuilt H rows where that is shorter. The construction checks these
 * exactly-one-unknown properties while it builds each graph, so a wrong read set cannot
 * produce a wrong graph silently.
 */
final class SingleNodeRepair {
  private SingleNodeRepair() {}

  /** Whether {@code helper} sends sub-chunk {@code row} when {@code lost} is repaired alone. */
  static boolean sends(int k, int lost, int helper, int row) {
    int alpha = 1 << (k - 1);
    int hUnit = k;
    int bUnit = k + 1;
    if (lost == bUnit) {
      return helper < k;
    }
    if (lost == hUnit) {
      return row >= alpha / 2;
    }
    if (lost == 0) {
      return bit(row, k - 2) == 0;
    }
    if (lost < k - 1) {
      return bit(row, k - 1 - lost) == bit(row, k - 2 - lost);
    }
    return (row & 1) == (helper == bUnit ? 1 : 0);
  }

  /** The sub-chunks {@code helper} sends for the repair of {@code lost}, ascending. */
  static int[] subchunks(int k, int lost, int helper) {
    int alpha = 1 << (k - 1);
    int[] rows = new int[alpha];
    int n = 0;
    for (int r = 0; r < alpha; r++) {
      if (sends(k, lost, helper, r)) {
        rows[n++] = r;
      }
    }
    return Arrays.copyOf(rows, n);
  }

  static Ecdag graph(ButterflyParity p, int lost) {
    int k = p.dataUnits();
    if (lost < k) {
      return dataUnit(p, lost);
    }
    return lost == k ? horizontalParity(p) : butterflyParity(p);
  }

  private static Ecdag dataUnit(ButterflyParity p, int c) {
    int k = p.dataUnits();
    int alpha = p.alpha();
    int hUnit = k;
    int bUnit = k + 1;
    Ecdag.Builder g = Ecdag.builder(alpha);
    Leaves leaf = new Leaves(g, k + 2, alpha);
    int[] rebuilt = new int[alpha];
    Arrays.fill(rebuilt, -1);
    // Row-parity step: D[r][c] = H[r] + sum of the other data of row r, for every read row.
    for (int r = 0; r < alpha; r++) {
      if (!sends(k, c, hUnit, r)) {
        continue;
      }
      Xor x = Xor.of(leaf.of(hUnit, r));
      for (int j = 0; j < k; j++) {
        if (j != c) {
          x.add(leaf.of(j, r));
        }
      }
      rebuilt[r] = x.repaired(g, c, r);
    }
    // Butterfly step: each read B row has one unknown sub-chunk of column c.
    for (int r = 0; r < alpha; r++) {
      if (!sends(k, c, bUnit, r)) {
        continue;
      }
      Xor x = Xor.of(leaf.of(bUnit, r));
      int unknown = -1;
      // The row's partial horizontal parities lie in read rows, whose H is read too: take
      // them from H where that is shorter (about 20 terms instead of 32.5 for k = 10).
      for (int t : p.butterflyRowFromDataAndH(r)) {
        int unit = p.unitOf(t);
        int row = p.rowOf(t);
        if (unit == c && rebuilt[row] >= 0) {
          x.add(rebuilt[row]);
        } else if (unit == c && unknown < 0) {
          unknown = row;
        } else if (unit != c && sends(k, c, unit, row)) {
          x.add(leaf.of(unit, row));
        } else {
          throw new IllegalStateException("Butterfly(" + k + "): B row " + r + " has a second unknown ("
              + unit + ", " + row + ") when repairing unit " + c);
        }
      }
      if (unknown < 0) {
        throw new IllegalStateException("Butterfly(" + k + "): B row " + r + " has no unknown of unit " + c);
      }
      rebuilt[unknown] = x.repaired(g, c, unknown);
    }
    checkComplete(rebuilt, k, c);
    return g.build();
  }

  private static Ecdag horizontalParity(ButterflyParity p) {
    int k = p.dataUnits();
    int alpha = p.alpha();
    int hUnit = k;
    int bUnit = k + 1;
    Ecdag.Builder g = Ecdag.builder(alpha);
    Leaves leaf = new Leaves(g, k + 2, alpha);
    int[] rebuilt = new int[alpha];
    Arrays.fill(rebuilt, -1);
    // Read rows: H is the XOR of the read data row.
    for (int r = alpha / 2; r < alpha; r++) {
      Xor x = new Xor();
      for (int j = 0; j < k; j++) {
        x.add(leaf.of(j, r));
      }
      rebuilt[r] = x.repaired(g, hUnit, r);
    }
    // Unread rows: a read B row is H[g] of one unread row g plus terms of read rows only (the
    // H_w(a A) part of the top level), the partial horizontal parities among them taken from
    // the H rows just rebuilt; so H[g] = B[r] + those terms.
    for (int r = alpha / 2; r < alpha; r++) {
      Xor x = Xor.of(leaf.of(bUnit, r));
      int unknown = -1;
      for (int t : p.butterflyRowFromDataAndH(r)) {
        int unit = p.unitOf(t);
        int row = p.rowOf(t);
        if (row >= alpha / 2) {
          x.add(unit == hUnit ? rebuilt[row] : leaf.of(unit, row));
        } else if (unit == hUnit && unknown < 0) {
          unknown = row;
        } else {
          throw new IllegalStateException("Butterfly(" + k + "): B row " + r + " has a second unread term ("
              + unit + ", " + row + ") when repairing H");
        }
      }
      if (unknown < 0) {
        throw new IllegalStateException("Butterfly(" + k + "): B row " + r + " holds no unread H row");
      }
      rebuilt[unknown] = x.repaired(g, hUnit, unknown);
    }
    checkComplete(rebuilt, k, hUnit);
    return g.build();
  }

  private static Ecdag butterflyParity(ButterflyParity p) {
    int k = p.dataUnits();
    Ecdag.Builder g = Ecdag.builder(p.alpha());
    Leaves leaf = new Leaves(g, k + 2, p.alpha());
    for (int r = 0; r < p.alpha(); r++) {
      Xor x = new Xor();
      for (int t : p.butterflyRow(r)) {
        x.add(leaf.of(p.unitOf(t), p.rowOf(t)));
      }
      x.repaired(g, k + 1, r);
    }
    return g.build();
  }

  private static void checkComplete(int[] rebuilt, int k, int unit) {
    for (int r = 0; r < rebuilt.length; r++) {
      if (rebuilt[r] < 0) {
        throw new IllegalStateException("Butterfly(" + k + "): repair of unit " + unit + " misses sub-chunk " + r);
      }
    }
  }

  private static int bit(int x, int i) {
    return (x >> i) & 1;
  }
}
