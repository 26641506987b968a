package io.ecrepair.hdfs.namenode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.lrc.LrcCode;
import io.ecrepair.hdfs.datanode.RepairCluster;
import io.ecrepair.plan.CombinedLocality;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.blockmanagement.BlockPlacementPolicy;
import org.apache.hadoop.io.erasurecode.ECSchema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Combined-locality placement on MiniDFSClusters with racks: LRC(6,2,1) (f = 2) has rack
 * slots {0,1} {2,6} {3,4} {5,7} {8}, so it needs 5 racks. Every group the tests write is checked:
 * each slot in one rack, at most f blocks of a group per rack; after DataNodes or a whole rack
 * stop, the rebuilt blocks keep that layout and every internal block and file is byte-equal.
 */
class CombinedLocalityPlacementTest {
  private static final int CELL = 64 * 1024;
  private static final LrcCode.Params CODE = new LrcCode.Params(6, 2, 1);
  private static final CombinedLocality LAYOUT = CombinedLocality.place(CODE, 2);

  @TempDir
  Path tmp;

  @Test
  void fiveRacksRebuildsEachLostBlockBesideItsRackMates() throws Exception {
    try (RepairCluster c = cluster(racks(5, 3))) {
      org.apache.hadoop.fs.Path file = c.write("f", 3 * 6 * 2 * CELL, 5);
      assertCombined(c, file, 5);
      // Two blocks of group 0 from different slots (racks): each must be rebuilt in its own slot's
      // rack (each rack has one DataNode spare), which holds only if targets come in unit order.
      DatanodeInfo zero = c.holder(file, 0, 0);
      DatanodeInfo three = c.holder(file, 0, 3);
      assertNotEquals(zero.getNetworkLocation(), three.getNetworkLocation());
      c.loseAndVerify(zero, three); // bytes compared
      assertCombined(c, file, 5);
    }
  }

  @Test
  void eightRacksKeepTheLayoutAndSurviveALostRack() throws Exception {
    try (RepairCluster c = cluster(racks(8, 2))) {
      org.apache.hadoop.fs.Path file = c.write("f", 4 * 6 * 2 * CELL, 8);
      Map<Integer, Map<Integer, String>> before = layouts(c, file);
      assertCombined(c, file, 5);
      // HDFS's own rule wants a 9-block group on 8 racks; ours accepts 5, so nothing moves.
      Thread.sleep(5_000); // the redundancy monitor runs every second here
      c.awaitHealthy();
      assertEquals(before, layouts(c, file), "the NameNode moved blocks of a combined-locality group");
      String fsck = fsck(c, "/ec");
      assertTrue(fsck.contains("is HEALTHY") && fsck.matches("(?s).*Unsatisfactory placement block groups:\\s+0\\b.*"),
          "hdfs fsck sees the groups as placed right: " + fsck);

      String rack = c.holder(file, 0, 0).getNetworkLocation();
      List<DatanodeInfo> inRack = new ArrayList<>();
      for (DatanodeInfo dn : c.fs.getDataNodeStats()) {
        if (dn.getNetworkLocation().equals(rack)) {
          inRack.add(dn);
        }
      }
      c.loseAndVerify(inRack.toArray(new DatanodeInfo[0])); // every block rebuilt and byte-equal
      assertCombined(c, file, 5);
      for (Map<Integer, String> group : layouts(c, file).values()) {
        assertTrue(!group.containsValue(rack), "a block still on the stopped rack: " + group);
      }
    }
  }

  @Test
  void decommissioningCopiesEachBlockIntoItsRack() throws Exception {
    // 8 groups on 6 racks: a copy placed anywhere with room would land in its unit's rack by chance
    // about once in three, so the node's units (about 4 groups') all staying by chance is rare.
    try (RepairCluster c = cluster(racks(6, 3))) {
      org.apache.hadoop.fs.Path file = c.write("f", 8 * 6 * 2 * CELL, 7);
      assertCombined(c, file, 5);
      DatanodeInfo leaving = c.holder(file, 0, 0);
      Map<Integer, Map<Integer, String>> before = layouts(c, file);
      org.apache.hadoop.hdfs.server.namenode.FSNamesystem fsn = c.cluster.getNamesystem();
      org.apache.hadoop.hdfs.server.blockmanagement.DatanodeManager dm = fsn.getBlockManager().getDatanodeManager();
      org.apache.hadoop.hdfs.server.blockmanagement.DatanodeDescriptor node = dm.getDatanode(leaving);
      fsn.writeLock();
      try {
        dm.getDatanodeAdminManager().startDecommission(node);
      } finally {
        fsn.writeUnlock();
      }
      long deadline = System.currentTimeMillis() + 60_000;
      while (!node.isDecommissioned()) {
        assertTrue(System.currentTimeMillis() < deadline, "decommissioning did not finish in 60 s");
        Thread.sleep(200);
      }
      // Every unit the node held was copied into the rack it was in (each rack has a node to spare).
      assertCombined(c, file, 5);
      assertEquals(before, layouts(c, file), "a copy left its unit's rack");
      for (LocatedBlock group : c.groups(file)) {
        for (DatanodeInfo dn : group.getLocations()) {
          assertTrue(!dn.getXferAddr().equals(leaving.getXferAddr()) || dn.isDecommissioned(),
              "the decommissioned node is still a live location");
        }
      }
      assertTrue(c.hdfs.readsBack(file, c.files.get(file)));
    }
  }

