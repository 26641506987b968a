package io.ecrepair.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ecrepair.cli.Table;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The tables, JSON and charts of a run, built from synthetic results: each figure beside its peer and its floor. */
class ClusterReportTest {
  private static final long B = 16L << 20;
  /** One 16 MiB block at 100 Mbit/s. */
  private static final double BLOCK_SECONDS = B * 8 / 1e8;

  static FullNodeRecovery.Result recovery(String scenario, double repairSeconds, double measured, double theory,
                                          long plugin, long all, PlanBound.Busiest bound) {
    Map<String, NodeCounters.Bytes> bytes = new LinkedHashMap<>();
    bytes.put("dn0", new NodeCounters.Bytes(0, 0));
    bytes.put("dn1", new NodeCounters.Bytes(100L << 20, 5L << 20));
    List<FullNodeRecovery.LostBlock> lost = new ArrayList<>();
    for (int g = 0; g < 20; g++) {
      lost.add(new FullNodeRecovery.LostBlock(g, 3, 1003 + 16 * g, "dn1", true));
    }
    return new FullNodeRecovery.Result(scenario, Scenario.parse(scenario).policy(), 20, B, "dn0", lost, 11.0,
        repairSeconds, 11.0 + repairSeconds, bytes, plugin, all, theory, measured, measured, 1.0, 0.5,
        Map.of("dn1", 8.0, "dn2", 2.0), 0.3, 14.0, null, null, -1, bound,
        new FullNodeRecovery.GroupsShort(20, 25), null);
  }

  static FullNodeRecovery.Result rackRecovery(String scenario, double repairSeconds, RackLayout layout,
                                              double crossBlocks) {
    FullNodeRecovery.Result r = recovery(scenario, repairSeconds, 6, 6, 1, 1, null);
    return new FullNodeRecovery.Result(r.scenario(), r.policy(), 20, B, "dn0", r.lost(), 11.0, repairSeconds,
        11.0 + repairSeconds, r.bytes(), 1, 1, 6, 6, 6, 1.0, 0.5, Map.of(), 0, Double.NaN, layout, layout,
        (long) (crossBlocks * B), null, r.groupsShort(), null);
  }

  static DegradedRead.Result read(String policy, String client, double seconds) {
    return new DegradedRead.Result(policy, policy, client, "fs", B, 1.4, 17L << 20, seconds, 170L << 20, true, 10);
  }

  static SingleBlockRace.Result single(String scenario, String strategy, double seconds, double healthy) {
    return new SingleBlockRace.Result(scenario, Scenario.parse(scenario).policy(), strategy, 0, seconds, true, healthy,
        1.02, B, Map.of("dn1", new NodeCounters.Bytes(17L << 20, 0)), true, 0.4, Map.of("dn1", 1.5), "hdfs",
        Double.NaN);
  }

  static ClusterBenchmark.Report report(ClusterOptions cluster, List<FullNodeRecovery.Result> recoveries,
                                        List<DegradedRead.Result> reads, List<SingleBlockRace.Result> singles,
                                        List<DecommissionRace.Result> decommissions) {
    ClusterBenchmark.Settings settings = new ClusterBenchmark.Settings(cluster,
        Scenario.parseList(String.join(",", recoveries.isEmpty() ? List.of("RS-10-4-1024k")
            : recoveries.stream().map(FullNodeRecovery.Result::scenario).toList())),
        20, 20, true, true, false, null, Path.of("p.xml"), Path.of("cluster.sh"), Path.of("/tmp/x"), 1000);
    return new ClusterBenchmark.Report(settings, recoveries, reads, singles, decommissions, List.of("a note"));
  }

  private static final ClusterOptions FLAT = new ClusterOptions(17, 0, 100, 50, 100, B, "512m", Map.of());

