package io.ecrepair.plan;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.codes.lrc.LrcCode;
import io.ecrepair.codes.lrc.LrcFamily;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * ECWide's combined locality (FAST'21, section 3.4) for our Azure-LRC: each local group (its
 * data blocks and local parity) on as few racks as the fault tolerance f allows, at most
 * {@code perRack} (c, at most f) blocks of a block group in any rack, so a lost block is rebuilt
 * by summing inside each rack of its group and sending one partial sum per other rack: the
 * cross-rack repair bandwidth is the group's racks minus one, instead of r blocks when every
 * block has a rack of its own (HDFS's rack-fault-tolerant placement with enough racks). Global
 * parities share racks of their own, c to a rack. Any rack can fail without loss, because no
 * rack holds more than f blocks and the code decodes any f losses.
 *
 * <p>An MDS code (RS, Clay, Butterfly: f = m) has no local groups; its topology locality
 * ({@link #topology}) puts the whole group c to a rack, so a repair that reads any k blocks
 * reads its lost block's rack-mates and the fullest racks, and sends one partial sum per rack
 * it reads beyond its own.
 */
public record CombinedLocality(Code code, int perRack, List<List<Integer>> racks) {

  /** What the layout needs to know of a code. */
  public sealed interface Code permits Lrc, Mds {
    /** Blocks per group. */
    int n();

    /** Lost blocks any group survives: at most this many of a group go in one rack. */
    int faultTolerance();

    /** Units placed together, each list on racks of its own, in this order. */
    List<List<Integer>> localGroups();

    /** Whether {@code unit} is a local parity (its rack is best kept with a DataNode to spare). */
    boolean isLocalParity(int unit);
  }

  /** An Azure-LRC: its local groups, each with its local parity, then the global parities. */
  public record Lrc(LrcCode.Params params) implements Code {
    @Override
    public int n() {
      return params.n();
    }

    @Override
    public int faultTolerance() {
      return params.g() + 1;
    }

    @Override
    public List<List<Integer>> localGroups() {
      List<List<Integer>> groups = new ArrayList<>();
      for (int j = 0; j < params.l(); j++) {
        List<Integer> group = new ArrayList<>();
        for (int i = params.groupStart(j); i < params.groupEnd(j); i++) {
          group.add(i);
        }
        group.add(params.k() + j); // its local parity
        groups.add(group);
      }
      List<Integer> globals = new ArrayList<>();
      for (int i = params.k() + params.l(); i < params.n(); i++) {
        globals.add(i);
      }
      groups.add(globals);
      return groups;
    }

    @Override
    public boolean isLocalParity(int unit) {
      return unit >= params.k() && unit < params.k() + params.l();
    }

    @Override
    public String toString() {
      return params.toString();
    }
  }

  /** An MDS code of k data and m parity blocks, which repairs a block from any k others. */
  public record Mds(int k, int m) implements Code {
    @Override
    public int n() {
      return k + m;
    }

    @Override
    public int faultTolerance() {
      return m;
    }

    @Override
    public List<List<Integer>> localGroups() {
      List<Integer> all = new ArrayList<>();
      for (int u = 0; u < n(); u++) {
        all.add(u);
      }
      return List.of(all);
    }

    @Override
    public boolean isLocalParity(int unit) {
      return false;
    }

    @Override
    public String toString() {
      return "MDS(" + k + "," + m + ")";
    }
  }

  /** The placement with {@code perRack} (1..f) blocks of a block group per rack at most. */
  public static CombinedLocality place(LrcCode.Params code, int perRack) {
    return place(new Lrc(code), perRack);
  }

  /** Topology locality for an MDS code: the group {@code perRack} (1..m) blocks to a rack. */
  public static CombinedLocality topology(int k, int m, int perRack) {
    return place(new Mds(k, m), perRack);
  }

  /**
   * The layout of {@code spec} with f blocks per rack: combined locality for an LRC, topology
   * locality for an MDS code; empty for a code that is neither.
   */
  public static Optional<CombinedLocality> of(CodeSpec spec) {
    return codeOf(spec).map(c -> place(c, c.faultTolerance()));
  }

  /** What the layout needs of {@code spec}: an LRC's groups, or an MDS code's k and m; empty for any other code. */
  public static Optional<Code> codeOf(CodeSpec spec) {
    if (new LrcFamily().accepts(spec.codec())) {
      return Optional.of(new Lrc(LrcFamily.params(spec)));
    }
    return spec.faultTolerance() == spec.m() ? Optional.of(new Mds(spec.k(), spec.m())) : Optional.empty();
  }

  /** The layout of {@code code} with {@code perRack} (1..f) blocks of a block group per rack at most. */
  public static CombinedLocality place(Code code, int perRack) {
    int f = code.faultTolerance();
    if (perRack < 1 || perRack > f) {
      throw new IllegalArgumentException("at most " + f + " blocks of a group fit in one rack (the code's fault "
          + "tolerance, so a rack can fail without loss); got " + perRack);
    }
    List<List<Integer>> racks = new ArrayList<>();
    for (List<Integer> group : code.localGroups()) {
      fill(racks, group, perRack);
    }
    return new CombinedLocality(code, perRack, List.copyOf(racks));
  }

  /**
   * This placement on at most {@code available} racks: while there are more racks than that,
   * the two smallest that fit in one rack together (at most {@code perRack} blocks) share one.
   * Sharing never costs cross-rack bandwidth (only the last, partly filled rack of a local
   * group or of the global parities can be shared, and a repair reads at most one of them).
   * Empty if the group needs more racks than {@code available} even so.
   */
  public Optional<CombinedLocality> onRacks(int available) {
    List<List<Integer>> merged = shareRacks(available);
    return merged.size() > available ? Optional.empty()
        : Optional.of(new CombinedLocality(code, perRack, List.copyOf(merged)));
  }

  /** The fewest racks this placement fits on ({@link #onRacks}). */
  public int fewestRacks() {
    return shareRacks(1).size();
  }

  private List<List<Integer>> shareRacks(int available) {
    List<List<Integer>> merged = new ArrayList<>(racks);
    while (merged.size() > available) {
      int a = -1;
      int b = -1;
      for (int i = 0; i < merged.size(); i++) {
        for (int j = i + 1; j < merged.size(); j++) {
          int size = merged.get(i).size() + merged.get(j).size();
          if (size <= perRack && (a < 0 || size < merged.get(a).size() + merged.get(b).size())) {
            a = i;
            b = j;
          }
        }
      }
      if (a < 0) {
        break;
      }
      List<Integer> shared = new ArrayList<>(merged.get(a));
      shared.addAll(merged.get(b));
      merged.set(a, List.copyOf(shared));
      merged.remove(b);
    }
    return merged;
  }

  private static void fill(List<List<Integer>> racks, List<Integer> units, int perRack) {
    for (int from = 0; from < units.size(); from += perRack) {
      racks.add(List.copyOf(units.subList(from, Math.min(units.size(), from + perRack))));
    }
  }

  public int rackOf(int unit) {
    for (int r = 0; r < racks.size(); r++) {
      if (racks.get(r).contains(unit)) {
        return r;
      }
    }
    throw new IllegalArgumentException("unit " + unit + " is not in a " + code.n() + "-block group");
  }

  /**
   * Blocks that cross racks to rebuild {@code lost} in its own rack: one partial sum from every
   * other rack holding a block its repair reads (its local group; all data for a global parity).
   */
  public int crossRackBlocks(int lost) {
    return (int) repairReads(lost).stream().map(this::rackOf).distinct().filter(r -> r != rackOf(lost)).count();
  }

  /** The same repair when every block has a rack of its own: every block it reads crosses. */
  public int spreadCrossRackBlocks(int lost) {
    return repairReads(lost).size();
  }

  /**
   * The blocks a single-block repair of {@code lost} reads: an LRC's local group, or all data
   * for a global parity; for an MDS code, k blocks on the fewest racks (its rack-mates, then
   * the fullest racks).
   */
  public List<Integer> repairReads(int lost) {
    List<Integer> reads = new ArrayList<>();
    if (code instanceof Mds mds) {
      List<List<Integer>> byRack = new ArrayList<>(racks);
      byRack.sort(Comparator.comparingInt((List<Integer> r) -> r.contains(lost) ? 0 : 1)
          .thenComparingInt(r -> -r.size()));
      for (List<Integer> rack : byRack) {
        for (int u : rack) {
          if (u != lost && reads.size() < mds.k()) {
            reads.add(u);
          }
        }
      }
      return reads;
    }
    LrcCode.Params p = ((Lrc) code).params();
    if (lost >= p.k() + p.l()) {
      for (int i = 0; i < p.k(); i++) {
        reads.add(i);
      }
      return reads;
    }
    int group = lost < p.k() ? p.groupOf(lost) : lost - p.k();
    for (int i = p.groupStart(group); i < p.groupEnd(group); i++) {
      if (i != lost) {
        reads.add(i);
      }
    }
    if (lost != p.k() + group) {
      reads.add(p.k() + group);
    }
    return reads;
  }

  /** The largest number of blocks of the group in one rack: a rack failure loses this many. */
  public int mostInOneRack() {
    return racks.stream().mapToInt(List::size).max().orElse(0);
  }

  /** A choice of the parameter search, with what it costs and saves. */
  public record Choice(LrcCode.Params code, int racks, double overhead, double meanCrossRack, int worstCrossRack) {
    /** The HDFS policy name of this code with {@code cellBytes} cells. */
    public String policyName(int cellBytes) {
      return "LRC-L" + code.l() + "-" + code.k() + "-" + code.m() + "-" + (cellBytes / 1024) + "k";
    }
  }

  /**
   * ECWide's parameter search within HDFS's limit of 16 blocks per group: for k data blocks,
   * fault tolerance f and storage overhead at most {@code maxOverhead}, every LRC (k, l,
   * g = f - 1) that fits, placed with f blocks per rack, best first: least mean cross-rack
   * repair bandwidth over the data and local parity blocks, then least overhead.
   */
  public static List<Choice> search(int k, int f, double maxOverhead) {
    if (k < 1 || f < 1 || k + f > LrcCode.MAX_UNITS) {
      throw new IllegalArgumentException("k=" + k + " data blocks with fault tolerance " + f + " need at least "
          + (k + f) + " blocks per group; HDFS indexes " + LrcCode.MAX_UNITS);
    }
    List<Choice> choices = new ArrayList<>();
    for (int l = 1; l <= k; l++) {
      LrcCode.Params p;
      try {
        p = new LrcCode.Params(k, l, f - 1);
      } catch (IllegalArgumentException e) {
        continue; // more than 16 blocks, or groups that do not come out even
      }
      double overhead = (double) p.n() / k;
      if (overhead > maxOverhead + 1e-9) {
        continue;
      }
      CombinedLocality c = place(p, f);
      int worst = 0;
      long sum = 0;
      for (int u = 0; u < k + l; u++) {
        int x = c.crossRackBlocks(u);
        worst = Math.max(worst, x);
        sum += x;
      }
      choices.add(new Choice(p, c.racks().size(), overhead, (double) sum / (k + l), worst));
    }
    choices.sort(Comparator.comparingDouble(Choice::meanCrossRack).thenComparingDouble(Choice::overhead)
        .thenComparingInt(Choice::racks));
    return choices;
  }
}
