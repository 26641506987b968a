package io.ecrepair.bench.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The bars, checked on one run's results: full-node recovery speedups over stock RS,
 * network bytes per rebuilt block against theory, and the Clay degraded read against stock RS.
 * A bar whose results are missing is reported as not measured, never as passed.
 */
public final class Bars {
  /** One bar: what was measured against what is required. */
  public record Bar(String name, Double measured, String required, Boolean pass, String note) {
    public String result() {
      return pass == null ? "not measured" : pass ? "pass" : "FAIL";
    }
  }

  /** Parallel CLAY-10-4 against stock RS-10-4, and against central CLAY-10-4 (ParaRC: 39.2% less time). */
  public static final double CLAY_SPEEDUP = 3.5;
  public static final double PARALLEL_OVER_CENTRAL = 1.4;
  /** The busiest live DataNode of the parallel CLAY-10-4 recovery against the live DataNodes' mean, bytes received. */
  public static final double BALANCE = 1.25;
  public static final double LRC_SPEEDUP = 1.8;
  public static final double BYTES_TOLERANCE = 0.05;
  public static final double CLAY_READ_RATIO = 0.5;

  private Bars() {}

  /** Single-block race: parallel CLAY-10-4 and the chains (RS-10-4, LRC(12,2,2)) against one healthy block read. */
  public static final double SINGLE_CLAY = 1.5;
  public static final double SINGLE_CLAY_LOAD = 1.1;
  public static final double SINGLE_CHAIN = 1.3;

  public static List<Bar> check(List<FullNodeRecovery.Result> recoveries, List<DegradedRead.Result> reads) {
    return check(recoveries, reads, List.of());
  }

