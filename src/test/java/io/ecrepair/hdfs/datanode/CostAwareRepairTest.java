package io.ecrepair.hdfs.datanode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.hdfs.CostKeys;
import io.ecrepair.hdfs.task.DataNodeKeys;
import io.ecrepair.hdfs.task.ReconstructionLog;
import io.ecrepair.hdfs.task.TaskReport;
import io.ecrepair.plan.Pipelines;
import io.ecrepair.testing.ClusterTest;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.IntStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The DataNodes weigh the operator's costs ({@value CostKeys#COSTS_KEY}, here a rack of slow
 * DataNodes) when they choose a repair's helpers: an RS chain takes its k helpers from the
 * others, and a central Clay repair, whose sub-chunk repair would read every survivor, decodes
 * from k whole blocks that leave the slow one out. Every rebuilt block is compared byte for byte.
 */
@ClusterTest
class CostAwareRepairTest {
  private static final int CELL = 64 * 1024;

  @TempDir
  Path tmp;

  @BeforeEach
  @AfterEach
  void clear() {
    ReconstructionLog.clear();
  }

  @Test
  void anRsChainLeavesTheSlowDataNodesOut() throws Exception {
    Configuration extra = slowRack();
    extra.setInt(DataNodeKeys.AGENT_PORT_OFFSET_KEY, 7);
    extra.setBoolean(DataNodeKeys.REBUILD_RS_KEY, true);
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), 11, "rs", 6, 3, CELL, 4, extra,
        racks(11, 2))) {
      // A group whose chain, chosen alike but with equal costs, would read a slow DataNode.
      for (int f = 0; ; f++) {
        org.apache.hadoop.fs.Path file = c.write("f" + f, 6 * 4 * CELL, 3 + f);
        c.awaitHealthy();
        Set<Integer> slow = slowUnits(c, file, 9);
        int lost = firstFast(c, file, 9);
        int[] pool = IntStream.range(0, 9).filter(u -> u != lost).toArray();
        long groupId = c.groups(file).get(0).getBlock().getBlockId();
        int[] evenPath = Pipelines.leastLoadedPath(pool, new long[pool.length], 6, 4L * CELL, groupId);
        if (IntStream.of(evenPath).noneMatch(slow::contains)) {
          assertTrue(f < 5, "no group of five has a slow DataNode on its even-cost chain");
          continue;
        }
        // The DataNode also holds blocks of the files written before: take this group's task.
        List<TaskReport> reports = c.loseAndVerify(c.holder(file, 0, lost));
        TaskReport chain = reports.stream().filter(r -> r.blockGroupId() == groupId).findFirst()
            .orElseThrow(() -> new AssertionError("no task for group " + groupId + ": " + reports));
        assertEquals("chain", chain.route(), chain.toString());
        assertEquals(6, chain.helperBytes().size(), chain.toString());
        for (int u : slow) {
          assertFalse(chain.helperBytes().containsKey(u), "slow internal block " + u + " read: " + chain);
        }
        return;
      }
    }
  }

  @Test
  void aCentralClayRepairDecodesAroundTheSlowDataNode() throws Exception {
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), 8, "clay", 4, 2, CELL, 4, slowRack(),
        racks(8, 1))) {
      org.apache.hadoop.fs.Path file = c.write("f", 4 * 4 * CELL, 5);
      c.awaitHealthy();
      Set<Integer> slow = slowUnits(c, file, 6);
      assertEquals(1, slow.size(), "one block on the slow DataNode");
      TaskReport central = only(c.loseAndVerify(c.holder(file, 0, firstFast(c, file, 6))), "central");
      assertEquals(4, central.helperBytes().size(), "a decode from k = 4 blocks: " + central);
      assertFalse(central.helperBytes().containsKey(slow.iterator().next()), central.toString());
    }
  }

  /**
   * The first {@code slowNodes} DataNodes in rack /slow, the others round-robin in three fast
   * racks (so that HDFS's rack-fault-tolerant placement finds room for every block).
   */
  private static String[] racks(int dataNodes, int slowNodes) {
    String[] racks = new String[dataNodes];
    for (int i = 0; i < dataNodes; i++) {
      racks[i] = i < slowNodes ? "/slow" : "/fast" + (i % 3);
    }
    return racks;
  }

  private static Configuration slowRack() {
    Configuration extra = new Configuration(false);
    extra.set(CostKeys.COSTS_KEY, "/slow=16");
    return extra;
  }

  private static Set<Integer> slowUnits(RepairCluster c, org.apache.hadoop.fs.Path file, int n) throws Exception {
    Set<Integer> slow = new TreeSet<>();
    for (int u = 0; u < n; u++) {
      if (c.holder(file, 0, u).getNetworkLocation().equals("/slow")) {
        slow.add(u);
      }
    }
    assertFalse(slow.isEmpty(), "the placement put no block on the slow DataNodes");
    return slow;
  }

  private static int firstFast(RepairCluster c, org.apache.hadoop.fs.Path file, int n) throws Exception {
    for (int u = 0; u < n; u++) {
      DatanodeInfo d = c.holder(file, 0, u);
      if (d.getNetworkLocation().startsWith("/fast")) {
        return u;
      }
    }
    throw new AssertionError("no block on a fast DataNode");
  }

  private static TaskReport only(List<TaskReport> reports, String route) {
    assertEquals(1, reports.size(), reports.toString());
    assertTrue(reports.get(0).route().equals(route), "route " + route + " expected: " + reports);
    return reports.get(0);
  }
}
