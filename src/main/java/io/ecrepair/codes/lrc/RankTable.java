package io.ecrepair.codes.lrc;

import io.ecrepair.gf.GF256;
import io.ecrepair.gf.GFMatrix;

/**
 * The rank of every set of units of one code (2^n entries, n <= 16: at most 64 KiB), so that
 * decodability and the cheapest read set are table look-ups.
 *
 * <p>A set S of units rebuilds the units W iff the rows of W lie in the span of the rows of S,
 * i.e. rank(S + W) = rank(S). The cheapest read set is the smallest such S among the available
 * units, found by walking every subset of them (at most 2^15 look-ups); ties go to the
 * lexicographically smallest list of unit indices, which prefers data units, then local
 * parities, then global parities.
 */
final class RankTable {
  private final int n;
  private final byte[] rank;

  /** The table of the n x k generator; built by a depth-first walk adding one row at a time. */
  RankTable(GFMatrix generator) {
    this.n = generator.rows();
    if (n > 16) {
      throw new IllegalArgumentException("rank tables cover at most 16 units, got " + n);
    }
    int k = generator.cols();
    int[][] rows = new int[n][k];
    for (int u = 0; u < n; u++) {
      for (int c = 0; c < k; c++) {
        rows[u][c] = generator.get(u, c) & 0xFF;
      }
    }
    this.rank = new byte[1 << n];
    fill(rows, 0, 0, new int[k + 1][k], new int[k + 1], 0);
  }

  /** The rank of the units in {@code mask}. */
  int rank(int mask) {
    return rank[mask];
  }

  /** Whether the units in {@code read} determine the units in {@code wanted}. */
  boolean determines(int read, int wanted) {
    return rank[read | wanted] == rank[read];
  }

  /** The smallest subset of {@code available} determining {@code wanted}, or -1 if none. */
  int cheapest(int wanted, int available) {
    int best = -1;
    int bestSize = Integer.MAX_VALUE;
    for (int s = available; ; s = (s - 1) & available) {
      int size = Integer.bitCount(s);
      if (size <= bestSize && determines(s, wanted) && (size < bestSize || lexicographicallyBefore(s, best))) {
        best = s;
        bestSize = size;
      }
      if (s == 0) {
        break;
      }
    }
    return best;
  }

  /** For sets of equal size: the sorted index list of a comes first iff the least unit in a xor b is in a. */
  private static boolean lexicographicallyBefore(int a, int b) {
    int diff = a ^ b;
    return (a & diff & -diff) != 0;
  }

  /**
   * Decides unit i in or out; {@code basis[0..r)} holds reduced rows with leading 1 at
   * {@code pivot[]}, each zero at the pivots of the rows before it.
   */
  private void fill(int[][] rows, int i, int mask, int[][] basis, int[] pivot, int r) {
    int k = basis[0].length;
    if (r == k) {
      int rest = (1 << n) - (1 << i);
      for (int s = rest; ; s = (s - 1) & rest) {
        rank[mask | s] = (byte) k;
        if (s == 0) {
          return;
        }
      }
    }
    if (i == n) {
      rank[mask] = (byte) r;
      return;
    }
    fill(rows, i + 1, mask, basis, pivot, r);
    int[] v = basis[r];
    System.arraycopy(rows[i], 0, v, 0, k);
    for (int b = 0; b < r; b++) {
      int f = v[pivot[b]];
      if (f != 0) {
        int[] row = basis[b];
        for (int c = pivot[b]; c < k; c++) {
          v[c] ^= GF256.mul(f, row[c]);
        }
      }
    }
    int lead = 0;
    while (lead < k && v[lead] == 0) {
      lead++;
    }
    if (lead == k) {
      fill(rows, i + 1, mask | 1 << i, basis, pivot, r);
      return;
    }
    int inv = GF256.inv((byte) v[lead]) & 0xFF;
    for (int c = lead; c < k; c++) {
      v[c] = GF256.mul(v[c], inv);
    }
    pivot[r] = lead;
    fill(rows, i + 1, mask | 1 << i, basis, pivot, r + 1);
  }
}
