package io.ecrepair.codes.clay;

import io.ecrepair.gf.GF256;
import io.ecrepair.gf.GFMatrix;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Layered decoding of one erasure pattern, compiled into a {@link CodingPlan} (paper,
 * section 3, "Decoding"): exactly m = n' - k' grid positions are treated as erased, the others
 * (available units and virtual nodes) as known. In every layer the uncoupled bytes U of the
 * known positions are computed from stored bytes (pairwise reverse transform), and the base
 * code gives U of the erased positions: U_E(z) = D x U_K(z), the same D in every layer.
 * Layers are taken in order of increasing intersection score, so a known node whose
 * companion is erased finds the companion's U in a layer decoded earlier.
 *
 * <p>Work is organised for few, long region calls: pairs of known units whose sub-chunks
 * pair up in runs of at least two layers are transformed up front, one call per run
 * ({@link #materializeKnownPairs}); everything else is folded into one call per layer
 * ({@link #addLayerStep}), whose matrix combines D with the transform coefficients.
 *
 * <p>A multi-node repair (paper, Appendix A) decodes a different set in different layers:
 * the positions not read (lost and aloof) are fixed, but a layer may also treat a whole
 * y-section as erased and may leave known positions out when more than k' are known. Such a
 * repair gives every layer its own {@link LayerSystem} ({@link #system}, {@link
 * #uncoupledErased(int, LayerSystem)}); decoding and single-node repair use one system for
 * all layers.
 */
final class LayeredDecoding {
  /** An operand of the plan being built: kind as in {@link CodingPlan}, id, layer. */
  record Ref(int kind, int id, int layer) {}

  /** One output row of a layer step: target = (combination of erased U rows) + extras. */
  record OutputRow(Ref target, byte[] combination, Map<Ref, Byte> extras) {}

  /**
   * The base-code system of a layer: U of the erased positions from U of exactly k' known
   * positions (the basis), U_E = D x U_B. Known positions outside the basis are not used.
   */
  static final class LayerSystem {
    private final int[] erasedPositions;
    private final int[] row;
    private final int[] basis;
    private final int[] column;
    private final GFMatrix decode;

    LayerSystem(ClayGrid grid, BaseCode base, boolean[] erased, int[] basis) {
      int np = grid.positions();
      this.row = new int[np];
      this.column = new int[np];
      Arrays.fill(row, -1);
      Arrays.fill(column, -1);
      List<Integer> e = new ArrayList<>();
      for (int p = 0; p < np; p++) {
        if (erased[p]) {
          row[p] = e.size();
          e.add(p);
        }
      }
      for (int i = 0; i < basis.length; i++) {
        if (erased[basis[i]] || column[basis[i]] >= 0) {
          throw new IllegalArgumentException("basis position " + basis[i] + " is erased or repeated");
        }
        column[basis[i]] = i;
      }
      this.erasedPositions = e.stream().mapToInt(Integer::intValue).toArray();
      this.basis = basis.clone();
      this.decode = base.decodeMatrix(this.basis, erasedPositions);
    }

    int[] erasedPositions() {
      return erasedPositions.clone();
    }

    /** Row of an erased position in U_E, -1 if it is not erased here. */
    int row(int position) {
      return row[position];
    }

    int rows() {
      return erasedPositions.length;
    }

    /** A combination vector selecting erased row r times c. */
    byte[] select(int r, byte c) {
      byte[] v = new byte[erasedPositions.length];
      v[r] = c;
      return v;
    }

    private byte[] columnOf(int basisPosition) {
      byte[] c = new byte[erasedPositions.length];
      for (int i = 0; i < c.length; i++) {
        c[i] = decode.get(i, column[basisPosition]);
      }
      return c;
    }
  }

  private final ClayGrid grid;
  private final BaseCode base;
  private final CodingPlan.Builder plan;
  private final boolean[] erased;
  private final LayerSystem system;
  private final Map<String, LayerSystem> systems = new java.util.HashMap<>();
  private final Ref[][] uncoupledAt;
  private final int[] slot;
  private final boolean[][] pairMaterialized;

  /**
   * One system for every layer.
   *
   * @param erased exactly m positions; virtual ones only with {@code virtualMayBeErased}
   *     (single-node repair treats a whole y-section as erased, virtual nodes included)
   */
  LayeredDecoding(ClayGrid grid, BaseCode base, CodingPlan.Builder plan, boolean[] erased,
                  boolean virtualMayBeErased) {
    this(grid, base, plan, erased, virtualMayBeErased, true);
  }

  /**
   * @param erased positions whose U comes from decoding only (with per-layer systems: the
   *     positions never read, erased in every layer); U of one is known where a layer decodes it
   * @param oneSystem whether every layer decodes {@code erased} from all other positions
   *     (exactly m erased); otherwise each layer names its system ({@link #system})
   */
  LayeredDecoding(ClayGrid grid, BaseCode base, CodingPlan.Builder plan, boolean[] erased,
                  boolean virtualMayBeErased, boolean oneSystem) {
    this.grid = grid;
    this.base = base;
    this.plan = plan;
    this.erased = erased.clone();
    int np = grid.positions();
    List<Integer> k = new ArrayList<>();
    for (int p = 0; p < np; p++) {
      if (erased[p] && grid.isVirtual(p) && !virtualMayBeErased) {
        throw new IllegalArgumentException("virtual nodes are known zeros and never erased");
      }
      if (!erased[p]) {
        k.add(p);
      }
    }
    this.system = oneSystem
        ? new LayerSystem(grid, base, erased, k.stream().mapToInt(Integer::intValue).toArray())
        : null;
    this.uncoupledAt = new Ref[np][];
    this.slot = new int[np];
    Arrays.fill(slot, -1);
    this.pairMaterialized = new boolean[np][np];
  }

  /**
   * The system of a layer decoding the positions {@code erasedInLayer} (a superset of the
   * positions never read; virtual ones allowed) from the k' positions {@code basis}. Built
   * once per distinct system.
   */
  LayerSystem system(boolean[] erasedInLayer, int[] basis) {
    for (int p = 0; p < erased.length; p++) {
      if (erased[p] && !erasedInLayer[p]) {
        throw new IllegalArgumentException("position " + p + " is never read but not erased in a layer");
      }
    }
    StringBuilder key = new StringBuilder();
    for (boolean b : erasedInLayer) {
      key.append(b ? '1' : '0');
    }
    key.append(Arrays.toString(basis));
    return systems.computeIfAbsent(key.toString(), x -> new LayerSystem(grid, base, erasedInLayer, basis));
  }

  /** The erased positions of the common system. */
  int[] erasedPositions() {
    return common().erasedPositions();
  }

  /** Whether a position's U comes from decoding only (its stored bytes are not decoded from). */
  boolean isErased(int position) {
    return erased[position];
  }

  /** Row of an erased position in U_E (common system). */
  int row(int position) {
    return common().row(position);
  }

  int rows() {
    return common().rows();
  }

  private LayerSystem common() {
    if (system == null) {
      throw new IllegalStateException("this decoding names a system per layer");
    }
    return system;
  }

  /** The scratch slot holding U of a position, allocated on first use. */
  int slot(int position) {
    if (slot[position] < 0) {
      slot[position] = plan.newSlot();
    }
    return slot[position];
  }

  /** Where U(position, layer) of an erased position is stored once computed (or null). */
  Ref uncoupledAt(int position, int layer) {
    return uncoupledAt[position] == null ? null : uncoupledAt[position][layer];
  }

  void recordUncoupled(int position, int layer, Ref where) {
    if (uncoupledAt[position] == null) {
      uncoupledAt[position] = new Ref[grid.alpha()];
    }
    uncoupledAt[position][layer] = where;
  }

  private Ref unit(int position, int layer) {
    return new Ref(CodingPlan.UNIT, grid.unitAt(position), layer);
  }

  /**
   * Pairwise reverse transform, up front, of every pair of known units (a, b) of one
   * y-section, over the layers of {@code layerSet} where they pair: U(a) and U(b) go to
   * scratch in one 2x2 call per run of consecutive layers. Pairs whose runs are shorter
   * than {@code minRun} are left to the per-layer steps (cheaper than tiny calls).
   */
  void materializeKnownPairs(boolean[] layerSet, int minRun) {
    materializeKnownPairs(layerSet, minRun, (position, layer) -> true);
  }

  /** Whether a layer's system reads U of a known position. */
  interface BasisMembership {
    boolean inBasis(int position, int layer);
  }

  /**
   * As {@link #materializeKnownPairs(boolean[], int)}, but only for pairs whose two U are
   * used wherever they pair (both positions in the basis of their layers): a pair transform
   * must not read a sub-chunk the plan does not otherwise need.
   */
  void materializeKnownPairs(boolean[] layerSet, int minRun, BasisMembership used) {
    int q = grid.q();
    for (int y = 0; y < grid.t(); y++) {
      for (int xa = 0; xa < q; xa++) {
        for (int xb = xa + 1; xb < q; xb++) {
          int a = y * q + xa;
          int b = y * q + xb;
          if (!isKnownUnit(a) || !isKnownUnit(b)) {
            continue;
          }
          // Layers where a pairs with b: digit y = xb.
          List<Integer> layers = new ArrayList<>();
          for (int z = 0; z < grid.alpha(); z++) {
            if (layerSet[z] && grid.digit(z, y) == xb) {
              layers.add(z);
            }
          }
          List<int[]> runs = ClayGrid.runs(layers.stream().mapToInt(Integer::intValue).toArray());
          if (runs.isEmpty() || runs.stream().anyMatch(r -> r[1] < minRun)
              || layers.stream().anyMatch(z -> !used.inBasis(a, z) || !used.inBasis(b, grid.companionLayer(a, z)))) {
            continue;
          }
          GFMatrix prt = PairwiseTransform.uncoupledFromCoupled();
          for (int[] r : runs) {
            int za = r[0];
            int zb = grid.companionLayer(a, za);
            plan.add(CodingPlan.Phase.PRELUDE, prt,
                new int[] {CodingPlan.UNIT, CodingPlan.UNIT},
                new int[] {grid.unitAt(a), grid.unitAt(b)},
                new int[] {za, zb},
                new int[] {CodingPlan.SCRATCH, CodingPlan.SCRATCH},
                new int[] {slot(a), slot(b)},
                new int[] {za, zb},
                r[1]);
          }
          pairMaterialized[a][b] = true;
          pairMaterialized[b][a] = true;
        }
      }
    }
  }

  private boolean isKnownUnit(int position) {
    return !erased[position] && !grid.isVirtual(position);
  }

  /** The given layers sorted by intersection score with the erased positions (stable). */
  int[] orderByIntersectionScore(int[] layers) {
    Integer[] boxed = Arrays.stream(layers).boxed().toArray(Integer[]::new);
    Arrays.sort(boxed, Comparator.comparingInt(z -> grid.intersectionScore(z, erased)));
    return Arrays.stream(boxed).mapToInt(Integer::intValue).toArray();
  }

  /**
   * U of every erased position in layer z, as a sum over stored operands: operand -> column
   * of coefficients, one per erased row. Each known position j contributes
   * D[., j] x U(j, z), with U(j, z) written in stored bytes by the pairwise reverse
   * transform (C of virtual nodes is zero and never read).
   */
  Map<Ref, byte[]> uncoupledErased(int z) {
    return uncoupledErased(z, common());
  }

  /**
   * The same for a layer with its own system: the sum runs over the system's basis, and a
   * basis position whose companion is never read uses the companion's U from an earlier
   * layer.
   */
  Map<Ref, byte[]> uncoupledErased(int z, LayerSystem sys) {
    Map<Ref, byte[]> terms = new LinkedHashMap<>();
    for (int j : sys.basis) {
      byte[] col = sys.columnOf(j);
      boolean virtual = grid.isVirtual(j);
      if (grid.isUnpaired(j, z)) {
        if (!virtual) {
          add(terms, unit(j, z), col, (byte) 1);
        }
        continue;
      }
      int js = grid.companionPosition(j, z);
      int zs = grid.companionLayer(j, z);
      if (erased[js]) {
        // U(j) = (1 + g^2) C(j) + g U(j*), U(j*) from an earlier layer.
        Ref companionU = uncoupledAt(js, zs);
        if (companionU == null) {
          throw new IllegalStateException("layer " + z + " needs U of position " + js + " in layer " + zs
              + " before it is decoded");
        }
        if (!virtual) {
          add(terms, unit(j, z), col, PairwiseTransform.ownWhenCompanionUncoupled());
        }
        add(terms, companionU, col, PairwiseTransform.companionUncoupled());
      } else if (grid.isVirtual(js)) {
        if (!virtual) {
          add(terms, unit(j, z), col, (byte) 1); // C(j*) = 0: U(j) = C(j)
        }
      } else if (virtual) {
        add(terms, unit(js, zs), col, PairwiseTransform.companionCoupled()); // U(j) = g C(j*)
      } else if (pairMaterialized[j][js]) {
        add(terms, new Ref(CodingPlan.SCRATCH, slot(j), z), col, (byte) 1);
      } else {
        add(terms, unit(j, z), col, (byte) 1);
        add(terms, unit(js, zs), col, PairwiseTransform.companionCoupled());
      }
    }
    return terms;
  }

  private static void add(Map<Ref, byte[]> terms, Ref ref, byte[] col, byte scalar) {
    byte[] v = terms.computeIfAbsent(ref, r -> new byte[col.length]);
    for (int i = 0; i < col.length; i++) {
      v[i] ^= GF256.mul(col[i], scalar);
    }
  }

  /** A combination vector selecting erased row r times c (common system). */
  byte[] select(int r, byte c) {
    return common().select(r, c);
  }

  /**
   * One region call for layer z: every output row is a combination of the erased U rows
   * (expressed through {@code terms}) plus its extra operands.
   */
  void addLayerStep(Map<Ref, byte[]> terms, List<OutputRow> outputs) {
    if (outputs.isEmpty()) {
      return;
    }
    Map<Ref, byte[]> cols = new LinkedHashMap<>();
    int no = outputs.size();
    for (Map.Entry<Ref, byte[]> t : terms.entrySet()) {
      byte[] c = new byte[no];
      for (int o = 0; o < no; o++) {
        byte[] comb = outputs.get(o).combination();
        int acc = 0;
        for (int i = 0; i < comb.length; i++) {
          acc ^= GF256.mul(comb[i], t.getValue()[i]);
        }
        c[o] = (byte) acc;
      }
      cols.put(t.getKey(), c);
    }
    for (int o = 0; o < no; o++) {
      for (Map.Entry<Ref, Byte> x : outputs.get(o).extras().entrySet()) {
        byte[] c = cols.computeIfAbsent(x.getKey(), r -> new byte[no]);
        c[o] ^= x.getValue();
      }
    }
    cols.values().removeIf(c -> {
      for (byte b : c) {
        if (b != 0) {
          return false;
        }
      }
      return true;
    });
    int ni = cols.size();
    if (ni == 0) {
      throw new IllegalStateException("a layer step without inputs");
    }
    byte[] m = new byte[no * ni];
    int[] inKind = new int[ni];
    int[] inId = new int[ni];
    int[] inLayer = new int[ni];
    int j = 0;
    for (Map.Entry<Ref, byte[]> c : cols.entrySet()) {
      inKind[j] = c.getKey().kind();
      inId[j] = c.getKey().id();
      inLayer[j] = c.getKey().layer();
      for (int o = 0; o < no; o++) {
        m[o * ni + j] = c.getValue()[o];
      }
      j++;
    }
    int[] outKind = new int[no];
    int[] outId = new int[no];
    int[] outLayer = new int[no];
    for (int o = 0; o < no; o++) {
      Ref t = outputs.get(o).target();
      outKind[o] = t.kind();
      outId[o] = t.id();
      outLayer[o] = t.layer();
    }
    plan.add(CodingPlan.Phase.LAYER, new GFMatrix(no, ni, m), inKind, inId, inLayer, outKind, outId, outLayer, 1);
  }

  /** Adds a final region call over a run of layers with explicit operands. */
  void addFinalStep(GFMatrix m, Ref[] in, Ref[] out, int run) {
    int[] ik = new int[in.length];
    int[] ii = new int[in.length];
    int[] il = new int[in.length];
    for (int j = 0; j < in.length; j++) {
      ik[j] = in[j].kind();
      ii[j] = in[j].id();
      il[j] = in[j].layer();
    }
    int[] ok = new int[out.length];
    int[] oi = new int[out.length];
    int[] ol = new int[out.length];
    for (int r = 0; r < out.length; r++) {
      ok[r] = out[r].kind();
      oi[r] = out[r].id();
      ol[r] = out[r].layer();
    }
    plan.add(CodingPlan.Phase.FINAL, m, ik, ii, il, ok, oi, ol, run);
  }
}