  /** A default run: stock RS, RS through the plugin, central and parallel Clay, LRC; floors from their layouts. */
  static List<FullNodeRecovery.Result> defaultRun() {
    return List.of(
        recovery("RS-10-4-1024k", 30, 10.2, 10, 0, 20, new PlanBound.Busiest(20, 20, 1.3, "dn5 in")),
        recovery("RS-10-4-1024k+plugin", 10, 10.2, 10, 20, 20, new PlanBound.Busiest(3, 3, 1.2, "dn7 out")),
        recovery("CLAY-10-4-4096k+central", 12, 3.3, 3.25, 20, 20, new PlanBound.Busiest(6.5, 6.5, 1.4, "dn2 in")),
        recovery("CLAY-10-4-4096k", 7.5, 4.2, 4.0, 20, 20, new PlanBound.Busiest(6.5, 4.0, 1.1, "dn9 out")),
        recovery("LRC-L2-12-4-1024k", 20, 6.1, 6, 20, 20, null));
  }

  static String render(ClusterReport.Rows rows) {
    Table t = new Table(rows.header().toArray(new String[0]));
    rows.rows().forEach(r -> t.row(r.toArray()));
    StringWriter s = new StringWriter();
    t.print(new PrintWriter(s, true));
    return s.toString();
  }

  private static String cell(ClusterReport.Rows rows, int row, String column) {
    return rows.rows().get(row).get(rows.header().indexOf(column));
  }

  @Test
  void recoveriesShowTheLayoutsLinkFloorAndTheirPeer() {
    ClusterReport report = new ClusterReport(report(FLAT, defaultRun(), List.of(), List.of(), List.of()));
    ClusterReport.Rows rows = report.recoveries();
    System.out.println(render(rows));
    // Parallel Clay: its layout forces 4 blocks through dn9's uplink, 16 MiB each at 100 Mbit/s.
    assertEquals(String.format(Locale.ROOT, "%.1f", 4 * BLOCK_SECONDS), cell(rows, 3, "floor s"));
    assertEquals(String.format(Locale.ROOT, "%.2fx", 7.5 / (4 * BLOCK_SECONDS)), cell(rows, 3, "x floor"));
    assertEquals("dn9 out", cell(rows, 3, "busiest link"));
    assertEquals("4.00x", cell(rows, 3, "vs peer"), "stock RS's 30 s over 7.5 s, not the +plugin run's");
    assertEquals("-", cell(rows, 0, "vs peer"), "stock RS is the peer");
    assertEquals(20 * BLOCK_SECONDS, report.floorSeconds(defaultRun().get(0)), 1e-9);
    // A layout whose floor could not be worked out says so, never a made-up figure.
    assertEquals("-", cell(rows, 4, "floor s"));
    assertEquals("-", cell(rows, 4, "x floor"));
    assertEquals("+5.0%", cell(rows, 3, "dev"), "bytes against the code's theory stay in the table");
    assertTrue(rows.header().containsAll(List.of("repair s", "floor s", "x floor", "vs peer", "theory", "verified")));
  }

  @Test
  void aDefaultRunsFloorsComeFromItsLayout() {
    double[] seconds = {30, 14, 12, 7.5, 15, 16, 20};
    double[] received = {10.1, 10.2, 3.3, 4.2, 5.6, 6.6, 6.1};
    double[] theory = {10, 10, 3.25, 4.0, 5.5, 6.5, 6.0};
    List<FullNodeRecovery.Result> run = new ArrayList<>();
    String[] scenarios = Scenario.DEFAULTS.split(",");
    for (int i = 0; i < scenarios.length; i++) {
      boolean stock = Scenario.parse(scenarios[i]).isStockRs();
      run.add(recovery(scenarios[i], seconds[i], received[i], theory[i], stock ? 0 : 20, 20,
          FullNodeRecoveryTest.spreadLayout(scenarios[i])));
    }
    ClusterReport report = new ClusterReport(report(FLAT, run, List.of(), List.of(), List.of()));
    ClusterReport.Rows rows = report.recoveries();
    System.out.println(render(rows));
    for (int i = 0; i < run.size(); i++) {
      double floor = run.get(i).bound().best() * BLOCK_SECONDS;
      assertEquals(String.format(Locale.ROOT, "%.1f", floor), cell(rows, i, "floor s"), scenarios[i]);
      assertEquals(String.format(Locale.ROOT, "%.2fx", seconds[i] / floor), cell(rows, i, "x floor"), scenarios[i]);
    }
    assertEquals(20.0, run.get(0).bound().best(), 1e-9, "HDFS: dn14 rebuilds two blocks, ten blocks in for each");
  }