  public static List<Bar> check(List<FullNodeRecovery.Result> recoveries, List<DegradedRead.Result> reads,
                                List<SingleBlockRace.Result> singles) {
    if (recoveries.stream().anyMatch(r -> Scenario.parse(r.scenario()).costs())
        || reads.stream().anyMatch(DegradedRead.Result::costModel)) {
      return costModel(recoveries, reads);
    }
    if (recoveries.stream().anyMatch(r -> r.crossRackBytes() >= 0)) {
      return racks(recoveries, singles);
    }
    List<Bar> bars = new ArrayList<>();
    FullNodeRecovery.Result base = recoveries.stream().filter(r -> isRs104(r.policy()) && !r.scenario().endsWith("+plugin"))
        .findFirst().orElse(null);
    FullNodeRecovery.Result clay = recoveries.stream().filter(r -> r.policy().startsWith("CLAY-10-4-")
        && !r.scenario().endsWith("+central")).findFirst().orElse(null);
    FullNodeRecovery.Result central = recoveries.stream().filter(r -> r.policy().startsWith("CLAY-10-4-")
        && r.scenario().endsWith("+central")).findFirst().orElse(null);
    bars.add(speedup("full-node recovery CLAY-10-4 (parallel) vs stock RS-10-4", base, clay, CLAY_SPEEDUP));
    bars.add(speedup("full-node recovery LRC(12,2,2) vs stock RS-10-4", base, find(recoveries, "LRC-L2-12-4-"),
        LRC_SPEEDUP));
    Bar vsCentral = speedup("full-node recovery CLAY-10-4 parallel vs central", central, clay, PARALLEL_OVER_CENTRAL);
    if (clay != null && clay.bound() != null && vsCentral.measured() != null) {
      vsCentral = new Bar(vsCentral.name(), vsCentral.measured(), vsCentral.required(), vsCentral.pass(),
          vsCentral.note() + String.format(Locale.ROOT, "; link-bound at most %.2fx on this layout",
              clay.bound().gain()));
    }
    bars.add(central == null && clay != null ? new Bar(vsCentral.name(), null, vsCentral.required(), null,
        "no CLAY-10-4 +central run") : vsCentral);
    bars.add(balance(clay));
    for (FullNodeRecovery.Result r : recoveries) {
      double dev = r.measuredBlocks() / r.theoryBlocks() - 1;
      bars.add(new Bar("bytes per rebuilt block, " + r.scenario(), r.measuredBlocks(),
          String.format(Locale.ROOT, "%.3f blocks +-5%%", r.theoryBlocks()), Math.abs(dev) <= BYTES_TOLERANCE,
          String.format(Locale.ROOT, "%+.1f%% (engine %s)", dev * 100, r.engine())));
    }
    for (SingleBlockRace.Result r : singles) {
      boolean parallelClay = r.policy().startsWith("CLAY-10-4-") && r.strategy().equals("pararc");
      boolean chain = (r.policy().startsWith("RS-10-4-") || r.policy().startsWith("LRC-L2-12-4-"))
          && r.strategy().equals("pipeline");
      if (!parallelClay && !chain) {
        continue;
      }
      double need = parallelClay ? SINGLE_CLAY : SINGLE_CHAIN;
      String note = String.format(Locale.ROOT, "block %d in %.2f s, healthy read %.2f s, busiest DataNode %.2f blocks%s",
          r.lostIndex(), r.seconds(), r.healthySeconds(), r.maxLoadBlocks(),
          r.cpuIdleShare() < HostCpu.SATURATED ? ", CPU saturated" : "");
      bars.add(new Bar("single-block repair / healthy read, " + r.scenario(), r.ratio(),
          String.format(Locale.ROOT, "<= %.1fx", need), r.ratio() <= need, note));
      if (parallelClay) {
        bars.add(new Bar("single-block repair, busiest DataNode received (blocks), " + r.scenario(), r.maxLoadBlocks(),
            String.format(Locale.ROOT, "<= %.1f", SINGLE_CLAY_LOAD), r.maxLoadBlocks() <= SINGLE_CLAY_LOAD, ""));
      }
    }
    for (DegradedRead.Result r : reads) {
      boolean named = r.policy().startsWith("CLAY-10-4-") || r.policy().startsWith("LRC-L2-12-4-") || isRs104(r.policy());
      if (!named || r.client().equals("stock")) {
        continue;
      }
      bars.add(new Bar("degraded read / healthy read, our client, " + r.policy(), r.slowdown(),
          String.format(Locale.ROOT, "<= %.1fx", DEGRADED_READ_SLOWDOWN), r.slowdown() <= DEGRADED_READ_SLOWDOWN,
          String.format(Locale.ROOT, "%s: %.2f s against %.2f s", r.strategy(), r.degradedSeconds(),
              r.healthySeconds())));
      bars.add(new Bar("client received per degraded block, " + r.policy(), r.fetchedBlocks(),
          String.format(Locale.ROOT, "<= %.1f blocks", DEGRADED_READ_BLOCKS), r.fetchedBlocks() <= DEGRADED_READ_BLOCKS,
          r.strategy()));
    }
    DegradedRead.Result rs = reads.stream().filter(r -> isRs104(r.policy()) && r.client().equals("stock"))
        .findFirst().orElse(null);
    DegradedRead.Result clayRead = reads.stream().filter(r -> r.policy().startsWith("CLAY-10-4-")).findFirst()
        .orElse(null);
    if (rs == null || clayRead == null) {
      bars.add(new Bar("degraded read CLAY-10-4 / stock RS-10-4 time", null, "<= 0.5", null,
          clayRead == null ? "no CLAY-10-4 degraded read (client FileSystem absent or scenario not run)"
              : "no stock RS-10-4 degraded read"));
    } else {
      double ratio = clayRead.degradedSeconds() / rs.degradedSeconds();
      bars.add(new Bar("degraded read CLAY-10-4 / stock RS-10-4 time", ratio, "<= 0.5", ratio <= CLAY_READ_RATIO,
          clayRead.client() + " client"));
    }
    return bars;
  }

  /** Degraded reads through our client with the agents (ECPipe, ParaRC): time and bytes against a healthy read. */
  public static final double DEGRADED_READ_SLOWDOWN = 1.3;
  public static final double DEGRADED_READ_BLOCKS = 1.1;

  /** Cost model on a cluster with slow DataNodes (FastDR): reads, and RS recovery through the plugin. */
  public static final double COST_READ_SPEEDUP = 1.25;
  public static final double COST_RECOVERY_SPEEDUP = 1.2;

