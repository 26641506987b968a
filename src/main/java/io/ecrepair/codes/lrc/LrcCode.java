package io.ecrepair.codes.lrc;

import io.ecrepair.codes.RepairableCode;
import io.ecrepair.codes.UndecodableException;
import io.ecrepair.ecdag.Ecdag;
import io.ecrepair.gf.CodingTables;
import io.ecrepair.gf.GF256;
import io.ecrepair.gf.GFMatrix;
import io.ecrepair.gf.RegionCoder;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Azure's Local Reconstruction Code LRC(k, l, g) (Huang et al., USENIX ATC'12): k data units in
 * l local groups of r = ceil(k/l) consecutive units (the last group may be smaller), one XOR
 * local parity per group and g global parities over all data; n = k + l + g. Unit order: data
 * 0..k-1, local parities k..k+l-1 (local parity j protects group j), global parities
 * k+l..n-1. In HDFS terms m = l + g and the codec is {@code lrc-l<l>} (see {@link #fromCodec}).
 *
 * <p>The code is maximally recoverable ({@link LrcCoefficients}): an erasure pattern decodes iff
 * the lost data units can be matched to distinct surviving parities, a local parity covering
 * only its own group. In particular any g + 1 failures decode. Every decode and repair reads
 * the cheapest set of available units ({@link #cheapestReadSet(int[], int[])}): a lost data
 * unit or local parity costs its group, not k units, so the decoder takes fewer than k inputs.
 *
 * <p>A scalar code (alpha = 1): the tail graph is the repair graph. Thread-safe.
 */
public final class LrcCode implements RepairableCode {
  /** HDFS numbers the internal blocks of a group with 4 bits. */
  public static final int MAX_UNITS = 16;
  /** Codec names are this prefix followed by l, e.g. {@code lrc-l2}. */
  public static final String CODEC_PREFIX = "lrc-l";

  private static final int MAX_CACHED_PLANS = 1024;
  private static final Map<Params, RankTable> RANK_TABLES = new ConcurrentHashMap<>();

  /** The shape of an LRC: k data units, l local groups (and local parities), g global parities. */
  public record Params(int k, int l, int g) {

    public Params {
      if (k < 1) {
        throw new IllegalArgumentException("LRC needs at least one data unit, got k=" + k);
      }
      if (l < 1 || l > k) {
        throw new IllegalArgumentException("LRC needs 1 <= l <= k local groups, got l=" + l + " for k=" + k);
      }
      if (g < 1) {
        throw new IllegalArgumentException("LRC needs at least one global parity, got g=" + g);
      }
      if (k + l + g > MAX_UNITS) {
        throw new IllegalArgumentException("LRC(" + k + "," + l + "," + g + ") has n = k+l+g = " + (k + l + g)
            + " units, more than the " + MAX_UNITS + " an HDFS block group can index");
      }
      int r = (k + l - 1) / l;
      if ((l - 1) * r >= k) {
        throw new IllegalArgumentException("LRC with k=" + k + " and l=" + l + ": groups of ceil(k/l)=" + r
            + " consecutive data units fill only " + ((k + r - 1) / r) + " groups, so group " + (l - 1)
            + " would be empty; choose another l");
      }
    }

    /**
     * Parses Hadoop's view of an LRC policy: codec {@code lrc-l<l>} with (k, m) means l local
     * groups and g = m - l global parities (no coder ever sees more than codec, k and m).
     */
    public static Params fromCodec(String codecName, int k, int m) {
      if (codecName == null) {
        throw new IllegalArgumentException("no codec name given; LRC codecs are named " + CODEC_PREFIX + "<l>, e.g. lrc-l2");
      }
      String c = codecName.trim().toLowerCase(Locale.ROOT);
      String digits = c.startsWith(CODEC_PREFIX) ? c.substring(CODEC_PREFIX.length()) : "";
      if (!digits.matches("[1-9][0-9]{0,1}")) {
        throw new IllegalArgumentException("'" + codecName + "' is not an LRC codec name: expected "
            + CODEC_PREFIX + "<l> with l >= 1 local groups, e.g. lrc-l2");
      }
      int l = Integer.parseInt(digits);
      if (m - l < 1) {
        throw new IllegalArgumentException("codec " + c + " needs l=" + l + " local parities plus at least one global"
            + " parity, so m >= " + (l + 1) + "; got m=" + m);
      }
      return new Params(k, l, m - l);
    }

    public int n() {
      return k + l + g;
    }

    /** Parity units in HDFS terms: l + g. */
    public int m() {
      return l + g;
    }

    /** r = ceil(k / l): the size of every group but possibly the last. */
    public int groupSize() {
      return (k + l - 1) / l;
    }

    /** First data unit of group j. */
    public int groupStart(int j) {
      checkGroup(j);
      return j * groupSize();
    }

    /** One past the last data unit of group j. */
    public int groupEnd(int j) {
      checkGroup(j);
      return Math.min(k, (j + 1) * groupSize());
    }

    /** The group of data unit i. */
    public int groupOf(int dataUnit) {
      if (dataUnit < 0 || dataUnit >= k) {
        throw new IllegalArgumentException("data unit " + dataUnit + " is outside 0.." + (k - 1));
      }
      return dataUnit / groupSize();
    }

    /** The HDFS codec name, {@code lrc-l<l>}. */
    public String codecName() {
      return CODEC_PREFIX + l;
    }

    @Override
    public String toString() {
      return "LRC(" + k + "," + l + "," + g + ")";
    }

    private void checkGroup(int j) {
      if (j < 0 || j >= l) {
        throw new IllegalArgumentException("local group " + j + " is outside 0.." + (l - 1));
      }
    }
  }

  /** How to rebuild some units: read {@code reads}, combine with {@code coefficients}. */
  private record Plan(int[] reads, GFMatrix coefficients, CodingTables tables) {}

  private final Params params;
  private final RegionCoder coder;
  private final GFMatrix generator;
  private final RankTable ranks;
  private final CodingTables[] localTables;
  private final CodingTables globalTables;
  private final Map<String, Plan> plans = new ConcurrentHashMap<>();

  public LrcCode(int k, int l, int g, RegionCoder coder) {
    this(new Params(k, l, g), coder);
  }

  public LrcCode(Params params, RegionCoder coder) {
    this.params = params;
    this.coder = coder;
    this.generator = buildGenerator(params, LrcCoefficients.globalRows(params));
    this.ranks = RANK_TABLES.computeIfAbsent(params, p -> new RankTable(generator));
    this.localTables = new CodingTables[params.l()];
    for (int j = 0; j < params.l(); j++) {
      byte[] ones = new byte[params.groupEnd(j) - params.groupStart(j)];
      Arrays.fill(ones, (byte) 1);
      localTables[j] = coder.prepare(new GFMatrix(1, ones.length, ones));
    }
    this.globalTables = coder.prepare(generator.selectRows(range(params.k() + params.l(), params.n())));
  }

  /** The parameters of codec {@code lrc-l<l>} with Hadoop's (k, m); see {@link Params#fromCodec}. */
  public static Params fromCodec(String codecName, int k, int m) {
    return Params.fromCodec(codecName, k, m);
  }

  public Params params() {
    return params;
  }

  public String codecName() {
    return params.codecName();
  }

  @Override
  public String name() {
    return params.toString();
  }

  @Override
  public int dataUnits() {
    return params.k();
  }

  @Override
  public int parityUnits() {
    return params.m();
  }

  public int localGroups() {
    return params.l();
  }

  public int globalParities() {
    return params.g();
  }

  /** The unit index of local parity j. */
  public int localParity(int j) {
    params.checkGroup(j);
    return params.k() + j;
  }

  /** The unit index of global parity j. */
  public int globalParity(int j) {
    if (j < 0 || j >= params.g()) {
      throw new IllegalArgumentException("global parity " + j + " is outside 0.." + (params.g() - 1));
    }
    return params.k() + params.l() + j;
  }

  /** The local group of a data unit or local parity; -1 for a global parity. */
  public int groupOf(int unit) {
    checkUnit(unit);
    if (unit < params.k()) {
      return params.groupOf(unit);
    }
    return unit < params.k() + params.l() ? unit - params.k() : -1;
  }

  /** The n x k generator: identity, then the l XOR rows, then the g global rows. */
  public GFMatrix generator() {
    return generator;
  }

  /** Whether the other n - |lost| units determine the lost ones. */
  public boolean decodable(int[] lost) {
    int mask = mask(lost, "lost");
    return ranks.rank(allUnits() & ~mask) == params.k();
  }

  /** Whether the units in {@code available} determine the units in {@code lost}. */
  public boolean decodable(int[] lost, int[] available) {
    return ranks.determines(mask(available, "available"), mask(lost, "lost"));
  }

  /** The cheapest read set for {@code lost} when every other unit is available. */
  public Optional<int[]> cheapestReadSet(int[] lost) {
    int mask = mask(lost, "lost");
    return cheapest(mask, allUnits() & ~mask);
  }

  /**
   * The fewest units of {@code available} that rebuild every unit in {@code lost} (sorted;
   * ties go to the lexicographically smallest list), or empty when {@code available} cannot.
   * One lost data unit or local parity: the rest of its group and its local parity. One lost
   * global parity: the k data units.
   */
  public Optional<int[]> cheapestReadSet(int[] lost, int[] available) {
    return cheapest(mask(lost, "lost"), mask(available, "available"));
  }

  private Optional<int[]> cheapest(int lost, int available) {
    int best = ranks.cheapest(lost, available);
    return best < 0 ? Optional.empty() : Optional.of(LrcCoefficients.bits(best));
  }

  /**
   * The |wanted| x |reads| matrix C with unit wanted[r] = sum_i C[r][i] * unit reads[i].
   *
   * @throws UndecodableException when the reads do not determine the wanted units
   * @throws IllegalArgumentException when the reads are linearly dependent
   */
  public GFMatrix decodeMatrix(int[] reads, int[] wanted) {
    int readMask = mask(reads, "reads");
    mask(wanted, "wanted");
    if (ranks.rank(readMask) != reads.length) {
      throw new IllegalArgumentException(name() + ": units " + Arrays.toString(reads) + " are linearly dependent");
    }
    if (!ranks.determines(readMask, mask(wanted, "wanted"))) {
      throw undecodable(wanted, reads);
    }
    GFMatrix s = generator.selectRows(reads);
    int[] cols = pivotColumns(s);
    GFMatrix inverse = columns(s, cols).invert();
    return columns(generator.selectRows(wanted), cols).multiply(inverse);
  }

  /** Writes the l local parities (XOR of each group) and the g global parities. */
  @Override
  public void encode(ByteBuffer[] data, int[] dataOff, ByteBuffer[] parity, int[] parityOff, int len) {
    int k = params.k();
    int l = params.l();
    if (data.length != k || dataOff.length != k || parity.length != params.m() || parityOff.length != params.m()) {
      throw new IllegalArgumentException(name() + " encodes " + k + " data units into " + params.m()
          + " parity units, got " + data.length + " data and " + parity.length + " parity buffers");
    }
    for (int j = 0; j < l; j++) {
      int from = params.groupStart(j);
      int to = params.groupEnd(j);
      coder.encode(localTables[j], Arrays.copyOfRange(data, from, to), Arrays.copyOfRange(dataOff, from, to),
          new ByteBuffer[] {parity[j]}, new int[] {parityOff[j]}, len, false);
    }
    coder.encode(globalTables, data, dataOff, Arrays.copyOfRange(parity, l, params.m()),
        Arrays.copyOfRange(parityOff, l, params.m()), len, false);
  }

  /**
   * Rebuilds {@code wanted} reading only the cheapest read set among the non-null units, so
   * local repair takes just a group (fewer than k inputs).
   */
  @Override
  public void decode(ByteBuffer[] units, int[] unitOff, int[] wanted, ByteBuffer[] out, int[] outOff, int len) {
    int n = params.n();
    if (units.length != n || unitOff.length != n) {
      throw new IllegalArgumentException(name() + " takes " + n + " unit slots, got " + units.length);
    }
    if (wanted.length != out.length || wanted.length != outOff.length) {
      throw new IllegalArgumentException(wanted.length + " wanted units but " + out.length + " outputs");
    }
    if (wanted.length == 0) {
      return;
    }
    int available = 0;
    for (int u = 0; u < n; u++) {
      if (units[u] != null) {
        available |= 1 << u;
      }
    }
    Plan plan = plan(wanted, available);
    int[] reads = plan.reads();
    ByteBuffer[] in = new ByteBuffer[reads.length];
    int[] inOff = new int[reads.length];
    for (int i = 0; i < reads.length; i++) {
      in[i] = units[reads[i]];
      inOff[i] = unitOff[reads[i]];
    }
    coder.encode(plan.tables(), in, inOff, out, outOff, len, false);
  }

  /** Leaves: exactly the cheapest read set among {@code available}; one repaired vertex per lost unit. */
  @Override
  public Ecdag repairGraph(int[] lost, int[] available) {
    int lostMask = mask(lost, "lost");
    int availableMask = mask(available, "available");
    if (lost.length == 0) {
      throw new IllegalArgumentException("nothing to repair: no lost units given");
    }
    if ((lostMask & availableMask) != 0) {
      throw new IllegalArgumentException("units " + Arrays.toString(LrcCoefficients.bits(lostMask & availableMask))
          + " are both lost and available");
    }
    Plan plan = plan(lost, availableMask);
    int[] reads = plan.reads();
    Ecdag.Builder g = Ecdag.builder(1);
    int[] leaves = new int[reads.length];
    for (int i = 0; i < reads.length; i++) {
      leaves[i] = g.leaf(reads[i], 0);
    }
    for (int r = 0; r < lost.length; r++) {
      int[] coefs = new int[reads.length];
      for (int i = 0; i < reads.length; i++) {
        coefs[i] = plan.coefficients().get(r, i) & 0xFF;
      }
      g.repaired(lost[r], 0, leaves, coefs);
    }
    return g.build();
  }

  /** LRC is scalar: the whole cell is one sub-chunk and its "tail" graph is the same. */
  @Override
  public Ecdag tailRepairGraph(int[] lost, int[] available) {
    return repairGraph(lost, available);
  }

  private Plan plan(int[] wanted, int available) {
    String key = Arrays.toString(wanted) + available;
    Plan plan = plans.get(key);
    if (plan == null) {
      int wantedMask = mask(wanted, "wanted");
      int best = ranks.cheapest(wantedMask, available);
      if (best < 0) {
        throw undecodable(wanted, LrcCoefficients.bits(available));
      }
      int[] reads = LrcCoefficients.bits(best);
      GFMatrix c = decodeMatrix(reads, wanted);
      plan = new Plan(reads, c, coder.prepare(c));
      if (plans.size() >= MAX_CACHED_PLANS) {
        plans.clear();
      }
      plans.put(key, plan);
    }
    return plan;
  }

  private UndecodableException undecodable(int[] wanted, int[] from) {
    return new UndecodableException(name() + " cannot rebuild units " + Arrays.toString(wanted) + " from units "
        + Arrays.toString(from) + ": lost data units must be matched to distinct surviving parities, a local"
        + " parity covering only its own group (" + params.l() + " groups of up to " + params.groupSize()
        + " data units, " + params.g() + " global parities)");
  }

  private int allUnits() {
    return (1 << params.n()) - 1;
  }

  private int mask(int[] units, String what) {
    int mask = 0;
    for (int u : units) {
      checkUnit(u);
      if ((mask & 1 << u) != 0) {
        throw new IllegalArgumentException(what + " units " + Arrays.toString(units) + " list unit " + u + " twice");
      }
      mask |= 1 << u;
    }
    return mask;
  }

  private void checkUnit(int u) {
    if (u < 0 || u >= params.n()) {
      throw new IllegalArgumentException("unit " + u + " is outside 0.." + (params.n() - 1) + " of " + name());
    }
  }

  private static GFMatrix buildGenerator(Params p, byte[][] global) {
    int k = p.k();
    byte[] e = new byte[p.n() * k];
    for (int i = 0; i < k; i++) {
      e[i * k + i] = 1;
    }
    for (int j = 0; j < p.l(); j++) {
      for (int i = p.groupStart(j); i < p.groupEnd(j); i++) {
        e[(k + j) * k + i] = 1;
      }
    }
    for (int j = 0; j < p.g(); j++) {
      System.arraycopy(global[j], 0, e, (k + p.l() + j) * k, k);
    }
    return new GFMatrix(p.n(), k, e);
  }

  /** Columns on which the (independent) rows of s are independent. */
  private static int[] pivotColumns(GFMatrix s) {
    int[] pivots = s.pivotColumns();
    if (pivots.length != s.rows()) {
      throw new IllegalStateException("rows are dependent");
    }
    return pivots;
  }

  private static GFMatrix columns(GFMatrix m, int[] cols) {
    byte[] e = new byte[m.rows() * cols.length];
    for (int r = 0; r < m.rows(); r++) {
      for (int c = 0; c < cols.length; c++) {
        e[r * cols.length + c] = m.get(r, cols[c]);
      }
    }
    return new GFMatrix(m.rows(), cols.length, e);
  }

  private static int[] range(int from, int to) {
    int[] r = new int[to - from];
    for (int i = 0; i < r.length; i++) {
      r[i] = from + i;
    }
    return r;
  }
}
