package io.ecrepair.codes.butterfly;

import io.ecrepair.ecdag.Ecdag;
import java.util.Arrays;

/**
 * The leaf vertices of a graph under construction, one lookup table per unit: Butterfly graphs
 * touch up to n*alpha stored sub-chunks, many times each, so leaves are looked up here rather
 * than through the builder's general map.
 */
final class Leaves {
  private final Ecdag.Builder g;
  private final int[][] ids;

  Leaves(Ecdag.Builder g, int units, int alpha) {
    this.g = g;
    this.ids = new int[units][];
    for (int u = 0; u < units; u++) {
      ids[u] = new int[alpha];
      Arrays.fill(ids[u], -1);
    }
  }

  /** The vertex of stored sub-chunk (unit, row), created on first use. */
  int of(int unit, int row) {
    int v = ids[unit][row];
    if (v < 0) {
      v = g.leaf(unit, row);
      ids[unit][row] = v;
    }
    return v;
  }
}
