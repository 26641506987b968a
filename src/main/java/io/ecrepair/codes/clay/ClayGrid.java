package io.ecrepair.codes.clay;

import java.util.ArrayList;
import java.util.List;

/**
 * The geometry of a Clay code: grid positions of units and virtual nodes, digits of layer
 * indices, vertex pairing. Everything here is index arithmetic, kept in one place so the
 * coding steps can speak of "the companion of node p in layer z".
 *
 * <h2>Positions</h2>
 * The base code has n' = q*t positions 0..n'-1; position p is node (x, y) = (p mod q, p div q).
 * The nu virtual nodes take positions 0..nu-1 (so they share y-section 0 with the first data
 * units); unit i (data 0..k-1, then parity k..n-1, as in HDFS) takes position nu + i. The
 * parity units therefore fill the last y-sections.
 *
 * <h2>Layers</h2>
 * Layer z (0..alpha-1) has digits z_0..z_{t-1} in base q with z_y of weight q^y:
 * {@code z = sum z_y q^y}. Sub-chunk j of every unit holds layer j. So the last y-section
 * (parity) owns the most significant digit and section 0 (virtual nodes and the first data
 * units) the least significant one. Consequences:
 * <ul>
 *   <li>repair of a node in section y reads layers {z : z_y = x}: runs of q^y contiguous
 *       sub-chunks (one run of beta for the last section, single sub-chunks for section 0);
 *   <li>in encoding, the parity section's pairs are runs of alpha/q sub-chunks and section 0,
 *       whose pairs are single sub-chunks, holds the virtual nodes, whose pairs cost least.
 * </ul>
 *
 * <h2>Pairing</h2>
 * Vertex (p, z) with p = (x, y) is unpaired ("red", a hole-dot when p is erased) when
 * x = z_y. Otherwise its companion is (p*, z*) with p* = (z_y, y) and z* = z with digit y
 * set to x: the same y-section, x and z_y interchanged.
 */
public final class ClayGrid {
  private final ClayParameters params;
  private final int[] weight;

  public ClayGrid(ClayParameters params) {
    this.params = params;
    this.weight = new int[params.t()];
    int w = 1;
    for (int y = 0; y < params.t(); y++) {
      weight[y] = w;
      w *= params.q();
    }
  }

  public ClayParameters params() {
    return params;
  }

  /** n' = n + nu. */
  public int positions() {
    return params.baseLength();
  }

  public int q() {
    return params.q();
  }

  public int t() {
    return params.t();
  }

  public int alpha() {
    return params.alpha();
  }

  // ---- units, positions, coordinates ----

  /** The grid position of unit {@code unit} (0..n-1). */
  public int positionOfUnit(int unit) {
    if (unit < 0 || unit >= params.n()) {
      throw new IllegalArgumentException("unit " + unit + " is outside 0.." + (params.n() - 1));
    }
    return unit + params.virtualNodes();
  }

  /** The unit stored at a position, or -1 for a virtual node. */
  public int unitAt(int position) {
    return position < params.virtualNodes() ? -1 : position - params.virtualNodes();
  }

  public boolean isVirtual(int position) {
    return position < params.virtualNodes();
  }

  public NodeCoordinate coordinate(int position) {
    return new NodeCoordinate(x(position), y(position));
  }

  public int position(NodeCoordinate c) {
    return c.y() * params.q() + c.x();
  }

  public int x(int position) {
    return position % params.q();
  }

  public int y(int position) {
    return position / params.q();
  }

  /** The q positions of y-section {@code y}. */
  public int[] section(int y) {
    int[] s = new int[params.q()];
    for (int x = 0; x < s.length; x++) {
      s[x] = y * params.q() + x;
    }
    return s;
  }

  // ---- layer digits ----

  /** q^y: how far apart layers differing by one in digit y are. */
  public int weight(int y) {
    return weight[y];
  }

  /** z_y. */
  public int digit(int z, int y) {
    return z / weight[y] % params.q();
  }

  /** z with digit y replaced by {@code value}. */
  public int withDigit(int z, int y, int value) {
    return z + (value - digit(z, y)) * weight[y];
  }

  // ---- pairing ----

  /** True when node {@code position} is unpaired in layer z (x = z_y): U = C there. */
  public boolean isUnpaired(int position, int z) {
    return x(position) == digit(z, y(position));
  }

  /** The companion position p* = (z_y, y) of a paired vertex (p, z). */
  public int companionPosition(int position, int z) {
    return y(position) * params.q() + digit(z, y(position));
  }

  /** The companion layer z* (z with digit y set to x) of a paired vertex (p, z). */
  public int companionLayer(int position, int z) {
    return withDigit(z, y(position), x(position));
  }

  /** Intersection score: how many of {@code erased} are unpaired (hole-dots) in layer z. */
  public int intersectionScore(int z, boolean[] erased) {
    int score = 0;
    for (int p = 0; p < erased.length; p++) {
      if (erased[p] && isUnpaired(p, z)) {
        score++;
      }
    }
    return score;
  }

  /** The layers a single-node repair of {@code position} works in: z_y = x, beta of them. */
  public int[] repairLayers(int position) {
    int yy = y(position);
    int xx = x(position);
    int[] layers = new int[params.beta()];
    int n = 0;
    for (int z = 0; z < params.alpha(); z++) {
      if (digit(z, yy) == xx) {
        layers[n++] = z;
      }
    }
    return layers;
  }

  /**
   * The layers a repair of the positions in {@code lost} works in: those with a hole-dot,
   * IS(lost, z) > 0, sorted. There are alpha - prod_y (q - e_y) of them, e_y the lost
   * positions of section y (paper, Appendix A: beta_e); one lost position gives
   * {@link #repairLayers(int)}.
   */
  public int[] repairLayers(boolean[] lost) {
    int[] layers = new int[params.alpha()];
    int n = 0;
    for (int z = 0; z < params.alpha(); z++) {
      if (intersectionScore(z, lost) > 0) {
        layers[n++] = z;
      }
    }
    return java.util.Arrays.copyOf(layers, n);
  }

  /** The one position of {@code lost} unpaired in layer z, or -1 if there are none or several. */
  public int soleHoleDot(int z, boolean[] lost) {
    int hole = -1;
    for (int y = 0; y < params.t(); y++) {
      int p = y * params.q() + digit(z, y); // the unpaired position of section y
      if (lost[p]) {
        if (hole >= 0) {
          return -1;
        }
        hole = p;
      }
    }
    return hole;
  }

  /** Splits sorted layers into maximal runs of consecutive indices: {start, length} pairs. */
  public static List<int[]> runs(int[] sortedLayers) {
    List<int[]> runs = new ArrayList<>();
    int i = 0;
    while (i < sortedLayers.length) {
      int j = i + 1;
      while (j < sortedLayers.length && sortedLayers[j] == sortedLayers[j - 1] + 1) {
        j++;
      }
      runs.add(new int[] {sortedLayers[i], j - i});
      i = j;
    }
    return runs;
  }
}
