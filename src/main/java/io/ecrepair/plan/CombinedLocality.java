package io.ecrepair.plan;

import io.ecrepair.codes.lrc.LrcCode;
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
 */
public record CombinedLocality(LrcCode.Params code, int perRack, List<List<Integer>> racks) {

  /** The placement with {@code perRack} (1..f) blocks of a block group per rack at most. */
  public static CombinedLocality place(LrcCode.Params code, int perRack) {
    int f = code.g() + 1;
    if (perRack < 1 || perRack > f) {
      throw new IllegalArgumentException("at most " + f + " blocks of a group fit in one rack (the code's fault "
          + "tolerance, so a rack can fail without loss); got " + perRack);
    }
    List<List<Integer>> racks = new ArrayList<>();
    for (int j = 0; j < code.l(); j++) {
      List<Integer> group = new ArrayList<>();
      for (int i = code.groupStart(j); i < code.groupEnd(j); i++) {
        group.add(i);
      }
      group.add(code.k() + j); // its local parity
      fill(racks, group, perRack);
    }
    List<Integer> globals = new ArrayList<>();
    for (int i = code.k() + code.l(); i < code.n(); i++) {
      globals.add(i);
    }
    fill(racks, globals, perRack);
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

  /** The blocks a single-block repair of {@code lost} reads: its local group, or all data for a global parity. */
  public List<Integer> repairReads(int lost) {
    List<Integer> reads = new ArrayList<>();
    if (lost >= code.k() + code.l()) {
      for (int i = 0; i < code.k(); i++) {
        reads.add(i);
      }
      return reads;
    }
    int group = lost < code.k() ? code.groupOf(lost) : lost - code.k();
    for (int i = code.groupStart(group); i < code.groupEnd(group); i++) {
      if (i != lost) {
        reads.add(i);
      }
    }
    if (lost != code.k() + group) {
      reads.add(code.k() + group);
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