  /**
   * The bars of a run with slow DataNodes: the whole-group degraded read of RS-10-4 and
   * CLAY-10-4 with the cost model against without, the RS-10-4 full-node recovery through the
   * plugin with the DataNodes' costs against without, and bytes per rebuilt block.
   */
  static List<Bar> costModel(List<FullNodeRecovery.Result> recoveries, List<DegradedRead.Result> reads) {
    List<Bar> bars = new ArrayList<>();
    for (String prefix : new String[] {"RS-10-4-", "CLAY-10-4-"}) {
      String name = "degraded read " + prefix.substring(0, prefix.length() - 1) + ", cost model vs without";
      DegradedRead.Result without = reads.stream().filter(r -> r.policy().startsWith(prefix) && !r.costModel())
          .findFirst().orElse(null);
      DegradedRead.Result with = reads.stream().filter(r -> r.policy().startsWith(prefix) && r.costModel())
          .findFirst().orElse(null);
      String required = String.format(Locale.ROOT, ">= %.2fx", COST_READ_SPEEDUP);
      if (without == null || with == null) {
        bars.add(new Bar(name, null, required, null, "not run"));
        continue;
      }
      double s = without.degradedSeconds() / with.degradedSeconds();
      bars.add(new Bar(name, s, required, s >= COST_READ_SPEEDUP, String.format(Locale.ROOT,
          "%.1f s vs %.1f s, fetching %.2f vs %.2f blocks per block", with.degradedSeconds(),
          without.degradedSeconds(), with.fetchedBlocks(), without.fetchedBlocks())));
    }
    FullNodeRecovery.Result without = recoveries.stream().filter(r -> isRs104(r.policy())
        && r.scenario().endsWith("+plugin")).findFirst().orElse(null);
    FullNodeRecovery.Result with = recoveries.stream().filter(r -> isRs104(r.policy())
        && r.scenario().endsWith("+plugin+costs")).findFirst().orElse(null);
    bars.add(speedup("full-node recovery RS-10-4 through the plugin, cost-aware vs not", without, with,
        COST_RECOVERY_SPEEDUP));
    for (FullNodeRecovery.Result r : recoveries) {
      bars.add(new Bar("every rebuilt block equal to the original, " + r.scenario(), null, "all", r.verified(),
          r.lost().size() + " blocks"));
    }
    for (DegradedRead.Result r : reads) {
      bars.add(new Bar("every byte read right, " + r.scenario() + (r.costModel() ? " with costs" : ""), null, "all",
          r.verified(), r.client() + " client"));
    }
    return bars;
  }

  /** Racks (ECWide): LRC(12,2,2) with combined locality against HDFS's placement and stock RS-10-4. */
  public static final double RACK_CROSS_BLOCKS = 2.1;
  public static final double RACK_LRC_OVER_RS = 3.0;
  public static final double RACK_COMBINED_OVER_HDFS = 1.5;

  /**
   * The bars of a run on racks: cross-rack bytes of the single-block repair of an LRC(12,2,2)
   * data block with combined locality, its full-node recovery against stock RS-10-4 and against
   * the same LRC under HDFS's placement, the placement the NameNode made (combined locality
   * and never more than f blocks of a group in one rack, before and after each recovery), and
   * every rebuilt block verified.
   */
  static List<Bar> racks(List<FullNodeRecovery.Result> recoveries, List<SingleBlockRace.Result> singles) {
    List<Bar> bars = new ArrayList<>();
    SingleBlockRace.Result combinedOne = singles.stream().filter(r -> r.policy().startsWith("LRC-L2-12-4-")
        && !Scenario.parse(r.scenario()).hdfsPlacement()).findFirst().orElse(null);
    SingleBlockRace.Result hdfsOne = singles.stream().filter(r -> r.policy().startsWith("LRC-L2-12-4-")
        && Scenario.parse(r.scenario()).hdfsPlacement()).findFirst().orElse(null);
    String crossName = "cross-rack blocks per repaired LRC(12,2,2) data block, combined locality";
    String crossNeed = String.format(Locale.ROOT, "<= %.1f", RACK_CROSS_BLOCKS);
    if (combinedOne == null) {
      bars.add(new Bar(crossName, null, crossNeed, null, "no single-block race of LRC-L2-12-4 with combined locality"));
    } else {
      bars.add(new Bar(crossName, combinedOne.crossRackBlocks(), crossNeed,
          combinedOne.crossRackBlocks() <= RACK_CROSS_BLOCKS, String.format(Locale.ROOT,
              "block %d, %s placement; HDFS's placement: %s", combinedOne.lostIndex(), combinedOne.placement(),
              hdfsOne == null ? "not run" : String.format(Locale.ROOT, "%.2f blocks", hdfsOne.crossRackBlocks()))));
    }
    FullNodeRecovery.Result rs = recoveries.stream().filter(r -> isRs104(r.policy()) && !r.scenario().endsWith("+plugin"))
        .findFirst().orElse(null);
    FullNodeRecovery.Result combined = recoveries.stream().filter(r -> r.policy().startsWith("LRC-L2-12-4-")
        && !Scenario.parse(r.scenario()).hdfsPlacement()).findFirst().orElse(null);
    FullNodeRecovery.Result hdfs = recoveries.stream().filter(r -> r.policy().startsWith("LRC-L2-12-4-")
        && Scenario.parse(r.scenario()).hdfsPlacement()).findFirst().orElse(null);
    bars.add(speedup("full-node recovery LRC(12,2,2) combined locality vs stock RS-10-4 (racks)", rs, combined,
        RACK_LRC_OVER_RS));
    Bar vsHdfs = speedup("full-node recovery LRC(12,2,2) combined locality vs HDFS's placement", hdfs, combined,
        RACK_COMBINED_OVER_HDFS);
    bars.add(hdfs == null && combined != null ? new Bar(vsHdfs.name(), null, vsHdfs.required(), null,
        "no LRC-L2-12-4 +hdfs-placement run") : vsHdfs);
    for (FullNodeRecovery.Result r : recoveries) {
      RackLayout l = r.written();
      if (l == null) {
        continue;
      }
      String note = String.format(Locale.ROOT, "%d of %d groups written with combined locality, %d after the recovery; "
          + "%.2f blocks crossed racks per rebuilt block", l.combinedGroups(), l.groups(), r.rebuilt().combinedGroups(),
          r.crossRackBlocksPerRebuiltBlock());
      bars.add(new Bar("most blocks of a group in one rack (before and after), " + r.scenario(),
          (double) r.mostInOneRack(), "<= " + l.faultTolerance(), r.mostInOneRack() <= l.faultTolerance(), note));
      if (isCombined(r)) {
        bars.add(new Bar("every group written with combined locality, " + r.scenario(), null, "all",
            l.placement().equals("combined-locality"), l.combinedGroups() + " of " + l.groups()));
      }
      bars.add(new Bar("every rebuilt block equal to the original, " + r.scenario(), null, "all", r.verified(),
          r.lost().size() + " blocks"));
    }
    return bars;
  }