  @Test
  void theCostModelsPeerIsTheSameScenarioWithoutIt() {
    List<FullNodeRecovery.Result> rs = List.of(
        recovery("RS-10-4-1024k+plugin", 60, 10.2, 10, 20, 20, new PlanBound.Busiest(5, 5, 1, "dn1 in")),
        recovery("RS-10-4-1024k+plugin+costs", 40, 10.2, 10, 20, 20, new PlanBound.Busiest(5, 4, 1, "dn3 in")));
    ClusterReport report = new ClusterReport(report(FLAT, rs, List.of(), List.of(), List.of()));
    ClusterReport.Rows rows = report.recoveries();
    assertEquals("-", cell(rows, 0, "vs peer"), "no stock RS in this run");
    assertEquals("1.50x", cell(rows, 1, "vs peer"));
    assertEquals("RS-10-4-1024k+plugin", report.peer(rs.get(1)).scenario());
  }

  @Test
  void singlesReadsAndDecommissionsHaveTheirPeerAndFloor() {
    ClusterOptions slowClient = new ClusterOptions(17, 0, 100, 50, 50, B, "512m", Map.of(), List.of(4), 25);
    ClusterReport report = new ClusterReport(report(slowClient, List.of(),
        List.of(read("RS-10-4-1024k", "stock", 14), read("CLAY-10-4-4096k", "ec-repair", 7)),
        List.of(single("RS-10-4-1024k", "stock", 6, 1.4), single("CLAY-10-4-4096k", "pararc", 2, 1.4)),
        List.of(new DecommissionRace.Result("RS-10-4-1024k", "RS-10-4-1024k", 4, B, "dn3", 4, 7.2, true),
            new DecommissionRace.Result("CLAY-10-4-4096k", "CLAY-10-4-4096k", 4, B, "dn4", 4, 7.5, true))));
    ClusterReport.Rows singles = report.singles();
    assertEquals(String.format(Locale.ROOT, "%.2f", BLOCK_SECONDS), cell(singles, 1, "floor s"));
    assertEquals(String.format(Locale.ROOT, "%.2fx", 2 / BLOCK_SECONDS), cell(singles, 1, "x floor"));
    assertEquals("3.00x", cell(singles, 1, "vs RS"));
    assertEquals("-", cell(singles, 0, "vs RS"));
    ClusterReport.Rows reads = report.reads();
    // The client's link runs at 50 Mbit/s: one block takes twice as long as on a DataNode's.
    assertEquals(String.format(Locale.ROOT, "%.2f", 2 * BLOCK_SECONDS), cell(reads, 1, "floor s"));
    assertEquals("0.50x", cell(reads, 1, "vs RS stock"));
    ClusterReport.Rows decommissions = report.decommissions();
    assertEquals(String.format(Locale.ROOT, "%.1f", 4 * BLOCK_SECONDS), cell(decommissions, 0, "floor s"));
    assertEquals(String.format(Locale.ROOT, "%.1f", 4 * 4 * BLOCK_SECONDS), cell(decommissions, 1, "floor s"),
        "dn4 is slow: 25 Mbit/s");
    assertEquals(String.format(Locale.ROOT, "%.2fx", 7.5 / 7.2), cell(decommissions, 1, "x RS"));
  }

