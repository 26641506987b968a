package io.ecrepair.codes.clay;

import io.ecrepair.codes.UndecodableException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * The repair of several lost nodes from chosen helpers (paper, Appendix A, Algorithm 1
 * "repair"), worked out before any code is compiled: which layers, what each layer decodes
 * from what, in which order, and so which helper sub-chunks are read. {@link ClayPlanner}
 * compiles it into a plan; {@link ClayCode} asks it what a repair costs.
 *
 * <p>Notation over the grid positions: E the lost positions, H the helpers, the virtual
 * nodes (known zeros, never read), J the aloof positions (real, neither lost nor helper: not
 * read). Every real survivor of a y-section holding a lost node must be a helper.
 *
 * <ul>
 *   <li><b>Repair layers</b> R: the layers with a hole-dot, IS(E, z) > 0; there are
 *       beta_e = alpha - prod_y (q - e_y). Only sub-chunks of helpers in R are read.
 *   <li><b>Order</b>: increasing IS(E u J, z). A known node whose companion is in E u J
 *       finds the companion's U in a layer of lower score.
 *   <li><b>Erased in layer z</b>, E'(z) = E u J u G: G is empty when z has several
 *       hole-dots, else the whole y-section of its one hole-dot (virtual nodes included),
 *       whose U cannot be computed there (their companions lie in layers outside R). At
 *       most m positions; the base code gives their U from k' known ones.
 *   <li><b>Basis</b>: when more than k' positions are known (d > k, or a section with
 *       several lost nodes) a layer uses only k' of them; the others are left out where
 *       they would cost reads (greedy: leave out the positions needing most sub-chunks not
 *       read yet). So a repair reads at most d_e * beta_e sub-chunks, exactly that when
 *       every layer knows exactly k' positions (d = n - 1).
 *   <li><b>Stored bytes of a lost node e</b> in section y: in its hole-dot layers C = U; in
 *       a layer z of R where it pairs with e*, C = U + gamma C(e*) for a helper e* (U for a
 *       virtual e*), or the pairwise forward transform of U(e), U(e*) for a lost e*; in a
 *       layer z' outside R, C(e, z') = (U(p, z) + C(p, z)) / gamma from its companion
 *       (p, z) in G of the layer z where e is the only hole-dot.
 * </ul>
 */
final class RepairPattern {
  private final ClayGrid grid;
  private final int[] lost;
  private final boolean[] isLost;
  private final boolean[] isHelper;
  private final boolean[] unread;
  private final int[] repairLayers;
  private final boolean[] inR;
  private final int[] order;
  private final boolean[][] erasedIn;
  private final boolean[][] inBasis;
  private final int[][] basis;
  private final boolean[][] read;
  private final long readCount;

  /**
   * @param lostPositions the lost positions (real), in output order
   * @param helperPositions the helpers (real, not lost)
   * @throws UndecodableException when a lost node's section has a real survivor that is no
   *     helper, or a layer knows fewer than k' positions (too few helpers)
   */
  RepairPattern(ClayGrid grid, int[] lostPositions, boolean[] helperPositions) {
    this.grid = grid;
    int np = grid.positions();
    int alpha = grid.alpha();
    int q = grid.q();
    this.lost = lostPositions.clone();
    this.isLost = new boolean[np];
    for (int p : lost) {
      if (grid.isVirtual(p) || isLost[p]) {
        throw new IllegalArgumentException("lost positions must be real and distinct: " + Arrays.toString(lost));
      }
      isLost[p] = true;
    }
    this.isHelper = new boolean[np];
    this.unread = new boolean[np];
    for (int p = 0; p < np; p++) {
      isHelper[p] = helperPositions[p];
      if (isHelper[p] && (isLost[p] || grid.isVirtual(p))) {
        throw new IllegalArgumentException("position " + p + " cannot be a helper");
      }
      unread[p] = !grid.isVirtual(p) && !isHelper[p];
    }
    for (int p : lost) {
      for (int s : grid.section(grid.y(p))) {
        if (!grid.isVirtual(s) && !isLost[s] && !isHelper[s]) {
          throw new UndecodableException("repair of unit " + grid.unitAt(p) + " needs unit " + grid.unitAt(s)
              + " of its y-section as a helper");
        }
      }
    }
    this.repairLayers = grid.repairLayers(isLost);
    this.inR = new boolean[alpha];
    for (int z : repairLayers) {
      inR[z] = true;
    }
    Integer[] boxed = Arrays.stream(repairLayers).boxed().toArray(Integer[]::new);
    Arrays.sort(boxed, Comparator.comparingInt(z -> grid.intersectionScore(z, unread)));
    this.order = Arrays.stream(boxed).mapToInt(Integer::intValue).toArray();

    int m = grid.params().m();
    int kp = grid.params().baseDimension();
    this.erasedIn = new boolean[alpha][];
    for (int z : repairLayers) {
      boolean[] e = unread.clone();
      int hole = grid.soleHoleDot(z, isLost);
      if (hole >= 0) {
        for (int s : grid.section(grid.y(hole))) {
          e[s] = true;
        }
      }
      int count = 0;
      for (boolean b : e) {
        count += b ? 1 : 0;
      }
      if (count > m) {
        throw new UndecodableException("repair of units " + units(lost) + " from " + count(helperPositions)
            + " helpers: layer " + z + " would have " + count + " > m = " + m + " erasures");
      }
      erasedIn[z] = e;
    }

    // Reads the final couplings need whatever the bases: C(e*) of a helper companion of a
    // lost node, and C(p) of the helpers of G giving a lost node's layers outside R.
    this.read = new boolean[np][alpha];
    for (int z : repairLayers) {
      for (int e : lost) {
        if (!grid.isUnpaired(e, z)) {
          int es = grid.companionPosition(e, z);
          if (isHelper[es]) {
            read[es][grid.companionLayer(e, z)] = true;
          }
        }
      }
      int hole = grid.soleHoleDot(z, isLost);
      if (hole >= 0) {
        for (int x = 0; x < q; x++) {
          int p = grid.y(hole) * q + x;
          if (p != hole && !inR[grid.withDigit(z, grid.y(hole), x)] && isHelper[p]) {
            read[p][z] = true;
          }
        }
      }
    }
    // Bases, layer by layer in processing order.
    this.basis = new int[alpha][];
    this.inBasis = new boolean[alpha][];
    for (int z : order) {
      List<Integer> known = new ArrayList<>();
      for (int p = 0; p < np; p++) {
        if (!erasedIn[z][p]) {
          known.add(p);
        }
      }
      int spare = known.size() - kp;
      if (spare < 0) {
        throw new UndecodableException("repair of units " + units(lost) + " from " + count(helperPositions)
            + " helpers: layer " + z + " knows " + known.size() + " < k' = " + kp + " positions");
      }
      final int layer = z;
      // Leave out the spare positions needing most unread sub-chunks (ties: highest position).
      known.sort(Comparator.comparingInt((Integer p) -> -newReads(p, layer)).thenComparing(p -> -p));
      List<Integer> chosen = new ArrayList<>(known.subList(spare, known.size()));
      chosen.sort(null);
      basis[z] = chosen.stream().mapToInt(Integer::intValue).toArray();
      inBasis[z] = new boolean[np];
      for (int p : basis[z]) {
        inBasis[z][p] = true;
        markReads(p, z);
      }
    }
    long c = 0;
    for (boolean[] r : read) {
      for (boolean b : r) {
        c += b ? 1 : 0;
      }
    }
    this.readCount = c;
  }