  private static boolean isCombined(FullNodeRecovery.Result r) {
    return Scenario.parse(r.scenario()).placement().equals("combined-locality");
  }

  /** The busiest live DataNode's bytes received over the live DataNodes' mean. */
  private static Bar balance(FullNodeRecovery.Result r) {
    String name = "balance: busiest live DataNode / mean received, CLAY-10-4 (parallel)";
    String required = String.format(Locale.ROOT, "<= %.2f", BALANCE);
    if (r == null) {
      return new Bar(name, null, required, null, "scenario not run");
    }
    long max = 0;
    long sum = 0;
    int count = 0;
    for (var e : r.bytes().entrySet()) {
      if (e.getKey().startsWith("dn") && !e.getKey().equals(r.victim())) {
        max = Math.max(max, e.getValue().rx());
        sum += e.getValue().rx();
        count++;
      }
    }
    if (count == 0 || sum == 0) {
      return new Bar(name, null, required, null, "no bytes counted");
    }
    double ratio = max / ((double) sum / count);
    String bound = r.bound() == null ? "" : String.format(Locale.ROOT,
        "; %.2f with the stored plans chosen knowing every task", r.bound().bestBalance());
    return new Bar(name, ratio, required, ratio <= BALANCE, String.format(Locale.ROOT, "busiest %.1f MiB, mean %.1f MiB%s",
        max / 1048576.0, (double) sum / count / 1048576.0, bound));
  }

  private static boolean isRs104(String policy) {
    return policy.startsWith("RS-10-4-");
  }

  private static FullNodeRecovery.Result find(List<FullNodeRecovery.Result> rs, String prefix) {
    return rs.stream().filter(r -> r.policy().startsWith(prefix)).findFirst().orElse(null);
  }

  private static Bar speedup(String name, FullNodeRecovery.Result base, FullNodeRecovery.Result ours, double need) {
    String required = String.format(Locale.ROOT, ">= %.1fx", need);
    if (base == null || ours == null) {
      return new Bar(name, null, required, null, base == null ? "no stock RS-10-4 run" : "scenario not run");
    }
    double s = base.repairSeconds() / ours.repairSeconds();
    return new Bar(name, s, required, s >= need, String.format(Locale.ROOT, "%.1f s vs %.1f s", ours.repairSeconds(),
        base.repairSeconds()));
  }
}