  @Test
  void racksKeepTheirPlacementColumns() {
    List<FullNodeRecovery.Result> recoveries = List.of(
        rackRecovery("RS-10-4-1024k", 90, new RackLayout(20, 3, 0, 4), 20 * 9.0),
        rackRecovery("LRC-L2-12-4-1024k+hdfs-placement", 50, new RackLayout(20, 3, 0, 3), 20 * 4.5),
        rackRecovery("LRC-L2-12-4-1024k", 28, new RackLayout(20, 3, 20, 3), 20 * 2.4));
    ClusterReport.Rows rows = new ClusterReport(report(new ClusterOptions(17, 4, 100, 50, 100, B, "512m", Map.of()),
        recoveries, List.of(), List.of(), List.of())).recoveries();
    assertEquals("combined-locality", cell(rows, 2, "placement"));
    assertEquals("20/20", cell(rows, 2, "combined as written"));
    assertEquals("2.40", cell(rows, 2, "cross-rack/block"));
    assertEquals("3", cell(rows, 2, "most in a rack"));
    assertEquals(String.format(Locale.ROOT, "%.2fx", 90 / 28.0), cell(rows, 2, "vs peer"));
  }

  @Test
  void cpuPerBlockComesFromTheDataNodesOwnAccounting() throws Exception {
    FullNodeRecovery.Result r = recovery("CLAY-10-4-4096k", 12, 4.0, 3.25, 20, 20, null);
    assertEquals(10.0 / 20, r.cpuSecondsPerRebuiltBlock(), 1e-9);
    assertEquals(10.0 / (4.0 * 20), r.cpuSecondsPerBlockMoved(), 1e-9);
    ClusterReport report = new ClusterReport(report(FLAT, List.of(r), List.of(), List.of(), List.of()));
    ClusterReport.Rows rows = report.recoveries();
    assertEquals("0.50", rows.rows().get(0).get(rows.header().indexOf("CPU s/block")));
    assertEquals("0.13", rows.rows().get(0).get(rows.header().indexOf("CPU s/moved")));
    @SuppressWarnings("unchecked")
    Map<String, Object> m = (Map<String, Object>) ((List<?>) report.json(List.of()).get("results")).get(0);
    assertEquals(Map.of("dn1", 8.0, "dn2", 2.0), m.get("cpuSeconds"));
    assertEquals(0.5, (double) m.get("cpuSecondsPerRebuiltBlock"), 1e-9);
    assertEquals(0.3, (double) m.get("idleClusterCpuPerSecond"), 1e-9);
    assertEquals(14.0, (double) m.get("hostBusyCpuSeconds"), 1e-9);
    FullNodeRecovery.Result unmeasured = rackRecovery("RS-10-4-1024k", 90, new RackLayout(20, 3, 0, 4), 1);
    assertTrue(Double.isNaN(unmeasured.cpuSecondsPerRebuiltBlock()));
    Map<?, ?> none = (Map<?, ?>) ((List<?>) new ClusterReport(report(FLAT, List.of(unmeasured), List.of(), List.of(),
        List.of())).json(List.of()).get("results")).get(0);
    assertFalse(none.containsKey("cpuSecondsPerRebuiltBlock"), "an unmeasured recovery has no CPU figures");
  }

  @Test
  void engineFromTaskCounters() {
    assertEquals("hdfs", recovery("RS-6-3-1024k", 1, 1, 1, 0, 4, null).engine());
    assertEquals("ec-repair", recovery("RS-6-3-1024k", 1, 1, 1, 4, 4, null).engine());
    assertEquals("mixed", recovery("RS-6-3-1024k", 1, 1, 1, 2, 4, null).engine());
    assertEquals("none", recovery("RS-6-3-1024k", 1, 1, 1, 0, 0, null).engine());
  }

