package io.ecrepair.bench.cluster;

import io.ecrepair.bench.BarChart;
import io.ecrepair.layout.Policy;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A run's report as tables (header + rows of text), the bench JSON
 * (docs/architecture.md#command-line-contract), and PNG charts.
 */
public final class ClusterReport {
  /** A table to print: its header and rows. */
  public record Rows(List<String> header, List<List<String>> rows) {}

  private static final double MIB = 1 << 20;

  private final ClusterBenchmark.Report report;

  public ClusterReport(ClusterBenchmark.Report report) {
    this.report = report;
  }

  private FullNodeRecovery.Result stockRs() {
    return report.recoveries().stream().filter(r -> r.policy().startsWith("RS-10-4-")
        && Scenario.parse(r.scenario()).isStockRs()).findFirst().orElse(null);
  }

  private boolean racked() {
    return report.recoveries().stream().anyMatch(r -> r.crossRackBytes() >= 0);
  }

  /**
   * A recovery's peer: for a {@code +costs} scenario the same one without the cost model, else
   * stock RS-10-4 (HDFS's own reconstruction); null for stock RS itself or a peer not run.
   */
  FullNodeRecovery.Result peer(FullNodeRecovery.Result r) {
    Scenario s = Scenario.parse(r.scenario());
    if (s.costs()) {
      String without = r.scenario().substring(0, r.scenario().length() - "+costs".length());
      return report.recoveries().stream().filter(x -> x.scenario().equals(without)).findFirst().orElse(null);
    }
    FullNodeRecovery.Result rs = stockRs();
    return rs == r ? null : rs;
  }

  /**
   * The recovery's link floor: the time the busiest link of its own layout needs for what the
   * layout forces through it ({@link PlanBound}) at the run's shaped rates; NaN where unknown.
   */
  public double floorSeconds(FullNodeRecovery.Result r) {
    return r.bound() == null ? Double.NaN : seconds(r.bound().best() * r.blockBytes(), rateMbit());
  }

  private int rateMbit() {
    return report.settings().cluster().rateMbit();
  }

  /** Seconds {@code bytes} take at {@code mbit} (tc's Mbit: 10^6 bits). */
  static double seconds(double bytes, int mbit) {
    return bytes * 8 / (mbit * 1e6);
  }

  public Rows recoveries() {
    List<List<String>> rows = new ArrayList<>();
    boolean racks = racked();
    for (FullNodeRecovery.Result r : report.recoveries()) {
      FullNodeRecovery.Result peer = peer(r);
      double floor = floorSeconds(r);
      List<String> row = new ArrayList<>(List.of(r.scenario(), r.engine(), r.victim(), Integer.toString(r.lost().size()),
          f1(r.detectSeconds()), f1(r.repairSeconds()), Double.isNaN(floor) ? "-" : f1(floor),
          Double.isNaN(floor) ? "-" : f2(r.repairSeconds() / floor) + "x", r.bound() == null ? "-" : r.bound().link(),
          peer == null ? "-" : f2(peer.repairSeconds() / r.repairSeconds()) + "x",
          f2(r.measuredBlocks()), f2(r.theoryBlocks()), pct(r.measuredBlocks() / r.theoryBlocks() - 1),
          f2(r.maxLoadBlocks()), idle(r.cpuIdleShare()), cpu(r.cpuSecondsPerRebuiltBlock()),
          cpu(r.cpuSecondsPerBlockMoved()), r.verified() ? "yes" : "NO"));
      if (racks) {
        row.addAll(List.of(Scenario.parse(r.scenario()).placement(), r.written().combinedGroups() + "/"
            + r.written().groups(), r.rebuilt().combinedGroups() + "/" + r.rebuilt().groups(),
            f2(r.crossRackBlocksPerRebuiltBlock()), Integer.toString(r.mostInOneRack())));
      }
      rows.add(row);
    }
    List<String> header = new ArrayList<>(List.of("scenario", "rebuilt by", "killed", "blocks", "detect s", "repair s",
        "floor s", "x floor", "busiest link", "vs peer", "recv/block", "theory", "dev", "max load", "CPU idle",
        "CPU s/block", "CPU s/moved", "verified"));
    if (racks) {
      header.addAll(List.of("placement", "combined as written", "after", "cross-rack/block", "most in a rack"));
    }
    return new Rows(header, rows);
  }

  public static int foregroundReadKib() {
    return ForegroundClient.READ_BYTES >> 10;
  }

  public static int foregroundWriteKib() {
    return ForegroundClient.WRITE_BYTES >> 10;
  }

  /** The recoveries run again under the foreground load: what the clients saw, beside the quiet repair time. */
  public Rows foreground() {
    List<List<String>> rows = new ArrayList<>();
    for (FullNodeRecovery.Result r : report.recoveries()) {
      FullNodeRecovery.Foreground f = r.foreground();
      if (f == null) {
        continue;
      }
      ForegroundLoad.Result l = f.load();
      rows.add(List.of(r.scenario(), f1(r.repairSeconds()) + " / " + f1(f.repairSeconds()),
          f2(f.repairSeconds() / r.repairSeconds()) + "x",
          three(l, w -> w.reads().p50Ms()), three(l, w -> w.reads().p99Ms()),
          f2(l.during().reads().p99Ms() / l.before().reads().p99Ms()) + "x", three(l, w -> w.reads().p999Ms()),
          threeMb(l, w -> w.reads().mbPerSec()), three(l, w -> w.writes().p99Ms()),
          threeMb(l, w -> w.writes().mbPerSec()), Integer.toString(l.failedOrWrong()),
          f1(f.groupsShort().meanSeconds()) + " / " + f1(f.groupsShort().maxSeconds()), idle(f.cpuIdleShare()),
          share(NodeCounters.lowerEffortShare(r.bytes()))));
    }
    return new Rows(List.of("scenario", "repair s quiet / load", "x quiet", "read p50 ms before/during/after",
        "read p99 ms", "p99 during x before", "read p99.9 ms", "read MB/s", "write p99 ms", "write MB/s",
        "failed ops", "short s mean / max", "CPU idle", "sent LE"), rows);
  }

  private static String three(ForegroundLoad.Result l,
                              java.util.function.ToDoubleFunction<ForegroundOps.Window> v) {
    return String.format(Locale.ROOT, "%.0f / %.0f / %.0f", v.applyAsDouble(l.before()), v.applyAsDouble(l.during()),
        v.applyAsDouble(l.after()));
  }

  private static String threeMb(ForegroundLoad.Result l,
                                java.util.function.ToDoubleFunction<ForegroundOps.Window> v) {
    return String.format(Locale.ROOT, "%.2f / %.2f / %.2f", v.applyAsDouble(l.before()), v.applyAsDouble(l.during()),
        v.applyAsDouble(l.after()));
  }

  /** A recovery's foreground figures for --json. */
  private static Map<String, Object> foregroundJson(FullNodeRecovery.Result r) {
    FullNodeRecovery.Foreground f = r.foreground();
    ForegroundLoad.Result l = f.load();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("offeredReadMBps", l.offeredReadMBps());
    m.put("offeredWriteMBps", l.offeredWriteMBps());
    m.put("readBytes", ForegroundClient.READ_BYTES);
    m.put("writeBytes", ForegroundClient.WRITE_BYTES);
    m.put("repairSeconds", f.repairSeconds());
    m.put("repairSecondsQuiet", r.repairSeconds());
    m.put("repairSlowdown", f.repairSeconds() / r.repairSeconds());
    m.put("groupSecondsShortOfRedundancy", shortJson(f.groupsShort()));
    m.put("cpuIdleShare", finite(f.cpuIdleShare()));
    m.put("cpuSaturated", f.cpuIdleShare() < HostCpu.SATURATED);
    m.put("before", windowJson(l.before()));
    m.put("during", windowJson(l.during()));
    m.put("after", windowJson(l.after()));
    m.put("verified", f.verified() && l.verified());
    return m;
  }

  private static Map<String, Object> windowJson(ForegroundOps.Window w) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("seconds", w.seconds());
    m.put("reads", w.reads().ops());
    m.put("readP50Ms", finite(w.reads().p50Ms()));
    m.put("readP99Ms", finite(w.reads().p99Ms()));
    m.put("readP999Ms", finite(w.reads().p999Ms()));
    m.put("readMBps", finite(w.reads().mbPerSec()));
    m.put("writes", w.writes().ops());
    m.put("writeP50Ms", finite(w.writes().p50Ms()));
    m.put("writeP99Ms", finite(w.writes().p99Ms()));
    m.put("writeP999Ms", finite(w.writes().p999Ms()));
    m.put("writeMBps", finite(w.writes().mbPerSec()));
    m.put("failed", w.failed());
    m.put("wrong", w.wrong());
    return m;
  }

  private static Map<String, Object> shortJson(FullNodeRecovery.GroupsShort g) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("mean", g == null ? null : finite(g.meanSeconds()));
    m.put("max", g == null ? null : finite(g.maxSeconds()));
    return m;
  }

  /** The decommissionings: one DataNode leaving per scenario, beside stock RS-10-4's and its uplink's floor. */
  public Rows decommissions() {
    DecommissionRace.Result rs = report.decommissions().stream()
        .filter(d -> d.policy().startsWith("RS-10-4-") && Scenario.parse(d.scenario()).isStockRs()).findFirst()
        .orElse(null);
    List<List<String>> rows = new ArrayList<>();
    for (DecommissionRace.Result d : report.decommissions()) {
      double floor = decommissionFloor(d);
      rows.add(List.of(d.scenario(), d.node(), Integer.toString(d.blocks()), f1(d.seconds()), f1(floor),
          f2(d.seconds() / floor) + "x", rs == null || rs == d ? "-" : f2(d.seconds() / rs.seconds()) + "x",
          d.verified() ? "yes" : "NO"));
    }
    return new Rows(List.of("scenario", "decommissioned", "blocks", "seconds", "floor s", "x floor", "x RS",
        "verified"), rows);
  }

  /** HDFS copies every block of a leaving DataNode from it: its uplink carries them all. */
  public double decommissionFloor(DecommissionRace.Result d) {
    ClusterOptions c = report.settings().cluster();
    boolean slow = c.slowNodes().stream().anyMatch(i -> ("dn" + i).equals(d.node()));
    return seconds((double) d.blocks() * d.blockBytes(), slow ? c.slowRateMbit() : c.rateMbit());
  }

  /** One block into the rebuilding DataNode's downlink: no repair of a block moves less. */
  public double singleFloor(SingleBlockRace.Result r) {
    return seconds(r.blockBytes(), rateMbit());
  }

  /** The client's downlink carrying every byte it reads. */
  public double readFloor(DegradedRead.Result r) {
    return seconds((double) r.blockBytes() * r.blocksRead(), report.settings().cluster().clientRateMbit());
  }

  /** The single-block races: one block rebuilt on an idle cluster against one healthy block read. */
  public Rows singles() {
    List<List<String>> rows = new ArrayList<>();
    boolean racks = racked();
    SingleBlockRace.Result rs = report.singles().stream().filter(r -> r.strategy().equals("stock")
        && r.policy().startsWith("RS-10-4-")).findFirst().orElse(null);
    for (SingleBlockRace.Result r : report.singles()) {
      double floor = singleFloor(r);
      List<String> row = new ArrayList<>(List.of(r.scenario(), r.strategy(), Integer.toString(r.lostIndex()),
          f2(r.seconds()) + (r.taskTimed() ? "" : " (NN)"), f2(floor), f2(r.seconds() / floor) + "x",
          f2(r.healthySeconds()), f2(r.ratio()) + "x", rs == null || rs == r ? "-" : f2(rs.seconds() / r.seconds()) + "x",
          f2(r.maxLoadBlocks()), idle(r.cpuIdleShare()), cpu(r.cpuSecondsTotal()), r.verified() ? "yes" : "NO"));
      if (racks) {
        row.addAll(List.of(r.placement(), f2(r.crossRackBlocks())));
      }
      rows.add(row);
    }
    List<String> header = new ArrayList<>(List.of("scenario", "strategy", "lost", "repair s", "floor s", "x floor",
        "healthy read s", "x healthy", "vs RS", "busiest recv (blocks)", "CPU idle", "DataNode CPU s", "verified"));
    if (racks) {
      header.addAll(List.of("placement", "cross-rack blocks"));
    }
    return new Rows(header, rows);
  }

  /** A share as a whole percentage; "-" when unknown. */
  static String share(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.0f%%", v * 100);
  }

  /** The host's idle CPU share, marked where the measurement was CPU-bound. */
  static String idle(double share) {
    if (Double.isNaN(share)) {
      return "-";
    }
    return String.format(Locale.ROOT, "%.0f%%%s", share * 100, share < HostCpu.SATURATED ? " SATURATED" : "");
  }

  /** Bytes every node received and sent during each recovery, MiB. */
  public Rows nodeBytes() {
    List<String> header = new ArrayList<>(List.of("node"));
    report.recoveries().forEach(r -> header.add(r.scenario() + " rx/tx MiB"));
    List<String> names = report.recoveries().isEmpty() ? List.of()
        : new ArrayList<>(report.recoveries().get(0).bytes().keySet());
    List<List<String>> rows = new ArrayList<>();
    for (String n : names) {
      List<String> row = new ArrayList<>(List.of(n));
      for (FullNodeRecovery.Result r : report.recoveries()) {
        NodeCounters.Bytes b = r.bytes().get(n);
        String mark = n.equals(r.victim()) ? " (killed)" : "";
        row.add(b == null ? "-" : String.format(Locale.ROOT, "%.0f/%.0f%s", b.rx() / MIB, b.tx() / MIB, mark));
      }
      rows.add(row);
    }
    return new Rows(header, rows);
  }

  public Rows reads() {
    List<List<String>> rows = new ArrayList<>();
    DegradedRead.Result base = report.reads().stream().filter(r -> r.policy().startsWith("RS-10-4-")
        && r.client().equals("stock")).findFirst().orElse(null);
    for (DegradedRead.Result r : report.reads()) {
      double floor = readFloor(r);
      rows.add(List.of(r.policy() + (r.blocksRead() > 1 ? " (whole group)" : ""),
          r.client() + (r.costModel() ? " +costs" : ""), f2(r.healthySeconds()), f2(r.degradedSeconds()),
          f2(floor), f2(r.degradedSeconds() / floor) + "x", f2(r.slowdown()) + "x",
          base == null || base == r ? "-" : f2(r.degradedSeconds() / base.degradedSeconds()) + "x",
          f2(r.fetchedBlocks()), f2(r.theoryBlocks()), cpu(r.healthyClientCpu()) + " / " + cpu(r.degradedClientCpu()),
          r.small() == null ? "-" : String.format(Locale.ROOT, "%.1f / %.1f (%.1fx)", r.small().degradedP50(),
              r.small().degradedP99(), r.small().degradedP50() / r.small().healthyP50()),
          r.verified() ? "yes" : "NO"));
    }
    return new Rows(List.of("policy", "client", "healthy s", "degraded s", "floor s", "x floor", "x healthy",
        "vs RS stock", "fetched blocks", "theory", "client CPU s (healthy / degraded)",
        "64 KiB reads p50 / p99 ms (x healthy p50)", "verified"), rows);
  }

  /** The DataNodes' own CPU accounting for a recovery ({@link ProcessCpu}), beside the host's busy share. */
  private static void putCpu(Map<String, Object> m, FullNodeRecovery.Result r) {
    if (r.cpuSeconds().isEmpty()) {
      return;
    }
    Map<String, Object> perNode = new java.util.TreeMap<>();
    r.cpuSeconds().forEach((n, v) -> perNode.put(n, Math.round(v * 1000) / 1000.0));
    m.put("cpuSeconds", perNode);
    m.put("cpuSecondsTotal", finite(r.cpuSecondsTotal()));
    m.put("cpuSecondsPerRebuiltBlock", finite(r.cpuSecondsPerRebuiltBlock()));
    m.put("cpuSecondsPerBlockMoved", finite(r.cpuSecondsPerBlockMoved()));
    m.put("idleClusterCpuPerSecond", finite(r.backgroundCpu()));
    m.put("hostBusyCpuSeconds", finite(r.hostBusyCpuSeconds()));
  }

  /** {@code v}, or null (JSON's "unknown") where it is not a number. */
  private static Double finite(double v) {
    return Double.isFinite(v) ? v : null;
  }

  private static String cpu(double v) {
    return Double.isNaN(v) || Double.isInfinite(v) ? "-" : String.format(java.util.Locale.ROOT, "%.2f", v);
  }

  /** {"results": [...]} in the bench shape of docs/architecture.md#command-line-contract (suite "cluster"), with the run's settings. */
  public Map<String, Object> json(List<Path> charts) {
    List<Object> results = new ArrayList<>();
    for (FullNodeRecovery.Result r : report.recoveries()) {
      String impl = switch (r.engine()) {
        case "hdfs" -> "hdfs-stock";
        case "ec-repair" -> "ec-repair-plugin";
        default -> r.engine();
      };
      Map<String, Object> m = common(r.policy(), "full-node-recovery", impl);
      m.put("mbPerSec", r.lost().size() * (double) r.blockBytes() / r.repairSeconds() / 1e6);
      m.put("scenario", r.scenario());
      m.put("strategy", Scenario.parse(r.scenario()).strategy());
      m.put("costModel", Scenario.parse(r.scenario()).costs());
      m.put("groups", r.groups());
      m.put("blockBytes", r.blockBytes());
      m.put("killed", r.victim());
      m.put("rebuiltBlocks", r.lost().size());
      m.put("lostIndices", r.lost().stream().map(FullNodeRecovery.LostBlock::index).toList());
      m.put("detectSeconds", r.detectSeconds());
      m.put("repairSeconds", r.repairSeconds());
      m.put("wallSeconds", r.wallSeconds());
      m.put("receivedBlocksPerRebuiltBlock", r.measuredBlocks());
      m.put("theoryBlocksPerRebuiltBlock", r.theoryBlocks());
      m.put("maxLoadBlocksPerRebuiltBlock", r.maxLoadBlocks());
      m.put("pluginTasks", r.pluginTasks());
      m.put("allTasks", r.allTasks());
      m.put("taskSeconds", Double.isNaN(r.taskSeconds()) ? null : r.taskSeconds());
      m.put("busiestReceivedBlocks", r.busiestReceivedBlocks());
      m.put("cpuIdleShare", Double.isNaN(r.cpuIdleShare()) ? null : r.cpuIdleShare());
      m.put("cpuSaturated", r.cpuSaturated());
      putCpu(m, r);
      double floor = floorSeconds(r);
      m.put("floorSeconds", Double.isNaN(floor) ? null : floor);
      m.put("timeOverFloor", Double.isNaN(floor) ? null : r.repairSeconds() / floor);
      m.put("floorBusiestLink", r.bound() == null ? null : r.bound().link());
      m.put("floorBusiestLinkBlocks", r.bound() == null ? null : r.bound().best());
      FullNodeRecovery.Result peer = peer(r);
      m.put("peerScenario", peer == null ? null : peer.scenario());
      m.put("peerSpeedup", peer == null ? null : peer.repairSeconds() / r.repairSeconds());
      if (r.bound() != null && Scenario.parse(r.scenario()).isVector()) {
        m.put("planBound", Map.of("centralBusiestBlocks", r.bound().central(), "bestChoiceBusiestBlocks",
            r.bound().best(), "linkBoundGainOverCentral", r.bound().gain(), "bestChoiceBalance",
            r.bound().bestBalance()));
      }
      m.put("groupSecondsShortOfRedundancy", shortJson(r.groupsShort()));
      m.put("lowerEffortShare", finite(NodeCounters.lowerEffortShare(r.bytes())));
      if (r.foreground() != null) {
        m.put("foreground", foregroundJson(r));
      }
      m.put("verified", r.verified());
      m.put("nodes", nodes(r.bytes()));
      if (r.crossRackBytes() >= 0) {
        m.put("placement", Scenario.parse(r.scenario()).placement());
        m.put("crossRackBytes", r.crossRackBytes());
        m.put("crossRackBlocksPerRebuiltBlock", r.crossRackBlocksPerRebuiltBlock());
        m.put("mostBlocksOfAGroupInOneRack", r.mostInOneRack());
        m.put("combinedLocalityGroups", r.written().combinedGroups());
        m.put("combinedLocalityGroupsAfterRecovery", r.rebuilt().combinedGroups());
      }
      results.add(m);
    }
    for (DegradedRead.Result r : report.reads()) {
      Map<String, Object> m = common(r.policy(), "degraded-read", r.client().equals("stock") ? "hdfs-stock-client"
          : "ec-repair-client");
      m.put("mbPerSec", (double) r.blockBytes() * r.blocksRead() / r.degradedSeconds() / 1e6);
      // How the read was served: HDFS's own decoder, the agents (pararc, pipeline), or our client fetching the read set.
      m.put("strategy", r.strategy());
      m.put("costModel", r.costModel());
      m.put("blocksRead", r.blocksRead());
      m.put("fileSystem", r.fileSystem());
      m.put("blockBytes", r.blockBytes());
      m.put("healthySeconds", r.healthySeconds());
      m.put("healthyRxBytes", r.healthyRxBytes());
      m.put("degradedSeconds", r.degradedSeconds());
      m.put("degradedRxBytes", r.degradedRxBytes());
      m.put("floorSeconds", readFloor(r));
      m.put("fetchedBlocks", r.fetchedBlocks());
      m.put("theoryBlocks", r.theoryBlocks());
      // The reading client's own CPU (its JVM's accounting), the healthy read beside the degraded one.
      m.put("healthyClientCpuSeconds", Double.isNaN(r.healthyClientCpu()) ? null : r.healthyClientCpu());
      m.put("degradedClientCpuSeconds", Double.isNaN(r.degradedClientCpu()) ? null : r.degradedClientCpu());
      if (r.small() != null) {
        m.put("smallReadBytes", io.ecrepair.harness.DegradedReadProbe.SMALL_READ_BYTES);
        m.put("smallReadP50Ms", r.small().degradedP50());
        m.put("smallReadP99Ms", r.small().degradedP99());
        m.put("healthySmallReadP50Ms", r.small().healthyP50());
        m.put("healthySmallReadP99Ms", r.small().healthyP99());
      }
      m.put("verified", r.verified());
      results.add(m);
    }
    for (SingleBlockRace.Result r : report.singles()) {
      Map<String, Object> m = common(r.policy(), "single-block-repair", r.strategy().equals("stock") ? "hdfs-stock"
          : "ec-repair-plugin");
      m.put("mbPerSec", r.blockBytes() / r.seconds() / 1e6);
      m.put("scenario", r.scenario());
      m.put("strategy", r.strategy());
      m.put("lostIndex", r.lostIndex());
      m.put("seconds", r.seconds());
      m.put("taskTimed", r.taskTimed());
      m.put("floorSeconds", singleFloor(r));
      m.put("healthySeconds", r.healthySeconds());
      m.put("maxLoadBlocks", r.maxLoadBlocks());
      m.put("blockBytes", r.blockBytes());
      m.put("cpuIdleShare", Double.isNaN(r.cpuIdleShare()) ? null : r.cpuIdleShare());
      if (!r.cpuSeconds().isEmpty()) {
        m.put("cpuSecondsTotal", finite(r.cpuSecondsTotal()));
      }
      m.put("verified", r.verified());
      m.put("nodes", nodes(r.bytes()));
      if (!Double.isNaN(r.crossRackBlocks())) {
        m.put("placement", r.placement());
        m.put("crossRackBlocksPerRebuiltBlock", r.crossRackBlocks());
      }
      results.add(m);
    }
    for (DecommissionRace.Result d : report.decommissions()) {
      Map<String, Object> m = common(d.policy(), "decommission", "hdfs-stock");
      m.put("mbPerSec", d.blocks() * (double) d.blockBytes() / d.seconds() / 1e6);
      m.put("scenario", d.scenario());
      m.put("datanode", d.node());
      m.put("blocks", d.blocks());
      m.put("blockBytes", d.blockBytes());
      m.put("seconds", d.seconds());
      m.put("floorSeconds", decommissionFloor(d));
      m.put("verified", d.verified());
      results.add(m);
    }
    ClusterOptions c = report.settings().cluster();
    Map<String, Object> cluster = new LinkedHashMap<>();
    cluster.put("hadoop", c.hadoopVersion());
    cluster.put("dataNodes", c.dataNodes());
    cluster.put("racks", c.racks());
    cluster.put("rateMbit", c.rateMbit());
    cluster.put("rackRateMbit", c.rackRateMbit());
    cluster.put("clientRateMbit", c.clientRateMbit());
    cluster.put("priorityLinks", c.priorityLinks());
    cluster.put("slowNodes", c.slowNodes().stream().map(i -> "dn" + i).toList());
    cluster.put("slowRateMbit", c.slowNodes().isEmpty() ? null : c.slowRateMbit());
    cluster.put("blockBytes", c.blockSize());
    cluster.put("groups", report.settings().groups());
    cluster.put("warmupGroups", report.settings().warmupGroups());
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("results", results);
    j.put("notes", report.notes());
    j.put("cluster", cluster);
    j.put("charts", charts.stream().map(p -> p.toAbsolutePath().toString()).toList());
    return j;
  }

  private static Map<String, Object> nodes(Map<String, NodeCounters.Bytes> bytes) {
    Map<String, Object> nodes = new LinkedHashMap<>();
    bytes.forEach((n, b) -> nodes.put(n, Map.of("rxBytes", b.rx(), "txBytes", b.tx())));
    return nodes;
  }

  private static Map<String, Object> common(String policyName, String op, String impl) {
    Policy p = Policy.parse(policyName);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("suite", "cluster");
    m.put("codec", p.code().codec());
    m.put("k", p.code().k());
    m.put("m", p.code().m());
    m.put("op", op);
    m.put("impl", impl);
    m.put("threads", 1);
    m.put("cellBytes", p.cellSize());
    m.put("policy", policyName);
    return m;
  }

  /** Writes the charts: repair time per scenario, and bytes received per node for each scenario. */
  public List<Path> writeCharts(String prefix) throws IOException {
    List<Path> files = new ArrayList<>();
    ClusterOptions c = report.settings().cluster();
    String setting = String.format(Locale.ROOT, "%d DataNodes at %d Mbit/s, %d groups of %d MiB blocks",
        c.dataNodes(), c.rateMbit(), report.settings().groups(), c.blockSize() >> 20);
    if (!report.recoveries().isEmpty()) {
      List<BarChart.Bar> bars = new ArrayList<>();
      for (FullNodeRecovery.Result r : report.recoveries()) {
        bars.add(new BarChart.Bar(r.scenario().replace("+", "\n+") + "\n" + r.engine(), r.repairSeconds(),
            f1(r.repairSeconds()) + " s", r.engine().equals("hdfs") ? 1 : 0));
        double floor = floorSeconds(r);
        if (!Double.isNaN(floor)) {
          bars.add(new BarChart.Bar("floor", floor, f1(floor) + " s", 2));
        }
      }
      Path time = Path.of(prefix + "-recovery-time.png");
      BarChart.write(time, "Full-node recovery time (" + setting + ")", "seconds", bars,
          List.of("rebuilt by hadoop-ec-repair", "rebuilt by HDFS (stock)", "link floor of the layout"));
      files.add(time);
      for (FullNodeRecovery.Result r : report.recoveries()) {
        // two bars a node: received (rebuilding nodes) and sent (helpers)
        List<BarChart.Bar> nb = new ArrayList<>();
        r.bytes().forEach((n, b) -> {
          if (n.startsWith("dn")) {
            nb.add(new BarChart.Bar(n + (n.equals(r.victim()) ? "\nkilled" : ""), b.rx() / MIB,
                String.format(Locale.ROOT, "%.0f", b.rx() / MIB), 0));
            nb.add(new BarChart.Bar("", b.tx() / MIB, String.format(Locale.ROOT, "%.0f", b.tx() / MIB), 1));
          }
        });
        Path p = Path.of(prefix + "-bytes-" + r.scenario().replace('+', '_') + ".png");
        BarChart.write(p, r.scenario() + " (rebuilt by " + r.engine() + "): MiB per DataNode during recovery ("
            + setting + ")", "MiB", nb, List.of("received", "sent"), 34, 8);
        files.add(p);
      }
    }
    for (FullNodeRecovery.Result r : report.recoveries()) {
      if (r.foreground() != null) {
        Path p = Path.of(prefix + "-foreground-" + r.scenario().replace('+', '_') + ".png");
        ForegroundChart.write(p, r.scenario() + ": foreground latency through a recovery under load (" + setting
            + ")", r.foreground().load());
        files.add(p);
      }
    }
    if (!report.reads().isEmpty()) {
      List<BarChart.Bar> bars = new ArrayList<>();
      for (DegradedRead.Result r : report.reads()) {
        bars.add(new BarChart.Bar(r.policy() + "\n" + r.client() + " client", r.degradedSeconds(),
            f2(r.degradedSeconds()) + " s", r.client().equals("stock") ? 1 : 0));
        bars.add(new BarChart.Bar("floor", readFloor(r), f2(readFloor(r)) + " s", 2));
      }
      Path p = Path.of(prefix + "-degraded-read.png");
      BarChart.write(p, "Degraded read of one lost block (" + setting + ")", "seconds", bars,
          List.of("hadoop-ec-repair client", "stock HDFS client", "client link floor"));
      files.add(p);
    }
    return files;
  }

  static String f1(double v) {
    return String.format(Locale.ROOT, "%.1f", v);
  }

  static String f2(double v) {
    return String.format(Locale.ROOT, "%.2f", v);
  }

  static String pct(double v) {
    return String.format(Locale.ROOT, "%+.1f%%", v * 100);
  }
}
