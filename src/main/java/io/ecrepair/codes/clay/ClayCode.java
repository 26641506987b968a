package io.ecrepair.codes.clay;

import io.ecrepair.codes.CellLayout;
import io.ecrepair.codes.RepairableCode;
import io.ecrepair.codes.UndecodableException;
import io.ecrepair.ecdag.Ecdag;
import io.ecrepair.gf.CodingTables;
import io.ecrepair.gf.GFMatrix;
import io.ecrepair.gf.RegionCoder;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;

/**
 * Clay (coupled-layer) codes, Vajha et al., FAST'18: an MSR code for any k <= d <= n-1 built
 * from alpha = q^t layers of a scalar [n + nu, k + nu] MDS code (q = d - k + 1,
 * t = ceil(n / q), nu = q*t - n virtual all-zero nodes), coupled pairwise across layers.
 *
 * <p><b>Layout</b> (docs/architecture.md#cell-layout, {@link CellLayout}): a unit of L bytes holds alpha
 * sub-chunks of s = floor(L / alpha) bytes, sub-chunk j = layer j, then L - alpha*s tail bytes
 * coded byte-wise by the base code (virtual nodes zero). Unit i sits at grid position nu + i,
 * the virtual nodes at positions 0..nu-1 (y-section 0, with the first data units); position p
 * is node (x, y) = (p mod q, p div q) and digit z_y of a layer has weight q^y. See
 * {@link ClayGrid} for why. The coupling coefficient gamma is 2 ({@link PairwiseTransform}).
 *
 * <p><b>Encoding and decoding</b> are layered decoding (paper, section 3) with m erasures:
 * encode erases the parity units; decode erases the missing units, topped up to m with
 * available units that are then simply not read (parity ones first), so any k available
 * units are read in full. A decode that must rebuild a single unit (a degraded read) is a
 * repair when the repair helpers are there: less to read and about half the arithmetic.
 *
 * <p><b>Repair.</b> A single lost unit is repaired bandwidth-optimally from d helpers: every
 * real node of its y-section plus the first other available units in index order; each
 * helper gives beta = alpha/q sub-chunks, the layers z with z_y = x of the lost node (see
 * {@link #repairSubchunks}), in runs of q^y contiguous sub-chunks; the tail (fewer than alpha
 * bytes per cell) comes byte-wise from k helpers through the base code. If the available
 * units lack a node of the y-section or number fewer than d, repair falls back to decoding.
 *
 * <p><b>Repair of several lost units</b> (paper, Appendix A, Algorithm 1; {@link
 * RepairPattern}) reads less than a full decode for these patterns of f >= 2 lost units,
 * with e_y of them in y-section y:
 * <ul>
 *   <li>d = n-1: all f lost units in one y-section (so f <= q-1; f <= q - nu in section 0,
 *       which holds the nu virtual nodes), and all n - f other units available; they are
 *       the helpers (d_e = n - f);
 *   <li>d &lt; n-1: f <= n - d, every other real unit of a y-section holding a lost unit
 *       available, and at least d available units in all; the helpers are those y-section
 *       mates, then the other available units in index order, d_e = d of them; the rest
 *       are aloof (never read);
 *   <li>and in both cases (Remark 1) only when the repair reads fewer sub-chunks than a
 *       decode, k * alpha (so never with a whole y-section lost).
 * </ul>
 * Each helper sends at most beta_e = alpha - prod_y (q - e_y) sub-chunks, the layers with a
 * hole-dot ({@link #repairSubchunks(int[])}). With d = n-1 the repair reads exactly
 * d_e * beta_e ({@link #repairSubchunkCount}). With d &lt; n-1 it may read fewer: a layer
 * that knows more than k' positions decodes from k' of them and leaves out those whose
 * sub-chunks are not otherwise read; Remark 1 is applied to what is actually read, so
 * some patterns the paper would decode (d_e * beta_e >= k * alpha) are repaired, e.g.
 * Clay(8,4,6) with 2 lost units in one y-section: 96 sub-chunks, not 6 x 18 = 108 = k * alpha
 * (and 84 or 86 instead of 6 x 15 = 90 with the 2 in two y-sections). Examples for
 * Clay(14,10,13): 2 lost units of one section read 12 x 128 sub-chunks, 3 read 11 x 192,
 * against 10 x 256 for a decode. Virtual nodes count as helpers for free: they are known
 * zeros, never read and never counted in d_e; e_y counts lost real units; only the real
 * units of a lost unit's y-section must be available. Every other pattern of up to m lost
 * units is decoded. The tail bytes come from k of the helpers.
 *
 * <p><b>Performance.</b> Each procedure is compiled once per erasure pattern into a
 * {@link CodingPlan}: few region calls over runs of contiguous sub-chunks (pair transforms
 * over runs of q^y layers, one call per layer, or per run of layers sharing a matrix, for the
 * base-code step), with coding tables prepared once. Plans are cached; the class is
 * thread-safe. Scratch space for uncoupled values (at most about n units) is per thread and
 * reused.
 */
