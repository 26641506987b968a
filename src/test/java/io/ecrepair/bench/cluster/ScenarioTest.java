package io.ecrepair.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ScenarioTest {
  @Test
  void defaultsAreSevenScenariosCentralAndParallelClayAndButterflyAmongThem() {
    List<Scenario> s = Scenario.parseList(Scenario.DEFAULTS);
    assertEquals(7, s.size());
    assertTrue(s.get(0).isStockRs());
    assertEquals("stock", s.get(0).strategy());
    assertTrue(s.get(1).pluginRebuildsRs());
    assertFalse(s.get(1).isStockRs());
    assertEquals("pipeline", s.get(1).strategy());
    assertEquals("RS-10-4-1024k_plugin", Scenario.pathName(s.get(1).name()));
    assertEquals("clay", s.get(2).codec());
    assertEquals("central", s.get(2).strategy());
    assertEquals("false", s.get(2).dataNodeConf().get(Scenario.PARALLEL_KEY));
    assertEquals("clay", s.get(3).codec());
    assertEquals("pararc", s.get(3).strategy());
    assertEquals("butterfly", s.get(4).codec());
    assertEquals("central", s.get(4).strategy());
    assertEquals("false", s.get(4).dataNodeConf().get(Scenario.PARALLEL_KEY));
    assertEquals("butterfly", s.get(5).codec());
    assertEquals("pararc", s.get(5).strategy());
    assertEquals("lrc-l2", s.get(6).codec());
    assertEquals("pipeline", s.get(6).strategy());
  }

  @Test
  void pluginSuffixOnlyForRsAndNoDuplicates() {
    assertThrows(IllegalArgumentException.class, () -> Scenario.parse("CLAY-10-4-1024k+plugin"));
    assertThrows(IllegalArgumentException.class, () -> Scenario.parse("LRC-L2-12-4-1024k+central"));
    assertEquals("CLAY-10-4-1024k+central", Scenario.parse("CLAY-10-4-1024k+central").name());
    assertThrows(IllegalArgumentException.class, () -> Scenario.parseList("RS-6-3-1024k,RS-6-3-1024k"));
    assertThrows(IllegalArgumentException.class, () -> Scenario.parseList(" , "));
    assertThrows(IllegalArgumentException.class, () -> Scenario.parse("NOPE-1-1"));
  }

  @Test
  void costsSuffixAfterTheOthersAndNotForStockRs() {
    List<Scenario> s = Scenario.parseList(Scenario.SLOW_DEFAULTS);
    assertEquals(4, s.size());
    assertFalse(s.get(0).costs());
    assertTrue(s.get(1).costs());
    assertTrue(s.get(1).pluginRebuildsRs());
    assertEquals("RS-10-4-1024k+plugin+costs", s.get(1).name());
    assertEquals(s.get(1), Scenario.parse(s.get(1).name()));
    assertTrue(Scenario.parse("CLAY-10-4-1024k+central+costs").central());
    assertThrows(IllegalArgumentException.class, () -> Scenario.parse("RS-10-4-1024k+costs"));
    assertThrows(IllegalArgumentException.class, () -> Scenario.parse("RS-10-4-1024k+costs+plugin"));
  }

  @Test
  void hdfsPlacementOnlyForLrcAndWrittenWhereTheNameNodeSkipsCombinedLocality() {
    List<Scenario> s = Scenario.parseList(Scenario.RACK_DEFAULTS);
    assertEquals(3, s.size());
    assertEquals("hdfs", s.get(0).placement());
    assertTrue(s.get(1).hdfsPlacement());
    assertEquals("hdfs", s.get(1).placement());
    assertEquals("combined-locality", s.get(2).placement());
    assertEquals("LRC-L2-12-4-1024k+hdfs-placement", s.get(1).name());
    assertEquals(s.get(1), Scenario.parse(s.get(1).name()));
    assertEquals(s.get(1).name() + "+costs", Scenario.parse(s.get(1).name() + "+costs").name());
    assertThrows(IllegalArgumentException.class, () -> Scenario.parse("RS-10-4-1024k+hdfs-placement"));
    // warm-ups and races of the scenario write under the NameNode's skip path too
    assertTrue(Scenario.benchDir(s.get(1).name() + "-warmup1").startsWith(Scenario.HDFS_PLACEMENT_ROOT));
    assertTrue(Scenario.benchDir(s.get(1).name() + "-single").startsWith(Scenario.HDFS_PLACEMENT_ROOT));
    assertTrue(Scenario.benchDir(s.get(2).name()).startsWith("/bench/"));
  }

  @Test
  void theClusterNameNodeSkipsCombinedLocalityWhereHdfsPlacementScenariosWrite() throws Exception {
    String script = java.nio.file.Files.readString(java.nio.file.Path.of("dev-support/cluster/cluster.sh"));
    assertTrue(script.contains("prop " + io.ecrepair.hdfs.namenode.NameNodeKeys.COMBINED_LOCALITY_SKIP_PATHS_KEY
        + " " + Scenario.HDFS_PLACEMENT_ROOT), "cluster.sh sets the skip path the benchmark writes to");
  }

  @Test
  void slowNodesAreSpreadReproducibly() {
    assertEquals(List.of(0, 2, 5, 8, 11, 14), ClusterOptions.spread(6, 17));
    assertEquals(List.of(), ClusterOptions.spread(0, 17));
    assertThrows(IllegalArgumentException.class, () -> new ClusterOptions(4, 0, 100, 50, 100, 1 << 20, "1g",
        java.util.Map.of(), ClusterOptions.spread(4, 4), 25));
  }

  @Test
  void adaptiveRunsTheDataNodesWithTheAdaptiveBudget() {
    Scenario s = Scenario.parse("CLAY-10-4-4096k+central+adaptive");
    assertTrue(s.adaptive());
    assertTrue(s.central());
    assertEquals("CLAY-10-4-4096k+central+adaptive", s.name());
    assertEquals("true", s.dataNodeConf().get(Scenario.ADAPTIVE_KEY));
    assertEquals("false", Scenario.parse("CLAY-10-4-4096k").dataNodeConf().get(Scenario.ADAPTIVE_KEY));
    assertTrue(Scenario.parse("RS-10-4-1024k+plugin+adaptive").adaptive());
    IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> Scenario.parse("RS-10-4-1024k+adaptive"));
    assertTrue(e.getMessage().contains("+plugin"), e.getMessage());
  }

  @Test
  void noNiceRunsRepairAtTheDataNodesPriority() {
    Scenario s = Scenario.parse("CLAY-10-4-4096k+central+adaptive+no-nice");
    assertTrue(s.noNice() && s.adaptive() && s.central());
    assertEquals("CLAY-10-4-4096k+central+adaptive+no-nice", s.name());
    assertEquals("0", s.dataNodeConf().get(Scenario.NICE_KEY));
    assertEquals(null, Scenario.parse("CLAY-10-4-4096k").dataNodeConf().get(Scenario.NICE_KEY), "the run's nice");
    assertTrue(Scenario.parse("RS-10-4-1024k+plugin+no-nice").noNice());
    IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> Scenario.parse("RS-10-4-1024k+no-nice"));
    assertTrue(e.getMessage().contains("+plugin"), e.getMessage());
  }
}