  @Test
  void jsonHasTheBenchShapeAndAFloorPerRecovery() throws Exception {
    List<FullNodeRecovery.Result> run = defaultRun();
    ClusterBenchmark.Report r = report(FLAT, run, List.of(read("RS-10-4-1024k", "stock", 14)),
        List.of(single("CLAY-10-4-4096k", "pararc", 2.0, 1.5)), List.of());
    JsonNode json = new ObjectMapper().valueToTree(new ClusterReport(r).json(List.of()));
    JsonNode results = json.path("results");
    JsonNode clay = results.get(3);
    for (String key : List.of("suite", "codec", "k", "m", "op", "impl", "threads", "cellBytes", "mbPerSec")) {
      assertTrue(clay.has(key), key);
    }
    assertEquals("cluster", clay.path("suite").asText());
    assertEquals("pararc", clay.path("strategy").asText(), "a Clay scenario without +central runs parallel plans");
    assertEquals("ec-repair-plugin", clay.path("impl").asText());
    assertEquals(20.0 * B / 7.5 / 1e6, clay.path("mbPerSec").asDouble(), 1e-9);
    assertEquals(100L << 20, clay.path("nodes").path("dn1").path("rxBytes").asLong());
    assertEquals(4 * BLOCK_SECONDS, clay.path("floorSeconds").asDouble(), 1e-9);
    assertEquals(7.5 / (4 * BLOCK_SECONDS), clay.path("timeOverFloor").asDouble(), 1e-9);
    assertEquals("dn9 out", clay.path("floorBusiestLink").asText());
    assertEquals("RS-10-4-1024k", clay.path("peerScenario").asText());
    assertEquals(4.0, clay.path("peerSpeedup").asDouble(), 1e-9);
    assertEquals(6.5 / 4.0, clay.path("planBound").path("linkBoundGainOverCentral").asDouble(), 1e-9);
    assertTrue(results.get(0).has("floorSeconds") && !results.get(0).has("planBound"), "RS has no plans");
    assertTrue(results.get(4).path("floorSeconds").isNull(), "LRC's floor unknown here: null, not a number");
    JsonNode read = results.get(5);
    assertEquals("degraded-read", read.path("op").asText());
    assertEquals("hdfs-stock-client", read.path("impl").asText());
    assertEquals(BLOCK_SECONDS, read.path("floorSeconds").asDouble(), 1e-9);
    assertEquals(BLOCK_SECONDS, results.get(6).path("floorSeconds").asDouble(), 1e-9);
    assertEquals("a note", json.path("notes").get(0).asText());
    assertFalse(json.has("bars"));
  }

  @Test
  void nothingShownNamesAThresholdToMeet() throws Exception {
    ClusterReport report = new ClusterReport(report(FLAT, defaultRun(), List.of(read("RS-10-4-1024k", "stock", 14)),
        List.of(single("CLAY-10-4-4096k", "pararc", 2.0, 1.5)), List.of()));
    String shown = render(report.recoveries()) + render(report.singles()) + render(report.reads())
        + render(report.decommissions()) + new ObjectMapper().writeValueAsString(report.json(List.of()));
    for (String word : List.of("bar", "required", "pass", "FAIL", "target", "issue")) {
      assertFalse(shown.toLowerCase(Locale.ROOT).contains(word.toLowerCase(Locale.ROOT)), word + " in " + shown);
    }
  }

  @Test
  void theRecoveryChartHasAFloorBesideEachTime(@TempDir Path dir) throws Exception {
    ClusterReport report = new ClusterReport(report(FLAT, defaultRun(), List.of(), List.of(), List.of()));
    List<Path> charts = report.writeCharts(dir.resolve("run").toString());
    Path time = dir.resolve("run-recovery-time.png");
    assertTrue(charts.contains(time));
    java.awt.image.BufferedImage img = javax.imageio.ImageIO.read(time.toFile());
    // 5 times and 4 floors (LRC's unknown), 150 px each, beside the 80 px axis and a 40 px gap
    assertEquals(80 + 9 * 150 + 40, img.getWidth());
    assertTrue(Files.size(time) > 0);
  }

