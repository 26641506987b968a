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
        && !r.scenario().endsWith("+plugin")).findFirst().orElse(null);
  }

  private boolean racked() {
    return report.recoveries().stream().anyMatch(r -> r.crossRackBytes() >= 0);
  }

  public Rows recoveries() {
    List<List<String>> rows = new ArrayList<>();
    FullNodeRecovery.Result base = stockRs();
    boolean racks = racked();
    for (FullNodeRecovery.Result r : report.recoveries()) {
      List<String> row = new ArrayList<>(List.of(r.scenario(), r.engine(), r.victim(), Integer.toString(r.lost().size()),
          f1(r.detectSeconds()), f1(r.repairSeconds()),
          base == null ? "-" : f2(base.repairSeconds() / r.repairSeconds()) + "x",
          f2(r.measuredBlocks()), f2(r.theoryBlocks()), pct(r.measuredBlocks() / r.theoryBlocks() - 1),
          f2(r.maxLoadBlocks()), idle(r.cpuIdleShare()), r.verified() ? "yes" : "NO"));
      if (racks) {
        row.addAll(List.of(Scenario.parse(r.scenario()).placement(), r.written().combinedGroups() + "/"
            + r.written().groups(), r.rebuilt().combinedGroups() + "/" + r.rebuilt().groups(),
            f2(r.crossRackBlocksPerRebuiltBlock()), Integer.toString(r.mostInOneRack())));
      }
      rows.add(row);
    }
    List<String> header = new ArrayList<>(List.of("scenario", "rebuilt by", "killed", "blocks", "detect s", "repair s",
        "vs RS", "recv/block", "theory", "dev", "max load", "CPU idle", "verified"));
    if (racks) {
      header.addAll(List.of("placement", "combined as written", "after", "cross-rack/block", "most in a rack"));
    }
    return new Rows(header, rows);
  }

  /** The decommissionings: one DataNode leaving per scenario, beside stock RS-10-4's. */
  public Rows decommissions() {
    DecommissionRace.Result rs = report.decommissions().stream()
        .filter(d -> d.policy().startsWith("RS-10-4-") && !d.scenario().endsWith("+plugin")).findFirst().orElse(null);
    List<List<String>> rows = new ArrayList<>();
    for (DecommissionRace.Result d : report.decommissions()) {
      rows.add(List.of(d.scenario(), d.node(), Integer.toString(d.blocks()), f1(d.seconds()),
          rs == null ? "-" : f2(d.seconds() / rs.seconds()) + "x", d.verified() ? "yes" : "NO"));
    }
    return new Rows(List.of("scenario", "decommissioned", "blocks", "seconds", "x RS", "verified"), rows);
  }

  /** The single-block races: one block rebuilt on an idle cluster against one healthy block read. */
  public Rows singles() {
    List<List<String>> rows = new ArrayList<>();
    boolean racks = racked();
    for (SingleBlockRace.Result r : report.singles()) {
      List<String> row = new ArrayList<>(List.of(r.scenario(), r.strategy(), Integer.toString(r.lostIndex()),
          f2(r.seconds()) + (r.taskTimed() ? "" : " (NN)"), f2(r.healthySeconds()), f2(r.ratio()) + "x",
          f2(r.maxLoadBlocks()), idle(r.cpuIdleShare()), r.verified() ? "yes" : "NO"));
      if (racks) {
        row.addAll(List.of(r.placement(), f2(r.crossRackBlocks())));
      }
      rows.add(row);
    }
    List<String> header = new ArrayList<>(List.of("scenario", "strategy", "lost", "repair s", "healthy read s",
        "x healthy", "busiest recv (blocks)", "CPU idle", "verified"));
    if (racks) {
      header.addAll(List.of("placement", "cross-rack blocks"));
    }
    return new Rows(header, rows);
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
      rows.add(List.of(r.policy() + (r.blocksRead() > 1 ? " (whole group)" : ""),
          r.client() + (r.costModel() ? " +costs" : ""), f2(r.healthySeconds()), f2(r.degradedSeconds()),
          f2(r.slowdown()) + "x",
          base == null ? "-" : f2(r.degradedSeconds() / base.degradedSeconds()) + "x", f2(r.fetchedBlocks()),
          f2(r.theoryBlocks()), r.verified() ? "yes" : "NO"));
    }
    return new Rows(List.of("policy", "client", "healthy s", "degraded s", "x healthy", "vs RS stock",
        "fetched blocks", "theory", "verified"), rows);
  }

  public Rows bars() {
    List<List<String>> rows = new ArrayList<>();
    for (Bars.Bar b : report.bars()) {
      rows.add(List.of(b.name(), b.measured() == null ? "-" : f2(b.measured()), b.required(), b.result(), b.note()));
    }
    return new Rows(List.of("bar", "measured", "required", "result", "note"), rows);
  }

  /**
   * {"results": [...]} in the bench shape of docs/architecture.md#command-line-contract (suite "cluster"),
   * with the run's settings and bars.
   */
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
      if (r.bound() != null) {
        m.put("planBound", Map.of("centralBusiestBlocks", r.bound().central(), "bestChoiceBusiestBlocks",
            r.bound().best(), "linkBoundGainOverCentral", r.bound().gain(), "bestChoiceBalance",
            r.bound().bestBalance()));
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
      m.put("fetchedBlocks", r.fetchedBlocks());
      m.put("theoryBlocks", r.theoryBlocks());
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
      m.put("healthySeconds", r.healthySeconds());
      m.put("maxLoadBlocks", r.maxLoadBlocks());
      m.put("blockBytes", r.blockBytes());
      m.put("cpuIdleShare", Double.isNaN(r.cpuIdleShare()) ? null : r.cpuIdleShare());
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
      m.put("verified", d.verified());
      results.add(m);
    }
    List<Object> bars = new ArrayList<>();
    for (Bars.Bar b : report.bars()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("bar", b.name());
      m.put("measured", b.measured());
      m.put("required", b.required());
      m.put("result", b.result());
      m.put("note", b.note());
      bars.add(m);
    }
    ClusterOptions c = report.settings().cluster();
    Map<String, Object> cluster = new LinkedHashMap<>();
    cluster.put("dataNodes", c.dataNodes());
    cluster.put("racks", c.racks());
    cluster.put("rateMbit", c.rateMbit());
    cluster.put("rackRateMbit", c.rackRateMbit());
    cluster.put("clientRateMbit", c.clientRateMbit());
    cluster.put("slowNodes", c.slowNodes().stream().map(i -> "dn" + i).toList());
    cluster.put("slowRateMbit", c.slowNodes().isEmpty() ? null : c.slowRateMbit());
    cluster.put("blockBytes", c.blockSize());
    cluster.put("groups", report.settings().groups());
    cluster.put("warmupGroups", report.settings().warmupGroups());
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("results", results);
    j.put("bars", bars);
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
      }
      Path time = Path.of(prefix + "-recovery-time.png");
      BarChart.write(time, "Full-node recovery time (" + setting + ")", "seconds", bars,
          List.of("rebuilt by hadoop-ec-repair", "rebuilt by HDFS (stock)"));
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
    if (!report.reads().isEmpty()) {
      List<BarChart.Bar> bars = new ArrayList<>();
      for (DegradedRead.Result r : report.reads()) {
        bars.add(new BarChart.Bar(r.policy() + "\n" + r.client() + " client", r.degradedSeconds(),
            f2(r.degradedSeconds()) + " s", r.client().equals("stock") ? 1 : 0));
      }
      Path p = Path.of(prefix + "-degraded-read.png");
      BarChart.write(p, "Degraded read of one lost block (" + setting + ")", "seconds", bars,
          List.of("hadoop-ec-repair client", "stock HDFS client"));
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
