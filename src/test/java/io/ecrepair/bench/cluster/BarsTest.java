package io.ecrepair.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BarsTest {
  static FullNodeRecovery.Result recovery(String scenario, String policy, double repairSeconds, double measured,
                                          double theory, long plugin, long all) {
    Map<String, NodeCounters.Bytes> bytes = new LinkedHashMap<>();
    bytes.put("dn0", new NodeCounters.Bytes(0, 0));
    bytes.put("dn1", new NodeCounters.Bytes(100L << 20, 5L << 20));
    return new FullNodeRecovery.Result(scenario, policy, 20, 16L << 20, "dn0",
        List.of(new FullNodeRecovery.LostBlock(0, 3, 1003, "dn1", true)), 11.0, repairSeconds, 11.0 + repairSeconds,
        bytes, plugin, all, theory, measured, measured, 1.0, 0.5, null, null, -1, null);
  }

  /** A recovery on racks: 20 rebuilt 16 MiB blocks, {@code crossBlocks} blocks crossing racks in all. */
  static FullNodeRecovery.Result rackRecovery(String scenario, double repairSeconds, RackLayout layout,
                                              double crossBlocks) {
    FullNodeRecovery.Result r = recovery(scenario, scenario.replace("+hdfs-placement", ""), repairSeconds, 6, 6, 1, 1);
    List<FullNodeRecovery.LostBlock> lost = new java.util.ArrayList<>();
    for (int i = 0; i < 20; i++) {
      lost.add(new FullNodeRecovery.LostBlock(i, 3, 1003 + 16 * i, "dn1", true));
    }
    return new FullNodeRecovery.Result(r.scenario(), r.policy(), 20, 16L << 20, "dn0", lost, 11.0, repairSeconds,
        11.0 + repairSeconds, r.bytes(), 1, 1, 6, 6, 6, 1.0, 0.5, layout, layout, (long) (crossBlocks * (16L << 20)),
        null);
  }

  static DegradedRead.Result read(String policy, String client, double seconds) {
    return new DegradedRead.Result(policy, policy, client, "fs", 16L << 20, 1.4, 17L << 20, seconds, 170L << 20, true,
        10);
  }

  @Test
  void speedupsAgainstStockRsAndBytesAgainstTheory() {
    List<FullNodeRecovery.Result> rs = List.of(
        recovery("RS-10-4-1024k", "RS-10-4-1024k", 30, 10.2, 10, 0, 18),
        recovery("RS-10-4-1024k+plugin", "RS-10-4-1024k", 10, 10.2, 10, 0, 18),
        recovery("CLAY-10-4-1024k+central", "CLAY-10-4-1024k", 12, 3.3, 3.25, 18, 18),
        recovery("CLAY-10-4-1024k", "CLAY-10-4-1024k", 7.5, 4.2, 4.0, 18, 18),
        recovery("LRC-L2-12-4-1024k", "LRC-L2-12-4-1024k", 20, 6.1, 6, 18, 18));
    List<Bars.Bar> bars = Bars.check(rs, List.of(read("RS-10-4-1024k", "stock", 14),
        read("CLAY-10-4-1024k", "ec-repair", 5)));
    Bars.Bar clay = bars.get(0);
    assertEquals(4.0, clay.measured(), 1e-9, "parallel Clay against the stock RS run, not the +plugin one");
    assertTrue(clay.pass());
    Bars.Bar vsCentral = bars.get(2);
    assertEquals(1.6, vsCentral.measured(), 1e-9, "parallel against central Clay");
    assertTrue(vsCentral.pass());
    Bars.Bar lrc = bars.get(1);
    assertEquals(1.5, lrc.measured(), 1e-9);
    assertFalse(lrc.pass());
    Bars.Bar clayBytes = bars.stream().filter(b -> b.name().endsWith("CLAY-10-4-1024k")).findFirst().orElseThrow();
    assertFalse(clayBytes.pass(), "4.2 is 5% over 4.0");
    Bars.Bar rsBytes = bars.stream().filter(b -> b.name().endsWith(", RS-10-4-1024k")).findFirst().orElseThrow();
    assertTrue(rsBytes.pass());
    Bars.Bar degraded = bars.get(bars.size() - 1);
    assertEquals(5.0 / 14, degraded.measured(), 1e-9);
    assertTrue(degraded.pass());
  }

  @Test
  void degradedReadsThroughOurClientAgainstAHealthyRead() {
    DegradedRead.Result slow = read("CLAY-10-4-1024k", "ec-repair", 5);
    DegradedRead.Result near = new DegradedRead.Result("RS-10-4-1024k", "RS-10-4-1024k", "ec-repair", "fs", 16L << 20,
        1.4, 17L << 20, 1.6, 17L << 20, true, 1, 1, false, "pipeline");
    List<Bars.Bar> bars = Bars.check(List.of(), List.of(slow, near, read("RS-10-4-1024k", "stock", 14)));
    Bars.Bar clayTime = bar(bars, "degraded read / healthy read, our client, CLAY-10-4-1024k");
    assertEquals(5 / 1.4, clayTime.measured(), 1e-9);
    assertFalse(clayTime.pass());
    assertFalse(bar(bars, "client received per degraded block, CLAY-10-4-1024k").pass(), "170 MiB for a 16 MiB block");
    Bars.Bar rsTime = bar(bars, "degraded read / healthy read, our client, RS-10-4-1024k");
    assertEquals(1.6 / 1.4, rsTime.measured(), 1e-9);
    assertTrue(rsTime.pass());
    assertEquals(17.0 / 16, bar(bars, "client received per degraded block, RS-10-4-1024k").measured(), 1e-9);
    assertTrue(bar(bars, "client received per degraded block, RS-10-4-1024k").pass());
    assertTrue(bars.stream().noneMatch(b -> b.name().contains("our client") && b.note().contains("stock")),
        "the stock client's read has no such bar");
  }

  private static Bars.Bar bar(List<Bars.Bar> bars, String name) {
    return bars.stream().filter(b -> b.name().equals(name)).findFirst().orElseThrow(() -> new AssertionError(name));
  }

  @Test
  void missingResultsAreNotMeasuredNeverPassed() {
    List<Bars.Bar> bars = Bars.check(List.of(recovery("CLAY-10-4-1024k", "CLAY-10-4-1024k", 10, 3.25, 3.25, 1, 1)),
        List.of());
    assertNull(bars.get(0).pass());
    assertEquals("not measured", bars.get(0).result());
    assertNull(bars.get(bars.size() - 1).pass());
  }

  static SingleBlockRace.Result single(String scenario, String strategy, double seconds, double healthy, double load) {
    return new SingleBlockRace.Result(scenario, scenario.replace("+plugin", ""), strategy, 0, seconds, true, healthy,
        load, 16L << 20, Map.of("dn1", new NodeCounters.Bytes(17L << 20, 0)), true, 0.4, "hdfs", Double.NaN);
  }

  @Test
  void racksCompareCombinedLocalityWithHdfsPlacementAndStockRs() {
    RackLayout combined = new RackLayout(20, 3, 20, 3);
    RackLayout hdfs = new RackLayout(20, 3, 0, 3);
    List<FullNodeRecovery.Result> recoveries = List.of(
        rackRecovery("RS-10-4-1024k", 90, new RackLayout(20, 3, 0, 4), 20 * 9.0),
        rackRecovery("LRC-L2-12-4-1024k+hdfs-placement", 50, hdfs, 20 * 4.5),
        rackRecovery("LRC-L2-12-4-1024k", 28, combined, 20 * 2.4));
    List<SingleBlockRace.Result> singles = List.of(
        new SingleBlockRace.Result("LRC-L2-12-4-1024k+hdfs-placement", "LRC-L2-12-4-1024k", "pipeline", 0, 9, true, 3,
            1, 16L << 20, Map.of(), true, 0.5, "hdfs", 4.0),
        new SingleBlockRace.Result("LRC-L2-12-4-1024k", "LRC-L2-12-4-1024k", "pipeline", 0, 5, true, 3, 1,
            16L << 20, Map.of(), true, 0.5, "combined-locality", 2.0));
    List<Bars.Bar> bars = Bars.check(recoveries, List.of(), singles);
    Map<String, Bars.Bar> byName = new java.util.HashMap<>();
    bars.forEach(b -> byName.put(b.name(), b));
    Bars.Bar cross = byName.get("cross-rack blocks per repaired LRC(12,2,2) data block, combined locality");
    assertEquals(2.0, cross.measured(), 1e-9);
    assertTrue(cross.pass(), cross.note());
    assertTrue(cross.note().contains("4.00"), "HDFS's placement beside it: " + cross.note());
    Bars.Bar vsRs = byName.get("full-node recovery LRC(12,2,2) combined locality vs stock RS-10-4 (racks)");
    assertEquals(90 / 28.0, vsRs.measured(), 1e-9);
    assertTrue(vsRs.pass());
    Bars.Bar vsHdfs = byName.get("full-node recovery LRC(12,2,2) combined locality vs HDFS's placement");
    assertEquals(50 / 28.0, vsHdfs.measured(), 1e-9);
    assertTrue(vsHdfs.pass());
    assertTrue(byName.get("every group written with combined locality, LRC-L2-12-4-1024k").pass());
    assertTrue(byName.get("most blocks of a group in one rack (before and after), LRC-L2-12-4-1024k").pass());
    assertEquals(2.4, recoveries.get(2).crossRackBlocksPerRebuiltBlock(), 1e-9);

    // A NameNode that fell back, or a rack holding more than f blocks of a group, fails.
    List<Bars.Bar> bad = Bars.check(List.of(rackRecovery("LRC-L2-12-4-1024k", 28, new RackLayout(20, 4, 0, 3), 60)),
        List.of(), List.of());
    bad.forEach(b -> byName.put(b.name(), b));
    assertFalse(byName.get("every group written with combined locality, LRC-L2-12-4-1024k").pass());
    assertFalse(byName.get("most blocks of a group in one rack (before and after), LRC-L2-12-4-1024k").pass());
    assertNull(byName.get("cross-rack blocks per repaired LRC(12,2,2) data block, combined locality").pass(),
        "no single-block race: not measured");
  }

  @Test
  void singleBlockRacesAgainstAHealthyRead() {
    List<Bars.Bar> bars = Bars.check(List.of(), List.of(), List.of(
        single("CLAY-10-4-4096k", "pararc", 1.8, 1.4, 1.02),
        single("CLAY-10-4-4096k+central", "central", 4.0, 1.4, 3.3),
        single("LRC-L2-12-4-1024k", "pipeline", 2.0, 1.4, 1.0)));
    Bars.Bar clay = bars.stream().filter(b -> b.name().equals("single-block repair / healthy read, CLAY-10-4-4096k"))
        .findFirst().orElseThrow();
    assertEquals(1.8 / 1.4, clay.measured(), 1e-9);
    assertTrue(clay.pass(), "1.29x is within 1.5x");
    assertTrue(bars.stream().anyMatch(b -> b.name().startsWith("single-block repair, busiest") && b.pass()), "1.02 blocks is within 1.1");
    assertTrue(bars.stream().noneMatch(b -> b.name().endsWith("+central")), "central Clay has no single-block bar");
    Bars.Bar lrc = bars.stream().filter(b -> b.name().endsWith("LRC-L2-12-4-1024k")).findFirst().orElseThrow();
    assertFalse(lrc.pass(), "1.43x is over 1.3x");
  }

  @Test
  void costModelRacesOnSlowDataNodes() {
    List<FullNodeRecovery.Result> rs = List.of(
        recovery("RS-10-4-1024k+plugin", "RS-10-4-1024k", 60, 10.2, 10, 18, 18),
        recovery("RS-10-4-1024k+plugin+costs", "RS-10-4-1024k", 40, 10.2, 10, 18, 18));
    DegradedRead.Result without = new DegradedRead.Result("CLAY-10-4-4096k-costs", "CLAY-10-4-4096k", "ec-repair", "fs",
        16L << 20, 1.4, 17L << 20, 20, 170L << 20, true, 1, 10, false);
    DegradedRead.Result with = new DegradedRead.Result("CLAY-10-4-4096k-costs", "CLAY-10-4-4096k", "ec-repair", "fs",
        16L << 20, 1.4, 17L << 20, 18, 170L << 20, true, 1, 10, true);
    List<Bars.Bar> bars = Bars.check(rs, List.of(without, with));
    Bars.Bar recovery = bars.stream().filter(b -> b.name().startsWith("full-node recovery RS-10-4 through the plugin"))
        .findFirst().orElseThrow();
    assertEquals(1.5, recovery.measured(), 1e-9);
    assertTrue(recovery.pass());
    Bars.Bar clay = bars.stream().filter(b -> b.name().startsWith("degraded read CLAY-10-4")).findFirst().orElseThrow();
    assertEquals(20.0 / 18, clay.measured(), 1e-9);
    assertFalse(clay.pass(), "1.11x is short of 1.25x");
    Bars.Bar rsRead = bars.stream().filter(b -> b.name().startsWith("degraded read RS-10-4")).findFirst().orElseThrow();
    assertNull(rsRead.pass(), "not run, never passed");
    assertTrue(bars.stream().noneMatch(b -> b.name().contains("vs stock RS-10-4")), "no homogeneous-cluster bars");
    assertEquals(1.0 / 10 * 10.625, without.fetchedBlocks(), 1e-9, "170 MiB for ten 16 MiB blocks");
  }

  @Test
  void engineFromTaskCounters() {
    assertEquals("hdfs", recovery("a", "RS-6-3-1024k", 1, 1, 1, 0, 4).engine());
    assertEquals("ec-repair", recovery("a", "RS-6-3-1024k", 1, 1, 1, 4, 4).engine());
    assertEquals("mixed", recovery("a", "RS-6-3-1024k", 1, 1, 1, 2, 4).engine());
    assertEquals("none", recovery("a", "RS-6-3-1024k", 1, 1, 1, 0, 0).engine());
  }

  @Test
  void jsonHasTheBenchShape() throws Exception {
    FullNodeRecovery.Result r = recovery("CLAY-10-4-1024k", "CLAY-10-4-1024k", 10, 3.3, 3.25, 1, 1);
    ClusterBenchmark.Settings settings = new ClusterBenchmark.Settings(
        new ClusterOptions(17, 0, 100, 50, 100, 16L << 20, "512m", Map.of()),
        Scenario.parseList("CLAY-10-4-1024k"), 20, 20, true, true, false, java.nio.file.Path.of("p.xml"),
        java.nio.file.Path.of("cluster.sh"), java.nio.file.Path.of("/tmp/x"), 1000);
    SingleBlockRace.Result one = single("CLAY-10-4-1024k", "pararc", 2.0, 1.5, 1.05);
    ClusterBenchmark.Report report = new ClusterBenchmark.Report(settings, List.of(r),
        List.of(read("RS-10-4-1024k", "stock", 14)), List.of(one), List.of(), List.of("a note"),
        Bars.check(List.of(r), List.of(), List.of(one)));
    var json = new ObjectMapper().valueToTree(new ClusterReport(report).json(List.of()));
    var first = json.path("results").get(0);
    for (String key : List.of("suite", "codec", "k", "m", "op", "impl", "threads", "cellBytes", "mbPerSec")) {
      assertTrue(first.has(key), key);
    }
    assertEquals("cluster", first.path("suite").asText());
    assertEquals("pararc", first.path("strategy").asText(), "a Clay scenario without +central runs parallel plans");
    assertEquals("ec-repair-plugin", first.path("impl").asText());
    assertEquals(16.0 * (1 << 20) / 10 / 1e6, first.path("mbPerSec").asDouble(), 1e-9);
    assertEquals(100L << 20, first.path("nodes").path("dn1").path("rxBytes").asLong());
    assertEquals("degraded-read", json.path("results").get(1).path("op").asText());
    assertEquals("hdfs-stock-client", json.path("results").get(1).path("impl").asText());
    assertEquals("stock", json.path("results").get(1).path("strategy").asText());
    assertEquals("a note", json.path("notes").get(0).asText());
  }
}
