package io.ecrepair.codes.clay;

import io.ecrepair.codes.UndecodableException;
import io.ecrepair.codes.clay.LayeredDecoding.OutputRow;
import io.ecrepair.codes.clay.LayeredDecoding.Ref;
import io.ecrepair.gf.GFMatrix;
import io.ecrepair.gf.RegionCoder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Compiles the three Clay procedures into {@link CodingPlan}s:
 * <ul>
 *   <li>{@link #decodePlan}: layered decoding of m erased positions, then the pairwise forward
 *       transform of the erased nodes' U into their stored bytes C (encoding is this with the
 *       parity units erased);
 *   <li>{@link #repairPlan}: bandwidth-optimal repair of one node from d helpers, working only
 *       in the beta repair layers;
 *   <li>{@link #multiRepairPlan}: repair of several nodes (paper, Appendix A, Algorithm 1) as
 *       worked out by a {@link RepairPattern}, working only in its beta_e repair layers.
 * </ul>
 */
final class ClayPlanner {
  /** Pairs are transformed up front when they pair in runs of at least this many layers. */
  static final int MIN_MATERIALIZED_RUN = 2;

  private final ClayGrid grid;
  private final BaseCode base;
  private final RegionCoder coder;

  ClayPlanner(ClayGrid grid, BaseCode base, RegionCoder coder) {
    this.grid = grid;
    this.base = base;
    this.coder = coder;
  }

  /**
   * Decodes the erased positions (exactly m of them, no virtual ones) and writes C of the
   * units in {@code wantedUnits} (each erased) to outputs 0..wanted-1. The plan reads every
   * sub-chunk of the k units that are not erased.
   */
  CodingPlan decodePlan(boolean[] erasedPositions, int[] wantedUnits) {
    CodingPlan.Builder plan = new CodingPlan.Builder(coder);
    LayeredDecoding ld = new LayeredDecoding(grid, base, plan, erasedPositions, false);
    int[] out = new int[grid.positions()];
    Arrays.fill(out, -1);
    for (int i = 0; i < wantedUnits.length; i++) {
      int p = grid.positionOfUnit(wantedUnits[i]);
      if (!erasedPositions[p]) {
        throw new IllegalArgumentException("wanted unit " + wantedUnits[i] + " is not erased");
      }
      out[p] = i;
    }
    boolean[] all = new boolean[grid.alpha()];
    Arrays.fill(all, true);
    ld.materializeKnownPairs(all, MIN_MATERIALIZED_RUN);

    int[] erased = ld.erasedPositions();
    for (int z : ld.orderByIntersectionScore(allLayers())) {
      Map<Ref, byte[]> terms = ld.uncoupledErased(z);
      List<OutputRow> rows = new ArrayList<>();
      for (int e : erased) {
        Ref target;
        if (grid.isUnpaired(e, z)) {
          if (out[e] < 0) {
            continue; // U = C of an unwanted node: never needed again
          }
          target = new Ref(CodingPlan.OUT, out[e], z);
        } else if (out[e] >= 0 && grid.isVirtual(grid.companionPosition(e, z))) {
          target = new Ref(CodingPlan.OUT, out[e], z); // companion is zero: C = U
        } else {
          target = new Ref(CodingPlan.SCRATCH, ld.slot(e), z);
        }
        ld.recordUncoupled(e, z, target);
        rows.add(new OutputRow(target, ld.select(ld.row(e), (byte) 1), Map.of()));
      }
      ld.addLayerStep(terms, rows);
    }
    coupleErasedNodes(ld, out);
    return plan.build();
  }

  /**
   * The pairwise forward transform for every wanted erased node in the layers where it is
   * paired (its unpaired layers, and those paired with a virtual node, were written
   * directly): C from U and the companion's U (erased companion) or C (known companion).
   */
  private void coupleErasedNodes(LayeredDecoding ld, int[] out) {
    int q = grid.q();
    for (int e : ld.erasedPositions()) {
      if (out[e] < 0) {
        continue;
      }
      int y = grid.y(e);
      int xe = grid.x(e);
      for (int c = 0; c < q; c++) {
        int es = y * q + c;
        if (c == xe || grid.isVirtual(es)) {
          continue;
        }
        boolean bothWanted = ld.isErased(es) && out[es] >= 0;
        if (bothWanted && c < xe) {
          continue; // done with the partner
        }
        for (int[] run : ClayGrid.runs(layersWithDigit(y, c))) {
          int z = run[0];
          int zs = grid.companionLayer(e, z);
          Ref u = ld.uncoupledAt(e, z);
          if (!ld.isErased(es)) {
            ld.addFinalStep(new GFMatrix(1, 2, new byte[] {1, PairwiseTransform.coupledFromUncoupledAndCompanion()}),
                new Ref[] {u, new Ref(CodingPlan.UNIT, grid.unitAt(es), zs)},
                new Ref[] {new Ref(CodingPlan.OUT, out[e], z)}, run[1]);
          } else if (bothWanted) {
            ld.addFinalStep(PairwiseTransform.coupledFromUncoupled(),
                new Ref[] {u, ld.uncoupledAt(es, zs)},
                new Ref[] {new Ref(CodingPlan.OUT, out[e], z), new Ref(CodingPlan.OUT, out[es], zs)}, run[1]);
          } else {
            ld.addFinalStep(new GFMatrix(1, 2, new byte[] {PairwiseTransform.coupledOwnFromUncoupledPair(),
                    PairwiseTransform.coupledCompanionFromUncoupledPair()}),
                new Ref[] {u, ld.uncoupledAt(es, zs)},
                new Ref[] {new Ref(CodingPlan.OUT, out[e], z)}, run[1]);
          }
        }
      }
    }
  }

  /**
   * Bandwidth-optimal repair of the unit at {@code lostPosition} from the helper units
   * {@code helperPositions}: all real nodes of its y-section and d minus those from elsewhere.
   * Works only in the repair layers R = {z : z_y0 = x0}: there, the U of the helpers outside
   * the y-section (and of virtual nodes) are known, the y-section and the aloof nodes (real,
   * not helpers) are erased for the base code, and the lost node's bytes follow:
   * C(lost, z) = U(lost, z) in R (unpaired), and for the other layers z' = z with digit y0 =
   * x, C(lost, z') = (U(p, z) + C(p, z)) / gamma with p = (x, y0) its companion. One output
   * writes all alpha sub-chunks of the lost unit to output 0.
   */
  CodingPlan repairPlan(int lostPosition, boolean[] helperPositions) {
    int y0 = grid.y(lostPosition);
    int x0 = grid.x(lostPosition);
    int q = grid.q();
    // Erased for the base code: the whole y-section of the lost node (its virtual nodes too:
    // in the repair layers their U is unknown) and the aloof nodes (real, not helpers).
    boolean[] erased = new boolean[grid.positions()];
    int count = 0;
    for (int p = 0; p < erased.length; p++) {
      boolean helper = helperPositions[p];
      if (grid.y(p) == y0) {
        if (!grid.isVirtual(p) && p != lostPosition && !helper) {
          throw new UndecodableException("repair of unit " + grid.unitAt(lostPosition)
              + " needs unit " + grid.unitAt(p) + " of its y-section as a helper");
        }
        erased[p] = true;
      } else {
        erased[p] = !grid.isVirtual(p) && !helper;
      }
      count += erased[p] ? 1 : 0;
    }
    if (count != grid.params().m()) {
      throw new UndecodableException("repair of unit " + grid.unitAt(lostPosition) + " needs exactly d = "
          + grid.params().d() + " helpers");
    }
    CodingPlan.Builder plan = new CodingPlan.Builder(coder);
    LayeredDecoding ld = new LayeredDecoding(grid, base, plan, erased, true);
    int[] repairLayers = grid.repairLayers(lostPosition);
    boolean[] inR = new boolean[grid.alpha()];
    for (int z : repairLayers) {
      inR[z] = true;
    }
    ld.materializeKnownPairs(inR, MIN_MATERIALIZED_RUN);
    byte invGamma = PairwiseTransform.companionFromUncoupledAndCoupled();
    for (int z : ld.orderByIntersectionScore(repairLayers)) {
      Map<Ref, byte[]> terms = ld.uncoupledErased(z);
      List<OutputRow> rows = new ArrayList<>();
      for (int x = 0; x < q; x++) {
        int p = y0 * q + x;
        if (x == x0) {
          rows.add(new OutputRow(new Ref(CodingPlan.OUT, 0, z), ld.select(ld.row(p), (byte) 1), Map.of()));
        } else {
          Map<Ref, Byte> extra = grid.isVirtual(p) ? Map.of()
              : Map.of(new Ref(CodingPlan.UNIT, grid.unitAt(p), z), invGamma);
          rows.add(new OutputRow(new Ref(CodingPlan.OUT, 0, grid.withDigit(z, y0, x)),
              ld.select(ld.row(p), invGamma), extra));
        }
      }
      for (int a : ld.erasedPositions()) {
        if (grid.y(a) != y0 && !grid.isUnpaired(a, z)) {
          Ref target = new Ref(CodingPlan.SCRATCH, ld.slot(a), z);
          ld.recordUncoupled(a, z, target);
          rows.add(new OutputRow(target, ld.select(ld.row(a), (byte) 1), Map.of()));
        }
      }
      ld.addLayerStep(terms, rows);
    }
    return plan.build();
  }

  /**
   * Repair of the lost positions of {@code rp} from its helpers (Algorithm 1). Layers of R in
   * order of increasing IS(E u J, z); in each, one region call gives, from the layer's
   * basis, U of its erased positions E'(z) and straight away what the lost nodes' stored
   * bytes need from this layer:
   * <ul>
   *   <li>C(e, z) of a lost e unpaired in z (C = U), or paired with a helper e*
   *       (C = U + gamma C(e*)) or with a virtual node (C = U);
   *   <li>when e is the only hole-dot of z, C(e, z') of its layers z' outside R:
   *       (U(p, z) + C(p, z)) / gamma, p = (z'_y, y) in G (C(p) = 0 for a virtual p);
   *   <li>U of unread positions into scratch where a later layer or the final transform
   *       reads it.
   * </ul>
   * Then the pairwise forward transform for pairs of lost nodes. Lost position
   * {@code rp.lostPositions()[i]} is output i; all alpha sub-chunks of each are written.
   */
  CodingPlan multiRepairPlan(RepairPattern rp) {
    int q = grid.q();
    int[] lost = rp.lostPositions();
    int[] out = new int[grid.positions()];
    Arrays.fill(out, -1);
    for (int i = 0; i < lost.length; i++) {
      out[lost[i]] = i;
    }
    CodingPlan.Builder plan = new CodingPlan.Builder(coder);
    LayeredDecoding ld = new LayeredDecoding(grid, base, plan, rp.unread(), false, false);
    boolean[] inR = new boolean[grid.alpha()];
    for (int z : rp.repairLayers()) {
      inR[z] = true;
    }
    ld.materializeKnownPairs(inR, MIN_MATERIALIZED_RUN, rp::inBasis);
    byte gamma = PairwiseTransform.coupledFromUncoupledAndCompanion();
    byte invGamma = PairwiseTransform.companionFromUncoupledAndCoupled();
    for (int z : rp.order()) {
      LayeredDecoding.LayerSystem sys = ld.system(rp.erasedIn(z), rp.basis(z));
      Map<Ref, byte[]> terms = ld.uncoupledErased(z, sys);
      List<OutputRow> rows = new ArrayList<>();
      for (int e : lost) {
        byte[] u = sys.select(sys.row(e), (byte) 1);
        Ref c = new Ref(CodingPlan.OUT, out[e], z);
        if (grid.isUnpaired(e, z)) {
          rows.add(new OutputRow(c, u, Map.of()));
          continue;
        }
        int es = grid.companionPosition(e, z);
        if (rp.isHelper(es)) {
          rows.add(new OutputRow(c, u, Map.of(new Ref(CodingPlan.UNIT, grid.unitAt(es), grid.companionLayer(e, z)),
              gamma)));
        } else if (grid.isVirtual(es)) {
          rows.add(new OutputRow(c, u, Map.of()));
        } // a lost e*: the final pair transform
      }
      int hole = rp.soleHoleDot(z);
      if (hole >= 0) {
        int y = grid.y(hole);
        for (int x = 0; x < q; x++) {
          int p = y * q + x;
          int zOut = grid.withDigit(z, y, x);
          if (p == hole || inR[zOut]) {
            continue;
          }
          Map<Ref, Byte> extra = grid.isVirtual(p) ? Map.of() : Map.of(new Ref(CodingPlan.UNIT, grid.unitAt(p), z), invGamma);
          rows.add(new OutputRow(new Ref(CodingPlan.OUT, out[hole], zOut), sys.select(sys.row(p), invGamma), extra));
        }
      }
      for (int a = 0; a < grid.positions(); a++) {
        if (rp.uncoupledNeededLater(a, z)) {
          Ref target = new Ref(CodingPlan.SCRATCH, ld.slot(a), z);
          ld.recordUncoupled(a, z, target);
          rows.add(new OutputRow(target, sys.select(sys.row(a), (byte) 1), Map.of()));
        }
      }
      ld.addLayerStep(terms, rows);
    }
    // Pairs of lost nodes: C from both U (pairwise forward transform), once per pair.
    for (int e : lost) {
      int y = grid.y(e);
      for (int c = grid.x(e) + 1; c < q; c++) {
        int es = y * q + c;
        if (!rp.isLost(es)) {
          continue;
        }
        for (int[] run : ClayGrid.runs(layersWithDigit(y, c))) {
          int z = run[0];
          int zs = grid.companionLayer(e, z);
          ld.addFinalStep(PairwiseTransform.coupledFromUncoupled(),
              new Ref[] {ld.uncoupledAt(e, z), ld.uncoupledAt(es, zs)},
              new Ref[] {new Ref(CodingPlan.OUT, out[e], z), new Ref(CodingPlan.OUT, out[es], zs)}, run[1]);
        }
      }
    }
    return plan.build();
  }

  private int[] allLayers() {
    int[] z = new int[grid.alpha()];
    for (int i = 0; i < z.length; i++) {
      z[i] = i;
    }
    return z;
  }

  private int[] layersWithDigit(int y, int value) {
    int[] z = new int[grid.alpha() / grid.q()];
    int n = 0;
    for (int l = 0; l < grid.alpha(); l++) {
      if (grid.digit(l, y) == value) {
        z[n++] = l;
      }
    }
    return z;
  }
}