public final class ClayCode implements RepairableCode {
  private static final int MAX_CACHED_PLANS = 256;

  private final ClayParameters params;
  private final ClayGrid grid;
  private final BaseCode base;
  private final RegionCoder coder;
  private final ClayPlanner planner;
  private final Map<String, CodingPlan> plans = new ConcurrentHashMap<>();
  private final Map<String, CodingTables> tailTables = new ConcurrentHashMap<>();
  private final Map<String, RepairPattern> patterns = new ConcurrentHashMap<>();
  private volatile CodingPlan encodePlan;

  public ClayCode(int n, int k, int d, RegionCoder coder) {
    this.params = ClayParameters.of(n, k, d);
    this.grid = new ClayGrid(params);
    this.base = new BaseCode(params.baseLength(), params.baseDimension());
    this.coder = coder;
    this.planner = new ClayPlanner(grid, base, coder);
  }

  /** (q, t, nu, alpha, ...) of Clay(n, k, d) without building the code. */
  public static ClayParameters parameters(int n, int k, int d) {
    return ClayParameters.of(n, k, d);
  }

  public ClayParameters parameters() {
    return params;
  }

  public ClayGrid grid() {
    return grid;
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

  public int beta() {
    return params.beta();
  }

  public int d() {
    return params.d();
  }

  public int virtualNodes() {
    return params.virtualNodes();
  }

  /** The grid node of a unit. */
  public NodeCoordinate coordinate(int unit) {
    return grid.coordinate(grid.positionOfUnit(unit));
  }

  @Override
  public String name() {
    return "Clay(" + params.n() + "," + params.k() + "," + params.d() + ")";
  }

  @Override
  public int dataUnits() {
    return params.k();
  }

  @Override
  public int parityUnits() {
    return params.m();
  }

  @Override
  public int subPacketization() {
    return params.alpha();
  }

  // ------------------------------------------------------------------ encode

  @Override
  public void encode(ByteBuffer[] data, int[] dataOff, ByteBuffer[] parity, int[] parityOff, int len) {
    int k = params.k();
    int m = params.m();
    if (data.length != k || parity.length != m || dataOff.length < k || parityOff.length < m) {
      throw new IllegalArgumentException(name() + " encodes " + k + " data units into " + m + " parity units, got "
          + data.length + " and " + parity.length);
    }
    CellLayout layout = new CellLayout(params.alpha(), len);
    encodePlan().execute(coder, data, dataOff, parity, parityOff, layout.subchunkBytes());
    if (layout.tailBytes() > 0) {
      int[] sources = range(0, k);
      int[] wanted = range(k, k + m);
      codeTail(layout, sources, data, dataOff, wanted, parity, parityOff);
    }
  }

  private CodingPlan encodePlan() {
    CodingPlan p = encodePlan;
    if (p == null) {
      boolean[] erased = new boolean[grid.positions()];
      for (int u = params.k(); u < params.n(); u++) {
        erased[grid.positionOfUnit(u)] = true;
      }
      p = planner.decodePlan(erased, range(params.k(), params.n()));
      encodePlan = p;
    }
    return p;
  }

  // ------------------------------------------------------------------ decode

  @Override
  public void decode(ByteBuffer[] units, int[] unitOff, int[] wanted, ByteBuffer[] out, int[] outOff, int len) {
    int n = params.n();
    if (units.length != n || unitOff.length < n) {
      throw new IllegalArgumentException(name() + " takes " + n + " unit slots, got " + units.length);
    }
    if (wanted.length != out.length || outOff.length < out.length) {
      throw new IllegalArgumentException(wanted.length + " wanted units but " + out.length + " outputs");
    }
    boolean[] missing = new boolean[n];
    int missingCount = 0;
    for (int u = 0; u < n; u++) {
      if (units[u] == null) {
        missing[u] = true;
        missingCount++;
      }
    }
    if (missingCount > params.m()) {
      throw new UndecodableException(name() + " needs " + params.k() + " of its " + n + " units, only "
          + (n - missingCount) + " available");
    }
    List<Integer> toBuild = new ArrayList<>();
    List<Integer> toBuildIndex = new ArrayList<>();
    for (int i = 0; i < wanted.length; i++) {
      int w = wanted[i];
      if (w < 0 || w >= n) {
        throw new IllegalArgumentException("unit " + w + " is outside 0.." + (n - 1));
      }
      if (units[w] != null) {
        out[i].put(outOff[i], units[w], unitOff[w], len); // available: a copy
      } else {
        toBuild.add(w);
        toBuildIndex.add(i);
      }
    }
    if (toBuild.isEmpty()) {
      return;
    }
    int[] build = toBuild.stream().mapToInt(Integer::intValue).toArray();
    ByteBuffer[] o = new ByteBuffer[build.length];
    int[] oOff = new int[build.length];
    for (int i = 0; i < build.length; i++) {
      o[i] = out[toBuildIndex.get(i)];
      oOff[i] = outOff[toBuildIndex.get(i)];
    }
    if (build.length == 1) {
      int[] helpers = repairHelpers(build[0], availableUnits(units));
      if (helpers != null) {
        repairFrom(build[0], helpers, units, unitOff, o[0], oOff[0], len); // reads d/q of a unit, not k
        return;
      }
    } else if (Arrays.stream(build).distinct().count() == build.length) {
      int[] helpers = repairPath(build, availableUnits(units));
      if (helpers != null) {
        multiRepairFrom(build, helpers, units, unitOff, o, oOff, len); // fewer than k*alpha sub-chunks
        return;
      }
    }
    boolean[] erased = padErasures(missing);
    CellLayout layout = new CellLayout(params.alpha(), len);
    decodePlan(erased, build).execute(coder, units, unitOff, o, oOff, layout.subchunkBytes());
    if (layout.tailBytes() > 0) {
      codeTail(layout, readUnits(erased), units, unitOff, build, o, oOff);
    }
  }

  /**
   * The m units treated as erased: the missing ones, topped up with available units (parity
   * first, highest index first), which are then not read.
   */
  private boolean[] padErasures(boolean[] missing) {
    boolean[] erased = missing.clone();
    int count = 0;
    for (boolean b : erased) {
      count += b ? 1 : 0;
    }
    for (int u = params.n() - 1; u >= 0 && count < params.m(); u--) {
      if (!erased[u]) {
        erased[u] = true;
        count++;
      }
    }
    return erased;
  }

  /** The k units a plan over these erasures reads. */
  private int[] readUnits(boolean[] erasedUnits) {
    int[] r = new int[params.k()];
    int i = 0;
    for (int u = 0; u < params.n(); u++) {
      if (!erasedUnits[u]) {
        r[i++] = u;
      }
    }
    return r;
  }

  private CodingPlan decodePlan(boolean[] erasedUnits, int[] wantedUnits) {
    String key = "d" + mask(erasedUnits) + ":" + Arrays.toString(wantedUnits);
    return cached(key, () -> {
      boolean[] erasedPositions = new boolean[grid.positions()];
      for (int u = 0; u < params.n(); u++) {
        erasedPositions[grid.positionOfUnit(u)] = erasedUnits[u];
      }
      return planner.decodePlan(erasedPositions, wantedUnits);
    });
  }

  // ------------------------------------------------------------------ repair

  /** Sub-chunk indices every helper sends to repair {@code lost}: beta of them, sorted. */
  public int[] repairSubchunks(int lost) {
    return grid.repairLayers(grid.positionOfUnit(lost));
  }

  /**
   * The d helpers a bandwidth-optimal repair of {@code lost} uses, chosen from
   * {@code available}: all real units of its y-section, then the other available units in
   * index order. Null when {@code available} does not allow it.
   */
  public int[] repairHelpers(int lost, int[] available) {
    int lostPos = grid.positionOfUnit(lost);
    boolean[] avail = new boolean[params.n()];
    for (int a : available) {
      checkUnit(a);
      avail[a] = a != lost;
    }
    List<Integer> helpers = new ArrayList<>();
    for (int p : grid.section(grid.y(lostPos))) {
      int u = grid.unitAt(p);
      if (u < 0 || u == lost) {
        continue;
      }
      if (!avail[u]) {
        return null;
      }
      helpers.add(u);
    }
    for (int u = 0; u < params.n() && helpers.size() < params.d(); u++) {
      if (avail[u] && grid.y(grid.positionOfUnit(u)) != grid.y(lostPos)) {
        helpers.add(u);
      }
    }
    if (helpers.size() < params.d()) {
      return null;
    }
    return helpers.stream().mapToInt(Integer::intValue).sorted().toArray();
  }

  /**
   * Rebuilds unit {@code lost} into {@code out}. With the helpers of {@link #repairHelpers}
   * among the non-null units it reads only {@link #repairSubchunks} of each (plus the tail
   * bytes of k of them); otherwise it decodes from k units.
   */
  public void repair(int lost, ByteBuffer[] units, int[] unitOff, ByteBuffer out, int outOff, int len) {
    int n = params.n();
    if (units.length != n || unitOff.length < n) {
      throw new IllegalArgumentException(name() + " takes " + n + " unit slots, got " + units.length);
    }
    checkUnit(lost);
    ByteBuffer[] view = units.clone();
    view[lost] = null;
    int[] helpers = repairHelpers(lost, availableUnits(view));
    if (helpers == null) {
      decode(view, unitOff, new int[] {lost}, new ByteBuffer[] {out}, new int[] {outOff}, len);
      return;
    }
    repairFrom(lost, helpers, view, unitOff, out, outOff, len);
  }

  /** The bandwidth-optimal repair from the given helpers (see {@link #repairHelpers}). */
  private void repairFrom(int lost, int[] helpers, ByteBuffer[] units, int[] unitOff, ByteBuffer out, int outOff,
                          int len) {
    CellLayout layout = new CellLayout(params.alpha(), len);
    ByteBuffer[] o = {out};
    int[] oOff = {outOff};
    repairPlan(lost, helpers).execute(coder, units, unitOff, o, oOff, layout.subchunkBytes());
    if (layout.tailBytes() > 0) {
      codeTail(layout, Arrays.copyOf(helpers, params.k()), units, unitOff, new int[] {lost}, o, oOff);
    }
  }

  private int[] availableUnits(ByteBuffer[] units) {
    List<Integer> avail = new ArrayList<>();
    for (int u = 0; u < units.length; u++) {
      if (units[u] != null) {
        avail.add(u);
      }
    }
    return avail.stream().mapToInt(Integer::intValue).toArray();
  }

  private CodingPlan repairPlan(int lost, int[] helpers) {
    return cached("r" + lost + ":" + Arrays.toString(helpers), () -> {
      boolean[] helperPositions = new boolean[grid.positions()];
      for (int h : helpers) {
        helperPositions[grid.positionOfUnit(h)] = true;
      }
      return planner.repairPlan(grid.positionOfUnit(lost), helperPositions);
    });
  }

  // ------------------------------------------------------------------ repair of several units

  /**
   * Sub-chunk indices a helper of a repair of the units in {@code lost} may send: the layers
   * with a hole-dot, IS(lost, z) > 0, sorted; there are beta_e = alpha - prod_y (q - e_y).
   * For one lost unit this is {@link #repairSubchunks(int)}.
   */
  public int[] repairSubchunks(int[] lost) {
    boolean[] lostPositions = new boolean[grid.positions()];
    for (int l : lost) {
      checkUnit(l);
      lostPositions[grid.positionOfUnit(l)] = true;
    }
    return grid.repairLayers(lostPositions);
  }

  /**
   * The helpers of a repair of the units in {@code lost} (paper, Appendix A) chosen from
   * {@code available} (lost units in it are ignored), sorted; null when the pattern is not a
   * repairable failure pattern there. One lost unit: {@link #repairHelpers(int, int[])}.
   * Several: with d = n-1, all lost units in one y-section, at most q-1 of them, and every
   * other unit available, all of them helpers (d_e = n - f); with d &lt; n-1, at most n - d
   * lost units, every real survivor of their y-sections available (all helpers), topped up
   * to d helpers with other available units in index order. Virtual nodes are helpers for
   * free: never read, not counted. Whether the repair then reads less than a decode is
   * {@link #repairableWithSavings}.
   */
  public int[] repairHelpers(int[] lost, int[] available) {
    if (lost.length == 1) {
      return repairHelpers(lost[0], available);
    }
    int n = params.n();
    boolean[] isLost = new boolean[n];
    for (int l : lost) {
      checkUnit(l);
      if (isLost[l]) {
        throw new IllegalArgumentException("unit " + l + " is lost twice");
      }
      isLost[l] = true;
    }
    if (lost.length == 0) {
      throw new IllegalArgumentException("nothing to repair");
    }
    boolean[] avail = new boolean[n];
    for (int a : available) {
      checkUnit(a);
      avail[a] = !isLost[a];
    }
    if (lost.length > params.m()) {
      return null;
    }
    boolean[] lostSection = new boolean[params.t()];
    int sections = 0;
    for (int l : lost) {
      int y = grid.y(grid.positionOfUnit(l));
      sections += lostSection[y] ? 0 : 1;
      lostSection[y] = true;
    }
    boolean[] helper = new boolean[n];
    int count = 0;
    for (int u = 0; u < n; u++) {
      if (!isLost[u] && lostSection[grid.y(grid.positionOfUnit(u))]) {
        if (!avail[u]) {
          return null; // a y-section mate of a lost unit must help
        }
        helper[u] = true;
        count++;
      }
    }
    if (params.d() == n - 1) {
      // (ii): up to q-1 failures within one y-section; every survivor helps.
      if (sections != 1 || lost.length > params.q() - 1) {
        return null;
      }
      for (int u = 0; u < n; u++) {
        if (!isLost[u] && !helper[u]) {
          if (!avail[u]) {
            return null;
          }
          helper[u] = true;
        }
      }
    } else {
      // (i): e <= n - d failures; d helpers, the y-section mates first.
      if (lost.length > n - params.d() || count > params.d()) {
        return null;
      }
      for (int u = 0; u < n && count < params.d(); u++) {
        if (avail[u] && !helper[u]) {
          helper[u] = true;
          count++;
        }
      }
      if (count < params.d()) {
        return null;
      }
    }
    return IntStream.range(0, n).filter(u -> helper[u]).toArray();
  }

  /**
   * Whether {@link #repairGraph} rebuilds {@code lost} from {@code available} reading fewer
   * sub-chunks than a decode (k * alpha): a repairable failure pattern ({@link
   * #repairHelpers(int[], int[])}) whose repair reads fewer (paper, Remark 1). One lost
   * unit: its helpers are available and d * beta &lt; k * alpha (true unless k = 1 or q = 1).
   */
  public boolean repairableWithSavings(int[] lost, int[] available) {
    checkPattern(lost, available);
    int[] helpers = repairHelpers(lost, available);
    return helpers != null && readsOf(lost, helpers) < (long) params.k() * params.alpha();
  }

  /**
   * Sub-chunks (of alpha per unit, tail aside) read by {@link #repairGraph} for this
   * pattern: the repair's when it is used, else k * alpha for a decode.
   *
   * @throws UndecodableException when fewer than k units are available
   */
  public long repairSubchunkCount(int[] lost, int[] available) {
    checkPattern(lost, available);
    int[] helpers = repairPath(lost, available);
    if (helpers != null) {
      return readsOf(lost, helpers);
    }
    decodeErasures(available); // throws when undecodable
    return (long) params.k() * params.alpha();
  }

  /**
   * The helpers of the repair {@link #repairGraph} and {@link #decode} use for these lost
   * units, or null to decode: one unit, whenever its helpers are available; several, when
   * the repair saves reads.
   */
  private int[] repairPath(int[] lost, int[] available) {
    if (lost.length == 1) {
      return repairHelpers(lost[0], available);
    }
    int[] helpers = repairHelpers(lost, available);
    if (helpers == null || readsOf(lost, helpers) >= (long) params.k() * params.alpha()) {
      return null;
    }
    return helpers;
  }

  /** Sub-chunks a repair of {@code lost} from {@code helpers} reads. */
  private long readsOf(int[] lost, int[] helpers) {
    if (lost.length == 1) {
      return (long) helpers.length * params.beta();
    }
    return pattern(lost, helpers).readCount();
  }

  private RepairPattern pattern(int[] lost, int[] helpers) {
    String key = Arrays.toString(lost) + ":" + Arrays.toString(helpers);
    RepairPattern rp = patterns.get(key);
    if (rp == null) {
      if (patterns.size() >= MAX_CACHED_PLANS) {
        patterns.clear();
      }
      int[] lostPositions = new int[lost.length];
      for (int i = 0; i < lost.length; i++) {
        lostPositions[i] = grid.positionOfUnit(lost[i]);
      }
      boolean[] helperPositions = new boolean[grid.positions()];
      for (int h : helpers) {
        helperPositions[grid.positionOfUnit(h)] = true;
      }
      rp = new RepairPattern(grid, lostPositions, helperPositions);
      patterns.put(key, rp);
    }
    return rp;
  }

  private CodingPlan multiRepairPlan(int[] lost, int[] helpers) {
    return cached("m" + Arrays.toString(lost) + ":" + Arrays.toString(helpers),
        () -> planner.multiRepairPlan(pattern(lost, helpers)));
  }

  /** The repair of several units from the given helpers (see {@link #repairHelpers(int[], int[])}). */
  private void multiRepairFrom(int[] lost, int[] helpers, ByteBuffer[] units, int[] unitOff, ByteBuffer[] out,
                               int[] outOff, int len) {
    CellLayout layout = new CellLayout(params.alpha(), len);
    multiRepairPlan(lost, helpers).execute(coder, units, unitOff, out, outOff, layout.subchunkBytes());
    if (layout.tailBytes() > 0) {
      codeTail(layout, Arrays.copyOf(helpers, params.k()), units, unitOff, lost, out, outOff);
    }
  }

  // ------------------------------------------------------------------ graphs

  /**
   * One lost unit with its helpers available: the bandwidth-optimal graph (leaves: beta
   * sub-chunks of each of d helpers). Several lost units forming a repairable failure
   * pattern with savings ({@link #repairableWithSavings}): the multi-node repair graph
   * (leaves: at most beta_e sub-chunks of each helper, {@link #repairSubchunkCount} in all).
   * Otherwise the layered-decode graph over k available units. Virtual nodes never appear.
   */
  @Override
  public Ecdag repairGraph(int[] lost, int[] available) {
    checkPattern(lost, available);
    Ecdag.Builder g = Ecdag.builder(params.alpha());
    int[] helpers = repairPath(lost, available);
    if (helpers != null) {
      if (lost.length == 1) {
        repairPlan(lost[0], helpers).emit(g, lost);
      } else {
        multiRepairPlan(lost, helpers).emit(g, lost);
      }
      return g.build();
    }
    boolean[] erased = decodeErasures(available);
    int[] wanted = lost.clone();
    decodePlan(erased, wanted).emit(g, wanted);
    return g.build();
  }

  /** The tail: one sub-chunk per unit, rebuilt by the base code from k real units. */
  @Override
  public Ecdag tailRepairGraph(int[] lost, int[] available) {
    checkPattern(lost, available);
    int[] sources = tailSources(lost, available);
    GFMatrix m = tailMatrix(sources, lost);
    Ecdag.Builder g = Ecdag.builder(1);
    int[] leaves = new int[sources.length];
    for (int i = 0; i < sources.length; i++) {
      leaves[i] = g.leaf(sources[i], 0);
    }
    for (int r = 0; r < lost.length; r++) {
      int[] coefs = new int[sources.length];
      for (int i = 0; i < sources.length; i++) {
        coefs[i] = m.get(r, i) & 0xFF;
      }
      g.repaired(lost[r], 0, leaves, coefs);
    }
    return g.build();
  }

  /** Units read for the tail: k of the repair helpers when {@link #repairGraph} repairs, else the first k available. */
  private int[] tailSources(int[] lost, int[] available) {
    int[] helpers = repairPath(lost, available);
    if (helpers != null) {
      return Arrays.copyOf(helpers, params.k());
    }
    return readUnits(decodeErasures(available));
  }

  /** Erasures for decoding from {@code available}: everything else, topped up to m. */
  private boolean[] decodeErasures(int[] available) {
    if (available.length < params.k()) {
      throw new UndecodableException(name() + " needs " + params.k() + " of its " + params.n() + " units, only "
          + available.length + " available");
    }
    boolean[] missing = new boolean[params.n()];
    Arrays.fill(missing, true);
    for (int a : available) {
      missing[a] = false;
    }
    int count = 0;
    for (boolean b : missing) {
      count += b ? 1 : 0;
    }
    if (count > params.m()) {
      // more available than k: keep the first k, erase the rest
      int kept = 0;
      for (int u = 0; u < params.n(); u++) {
        if (!missing[u]) {
          missing[u] = kept >= params.k();
          kept++;
        }
      }
      return missing;
    }
    return padErasures(missing);
  }

  private void checkPattern(int[] lost, int[] available) {
    if (lost.length == 0) {
      throw new IllegalArgumentException("nothing to repair");
    }
    boolean[] seen = new boolean[params.n()];
    for (int a : available) {
      checkUnit(a);
      seen[a] = true;
    }
    boolean[] lostSeen = new boolean[params.n()];
    for (int l : lost) {
      checkUnit(l);
      if (seen[l]) {
        throw new IllegalArgumentException("unit " + l + " is both lost and available");
      }
      if (lostSeen[l]) {
        throw new IllegalArgumentException("unit " + l + " is lost twice");
      }
      lostSeen[l] = true;
    }
  }

  // ------------------------------------------------------------------ tail (base code, byte-wise)

  /** out[wanted] = tail bytes of the wanted units from those of {@code sources} (k real units). */
  private void codeTail(CellLayout layout, int[] sources, ByteBuffer[] in, int[] inOff, int[] wanted,
                        ByteBuffer[] out, int[] outOff) {
    int tail = layout.tailOffset();
    ByteBuffer[] src = new ByteBuffer[sources.length];
    int[] srcOff = new int[sources.length];
    boolean indexed = in.length == params.n();
    for (int i = 0; i < sources.length; i++) {
      int idx = indexed ? sources[i] : i;
      src[i] = in[idx];
      srcOff[i] = inOff[idx] + tail;
    }
    int[] dstOff = new int[wanted.length];
    for (int i = 0; i < wanted.length; i++) {
      dstOff[i] = outOff[i] + tail;
    }
    String key = Arrays.toString(sources) + Arrays.toString(wanted);
    CodingTables t = tailTables.get(key);
    if (t == null) {
      if (tailTables.size() >= MAX_CACHED_PLANS) {
        tailTables.clear();
      }
      t = coder.prepare(tailMatrix(sources, wanted));
      tailTables.put(key, t);
    }
    coder.encode(t, src, srcOff, out, dstOff, layout.tailBytes(), false);
  }

  /**
   * The base-code rows giving the wanted units from k real source units: decode from the
   * sources and the virtual nodes, whose (zero) columns are dropped.
   */
  GFMatrix tailMatrix(int[] sources, int[] wanted) {
    int nu = params.virtualNodes();
    int[] known = new int[params.baseDimension()];
    for (int v = 0; v < nu; v++) {
      known[v] = v;
    }
    for (int i = 0; i < sources.length; i++) {
      known[nu + i] = grid.positionOfUnit(sources[i]);
    }
    int[] wantedPos = new int[wanted.length];
    for (int i = 0; i < wanted.length; i++) {
      wantedPos[i] = grid.positionOfUnit(wanted[i]);
    }
    GFMatrix full = base.decodeMatrix(known, wantedPos);
    byte[] e = new byte[wanted.length * sources.length];
    for (int r = 0; r < wanted.length; r++) {
      for (int i = 0; i < sources.length; i++) {
        e[r * sources.length + i] = full.get(r, nu + i);
      }
    }
    return new GFMatrix(wanted.length, sources.length, e);
  }

  // ------------------------------------------------------------------ helpers

  private CodingPlan cached(String key, java.util.function.Supplier<CodingPlan> build) {
    CodingPlan p = plans.get(key);
    if (p == null) {
      if (plans.size() >= MAX_CACHED_PLANS) {
        plans.clear();
      }
      p = build.get();
      plans.put(key, p);
    }
    return p;
  }

  private void checkUnit(int u) {
    if (u < 0 || u >= params.n()) {
      throw new IllegalArgumentException("unit " + u + " is outside 0.." + (params.n() - 1));
    }
  }

  private static String mask(boolean[] b) {
    StringBuilder s = new StringBuilder(b.length);
    for (boolean x : b) {
      s.append(x ? '1' : '0');
    }
    return s.toString();
  }

  private static int[] range(int from, int to) {
    int[] r = new int[to - from];
    for (int i = 0; i < r.length; i++) {
      r[i] = from + i;
    }
    return r;
  }
}