  @Test
  void tooFewRacksFallsBackToHdfsPlacement() throws Exception {
    try (RepairCluster c = cluster(racks(3, 3))) {
      org.apache.hadoop.fs.Path file = c.write("f", 2 * 6 * 2 * CELL, 3);
      for (Map<Integer, String> group : layouts(c, file).values()) {
        Map<String, Integer> perRack = perRack(group);
        assertEquals(Set.of(3), Set.copyOf(perRack.values()), "HDFS's even spread, 3 per rack: " + group);
      }
      assertTrue(c.hdfs.readsBack(file, c.files.get(file)));
    }
  }

  @Test
  void toleranceOfAWidthIsTheLeastAmongPoliciesItCouldBe() {
    ErasureCodingPolicy lrc = new ErasureCodingPolicy(new ECSchema("lrc-l2", 12, 4), CELL);
    ErasureCodingPolicy rs104 = new ErasureCodingPolicy(new ECSchema("rs", 10, 4), CELL);
    ErasureCodingPolicy rs32 = new ErasureCodingPolicy(new ECSchema("rs", 3, 2), CELL);
    ErasureCodingPolicy[] enabled = {lrc, rs104, rs32};
    assertEquals(3, CombinedLocalityPlacementPolicy.toleranceOfWidth(enabled, 16)); // only the LRC
    assertEquals(3, CombinedLocalityPlacementPolicy.toleranceOfWidth(enabled, 14)); // LRC or RS-10-4
    assertEquals(2, CombinedLocalityPlacementPolicy.toleranceOfWidth(enabled, 5)); // a short LRC group or RS-3-2
    assertEquals(0, CombinedLocalityPlacementPolicy.toleranceOfWidth(new ErasureCodingPolicy[] {rs104, rs32}, 14),
        "no LRC: HDFS's rule alone");
  }

  private RepairCluster cluster(String[] racks) throws Exception {
    Configuration extra = new Configuration(false);
    extra.setClass(DFSConfigKeys.DFS_BLOCK_PLACEMENT_EC_CLASSNAME_KEY, CombinedLocalityPlacementPolicy.class,
        BlockPlacementPolicy.class);
    extra.set(DFSConfigKeys.DFS_NAMENODE_PLUGINS_KEY, EcRepairNameNodePlugin.class.getName());
    return new RepairCluster(tmp.resolve("dfs").toFile(), racks.length, "lrc-l2", 6, 3, CELL, 2, extra, racks);
  }

  private static String[] racks(int racks, int perRack) {
    String[] r = new String[racks * perRack];
    for (int i = 0; i < r.length; i++) {
      r[i] = "/rack" + (i % racks);
    }
    return r;
  }

  /** Every group: each slot in one rack, slots on distinct racks, at most f per rack, on {@code racks} racks. */
  private static void assertCombined(RepairCluster c, org.apache.hadoop.fs.Path file, int racks) throws Exception {
    c.awaitHealthy();
    for (Map.Entry<Integer, Map<Integer, String>> e : layouts(c, file).entrySet()) {
      Map<Integer, String> group = e.getValue();
      assertEquals(CODE.n(), group.size(), "group " + e.getKey() + ": " + group);
      Set<String> slotRacks = new TreeSet<>();
      for (List<Integer> slot : LAYOUT.racks()) {
        Set<String> where = new TreeSet<>();
        slot.forEach(u -> where.add(group.get(u)));
        assertEquals(1, where.size(), "group " + e.getKey() + ": slot " + slot + " spans racks " + where + " " + group);
        slotRacks.addAll(where);
      }
      assertEquals(racks, slotRacks.size(), "group " + e.getKey() + " racks: " + group);
      assertTrue(perRack(group).values().stream().allMatch(n -> n <= 2), "more than f per rack: " + group);
    }
  }

  /** group -> unit -> rack, from the NameNode's in-service locations (one per unit once settled). */
  private static Map<Integer, Map<Integer, String>> layouts(RepairCluster c, org.apache.hadoop.fs.Path file)
      throws Exception {
    Map<Integer, Map<Integer, String>> all = new TreeMap<>();
    List<LocatedBlock> groups = c.groups(file);
    for (int g = 0; g < groups.size(); g++) {
      LocatedStripedBlock group = (LocatedStripedBlock) groups.get(g);
      Map<Integer, String> units = new TreeMap<>();
      for (int j = 0; j < group.getBlockIndices().length; j++) {
        DatanodeInfo dn = group.getLocations()[j];
        if (!dn.isDecommissioned() && !dn.isDecommissionInProgress()) {
          units.put((int) group.getBlockIndices()[j], dn.getNetworkLocation());
        }
      }
      all.put(g, units);
    }
    return all;
  }

  /** {@code hdfs fsck PATH}, as the hdfs script runs it. */
  private static String fsck(RepairCluster c, String path) throws Exception {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    org.apache.hadoop.util.ToolRunner.run(new org.apache.hadoop.hdfs.tools.DFSck(new Configuration(c.conf),
        new java.io.PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8)), new String[] {path});
    return out.toString(java.nio.charset.StandardCharsets.UTF_8);
  }

  private static Map<String, Integer> perRack(Map<Integer, String> group) {
    Map<String, Integer> n = new HashMap<>();
    group.values().forEach(r -> n.merge(r, 1, Integer::sum));
    return n;
  }
}
