package io.ecrepair.plan;

import io.ecrepair.ecdag.Ecdag;
import io.ecrepair.gf.GF256;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Bounds every plan of a repair obeys, whatever its graph shape or coloring (any rewrite of
 * the graph computes the same linear map from leaves to repaired sub-chunks).
 *
 * <p>Let M be that map (repaired sub-chunks x leaves) and M_h its columns for the leaves of
 * helper h. Information about h's data leaves h only in what h sends, and the repaired
 * sub-chunks depend on it through M_h, so h sends at least rank(M_h) sub-chunks; summed over
 * the helpers, the repair bandwidth is at least sum_h rank(M_h). The requestor holds nothing
 * and must end with rank(M) independent sub-chunks, so it receives at least rank(M): the max
 * repair load is at least max(rank(M), max_h rank(M_h)).
 */
public final class LowerBounds {
  private final int bandwidth;
  private final int maxLoad;
  private final Map<Integer, Integer> helperRanks;

  private LowerBounds(int bandwidth, int maxLoad, Map<Integer, Integer> helperRanks) {
    this.bandwidth = bandwidth;
    this.maxLoad = maxLoad;
    this.helperRanks = helperRanks;
  }

  public static LowerBounds of(Ecdag g) {
    Map<Integer, Map<Integer, Integer>> expr = GraphTransforms.leafExpressions(g);
    List<Ecdag.Vertex> repaired = g.repaired();
    Map<Integer, List<Integer>> leavesOf = new TreeMap<>();
    for (Ecdag.Vertex v : g.leaves()) {
      leavesOf.computeIfAbsent(v.block(), b -> new ArrayList<>()).add(v.id());
    }
    Map<Integer, Integer> ranks = new TreeMap<>();
    int sum = 0;
    int maxHelper = 0;
    for (Map.Entry<Integer, List<Integer>> h : leavesOf.entrySet()) {
      int r = rank(repaired, expr, h.getValue());
      ranks.put(h.getKey(), r);
      sum += r;
      maxHelper = Math.max(maxHelper, r);
    }
    List<Integer> all = g.leaves().stream().map(Ecdag.Vertex::id).toList();
    int total = rank(repaired, expr, all);
    return new LowerBounds(sum, Math.max(total, maxHelper), ranks);
  }

  /** Repair bandwidth of any plan is at least this (sub-chunks). */
  public int bandwidth() {
    return bandwidth;
  }

  /** Max repair load of any plan is at least this (sub-chunks). */
  public int maxLoad() {
    return maxLoad;
  }

  /** rank(M_h) per helper block. */
  public Map<Integer, Integer> helperRanks() {
    return helperRanks;
  }

  private static int rank(List<Ecdag.Vertex> rows, Map<Integer, Map<Integer, Integer>> expr, List<Integer> cols) {
    Map<Integer, Integer> colIndex = new HashMap<>();
    for (int c : cols) {
      colIndex.put(c, colIndex.size());
    }
    int n = cols.size();
    int[][] m = new int[rows.size()][];
    for (int r = 0; r < m.length; r++) {
      m[r] = new int[n];
      for (Map.Entry<Integer, Integer> t : expr.get(rows.get(r).id()).entrySet()) {
        Integer c = colIndex.get(t.getKey());
        if (c != null) {
          m[r][c] = t.getValue();
        }
      }
    }
    return rank(m, n);
  }

  /** Rank over GF(2^8) by Gaussian elimination (destroys m). */
  static int rank(int[][] m, int cols) {
    int rank = 0;
    for (int c = 0; c < cols && rank < m.length; c++) {
      int pivot = -1;
      for (int r = rank; r < m.length; r++) {
        if (m[r][c] != 0) {
          pivot = r;
          break;
        }
      }
      if (pivot < 0) {
        continue;
      }
      int[] t = m[pivot];
      m[pivot] = m[rank];
      m[rank] = t;
      int inv = GF256.inv((byte) t[c]) & 0xFF;
      for (int j = c; j < cols; j++) {
        t[j] = GF256.mul(t[j], inv);
      }
      for (int r = rank + 1; r < m.length; r++) {
        int f = m[r][c];
        if (f != 0) {
          int[] row = m[r];
          for (int j = c; j < cols; j++) {
            if (t[j] != 0) {
              row[j] ^= GF256.mul(f, t[j]);
            }
          }
        }
      }
      rank++;
    }
    return rank;
  }
}