  /** A recovery of 10 s quiet and 12 s under load, whose reads took 20 ms before and 40 ms during it. */
  static FullNodeRecovery.Result withForeground() {
    FullNodeRecovery.Result quiet = recovery("CLAY-10-4-4096k", 10, 4, 4, 20, 20, null);
    List<ForegroundOps.Op> ops = new ArrayList<>();
    long kill = 100_000;
    for (int i = 0; i < 150; i++) {
      ops.add(new ForegroundOps.Op(kill - 15_000 + i * 100, ForegroundOps.Kind.READ, 20, 1_000_000, "ok"));
      ops.add(new ForegroundOps.Op(kill + 16_000 + i * 80, ForegroundOps.Kind.READ, 40, 1_000_000, "ok"));
      ops.add(new ForegroundOps.Op(kill + 28_000 + i * 100, ForegroundOps.Kind.READ, 25, 1_000_000, "ok"));
    }
    ops.add(new ForegroundOps.Op(kill + 20_000, ForegroundOps.Kind.WRITE, 300, 2_000_000, "failed:IOException"));
    ForegroundLoad.Result load = new ForegroundLoad.Result(2.5, 1.25,
        ForegroundOps.window(ops, kill - 15_000, kill), ForegroundOps.window(ops, kill + 16_000, kill + 28_000),
        ForegroundOps.window(ops, kill + 28_000, kill + 43_000), ops, kill, kill + 16_000, kill + 28_000, 1, 0);
    return quiet.withForeground(new FullNodeRecovery.Foreground(12, new FullNodeRecovery.GroupsShort(22, 28), true,
        0.05, load));
  }

  @Test
  void theForegroundShowsWhatClientsSawBesideTheQuietRepair(@TempDir Path dir) throws Exception {
    ClusterReport report = new ClusterReport(report(FLAT, List.of(recovery("RS-10-4-1024k", 30, 10, 10, 0, 20, null),
        withForeground()), List.of(), List.of(), List.of()));
    ClusterReport.Rows rows = report.foreground();
    assertEquals(1, rows.rows().size(), "only the recoveries run under load");
    assertEquals("10.0 / 12.0", cell(rows, 0, "repair s quiet / load"));
    assertEquals("1.20x", cell(rows, 0, "x quiet"));
    assertEquals("20 / 40 / 25", cell(rows, 0, "read p99 ms"));
    assertEquals("2.00x", cell(rows, 0, "p99 during x before"));
    assertEquals("1", cell(rows, 0, "failed ops"));
    assertEquals("22.0 / 28.0", cell(rows, 0, "short s mean / max"));
    assertEquals("5% SATURATED", cell(rows, 0, "CPU idle"), "a run bound by the host's CPU says so");
    assertEquals("-", cell(rows, 0, "sent LE"), "links that do not tell Lower Effort apart");
    JsonNode json = new ObjectMapper().valueToTree(report.json(List.of()));
    assertTrue(json.path("results").get(1).path("lowerEffortShare").isNull());
    assertFalse(json.path("results").get(0).has("foreground"));
    JsonNode f = json.path("results").get(1).path("foreground");
    assertEquals(20.0, f.path("before").path("readP99Ms").asDouble());
    assertEquals(40.0, f.path("during").path("readP999Ms").asDouble());
    assertEquals(150 * 1e6 / 12 / 1e6, f.path("during").path("readMBps").asDouble(), 1e-9);
    assertEquals(1, f.path("during").path("failed").asInt());
    assertTrue(f.path("during").path("writeP50Ms").isNumber(), "the failed write's time counts");
    assertTrue(f.path("after").path("writeP99Ms").isNull(), "no write in that window: null, not a number");
    assertEquals(1.2, f.path("repairSlowdown").asDouble(), 1e-9);
    assertTrue(f.path("cpuSaturated").asBoolean());
    assertEquals(28.0, f.path("groupSecondsShortOfRedundancy").path("max").asDouble());
    assertEquals(25.0, json.path("results").get(1).path("groupSecondsShortOfRedundancy").path("max").asDouble());
    List<Path> charts = report.writeCharts(dir.resolve("run").toString());
    Path chart = dir.resolve("run-foreground-CLAY-10-4-4096k.png");
    assertTrue(charts.contains(chart));
    assertTrue(javax.imageio.ImageIO.read(chart.toFile()).getWidth() > 0);
  }
}