  /** Sub-chunks not yet read that U(p, z) needs: C(p, z) and C of a helper companion. */
  private int newReads(int p, int z) {
    int n = isHelper[p] && !read[p][z] ? 1 : 0;
    if (!grid.isUnpaired(p, z)) {
      int ps = grid.companionPosition(p, z);
      if (isHelper[ps] && !read[ps][grid.companionLayer(p, z)]) {
        n++;
      }
    }
    return n;
  }

  private void markReads(int p, int z) {
    if (isHelper[p]) {
      read[p][z] = true;
    }
    if (!grid.isUnpaired(p, z)) {
      int ps = grid.companionPosition(p, z);
      if (isHelper[ps]) {
        read[ps][grid.companionLayer(p, z)] = true;
      }
    }
  }

  ClayGrid grid() {
    return grid;
  }

  /** The lost positions in output order. */
  int[] lostPositions() {
    return lost.clone();
  }

  boolean isLost(int position) {
    return isLost[position];
  }

  boolean isHelper(int position) {
    return isHelper[position];
  }

  /** Lost and aloof positions: never read. */
  boolean[] unread() {
    return unread.clone();
  }

  /** R, sorted: beta_e layers. */
  int[] repairLayers() {
    return repairLayers.clone();
  }

  boolean inRepairLayers(int z) {
    return inR[z];
  }

  /** R by increasing IS(E u J, z). */
  int[] order() {
    return order.clone();
  }

  /** E'(z) of a repair layer. */
  boolean[] erasedIn(int z) {
    return erasedIn[z].clone();
  }

  /** The k' known positions layer z decodes from. */
  int[] basis(int z) {
    return basis[z].clone();
  }

  /** Whether layer z (of R) decodes from U of this position; false outside R. */
  boolean inBasis(int position, int z) {
    return inR[z] && inBasis[z][position];
  }

  /** The one lost position unpaired in z, or -1 (none, or several: G is empty). */
  int soleHoleDot(int z) {
    return grid.soleHoleDot(z, isLost);
  }

  /**
   * Whether U(p, z) of an unread position p paired in z must be kept: its companion uses it
   * in a later layer's basis, or both are lost (their C come from the pair transform).
   */
  boolean uncoupledNeededLater(int p, int z) {
    if (!unread[p] || grid.isUnpaired(p, z)) {
      return false;
    }
    int ps = grid.companionPosition(p, z);
    int zs = grid.companionLayer(p, z);
    if (isLost[p] && isLost[ps]) {
      return true;
    }
    return !unread[ps] && inBasis(ps, zs);
  }

  /** Whether the repair reads sub-chunk z of the unit at this position. */
  boolean reads(int position, int z) {
    return read[position][z];
  }

  /** Sub-chunks read in all: at most (helpers) x beta_e. */
  long readCount() {
    return readCount;
  }

  private String units(int[] positions) {
    return Arrays.toString(Arrays.stream(positions).map(grid::unitAt).toArray());
  }

  private static int count(boolean[] b) {
    int c = 0;
    for (boolean x : b) {
      c += x ? 1 : 0;
    }
    return c;
  }
}
