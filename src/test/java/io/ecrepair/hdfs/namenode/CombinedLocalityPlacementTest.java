package io.ecrepair.hdfs.namenode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.lrc.LrcCode;
import io.ecrepair.hdfs.datanode.RepairCluster;
import io.ecrepair.plan.CombinedLocality;
import io.ecrepair.testing.ClusterTest;
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
 * stop, the rebuilt blocks keep that layout and every internal block and file is byte-equal; the
 * Balancer, the Mover and decommissioning keep it too.
 */
@ClusterTest
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
      decommission(c, leaving);
      // Every unit the node held has an in-service copy (layouts skips the decommissioned node), in
      // the rack it was in (each rack has a node to spare).
      assertCombined(c, file, 5);
      assertEquals(before, layouts(c, file), "a copy left its unit's rack");
      assertTrue(c.hdfs.readsBack(file, c.files.get(file)));
    }
  }

  @Test
  void balancerFillingANewRackKeepsTheLayout() throws Exception {
    try (RepairCluster c = cluster(racks(5, 3))) {
      org.apache.hadoop.fs.Path file = c.write("f", 8 * 6 * 2 * CELL, 11);
      org.apache.hadoop.fs.Path plain = new org.apache.hadoop.fs.Path("/plain/f");
      byte[] plainBytes = new byte[4 << 20];
      new java.util.Random(12).nextBytes(plainBytes);
      try (var out = c.fs.create(plain, true, 4096, (short) 3, 4 * CELL)) {
        out.write(plainBytes);
      }
      assertCombined(c, file, 5);
      Map<Integer, Map<Integer, String>> before = layouts(c, file);

      // An empty rack joins, and every DataNode is made small enough for the Balancer to act.
      c.cluster.startDataNodes(c.conf, 3, true, null, new String[] {"/rack5", "/rack5", "/rack5"});
      c.cluster.waitActive();
      long used = 0;
      for (DatanodeInfo dn : c.fs.getDataNodeStats()) {
        used = Math.max(used, dn.getDfsUsed());
      }
      for (org.apache.hadoop.hdfs.server.datanode.DataNode dn : c.cluster.getDataNodes()) {
        try (var volumes = dn.getFSDataset().getFsVolumeReferences()) {
          for (var volume : volumes) {
            ((org.apache.hadoop.hdfs.server.datanode.fsdataset.impl.FsVolumeImpl) volume)
                .setCapacityForTesting(used * 3 / 2);
          }
        }
      }
      c.cluster.triggerHeartbeats();
      Thread.sleep(2_000);

      balance(c);
      c.awaitHealthy();

      long moved = 0;
      for (DatanodeInfo dn : c.fs.getDataNodeStats()) {
        moved += dn.getNetworkLocation().equals("/rack5") ? dn.getDfsUsed() : 0;
      }
      assertTrue(moved > 2 << 20, "the Balancer filled the new rack (bytes there: " + moved + ")");
      // Only lone blocks (unit 8) may leave their rack; every slot stays whole, at most f per rack.
      assertCombined(c, file, 5);
      Map<Integer, Map<Integer, String>> after = layouts(c, file);
      for (int g : before.keySet()) {
        for (int u = 0; u < 8; u++) {
          assertEquals(before.get(g).get(u), after.get(g).get(u), "group " + g + " unit " + u + " changed rack");
        }
      }
      for (LocatedBlock block : c.fs.getClient().getLocatedBlocks(plain.toString(), 0).getLocatedBlocks()) {
        Set<String> racks = new TreeSet<>();
        for (DatanodeInfo dn : block.getLocations()) {
          racks.add(dn.getNetworkLocation());
        }
        assertTrue(racks.size() >= 2, "a replicated block on one rack: " + racks);
      }
      assertTrue(c.hdfs.readsBack(file, c.files.get(file)));
      assertTrue(c.hdfs.readsBack(plain, plainBytes));
    }
  }

  /**
   * {@code hdfs mover} after the file's directory turns COLD, with ARCHIVE storage on one new
   * DataNode per rack and on three in a new rack: in each rack one block of a slot moves onto
   * the rack's ARCHIVE node, and its slot-mate, which has no ARCHIVE node left in its rack, stays
   * on DISK rather than leave for the new rack, as HDFS's rule would have it do. Every slot keeps
   * its rack, at most f blocks of a group per rack, and the file reads back.
   */
  @Test
  void moverKeepsTheLayout() throws Exception {
    try (RepairCluster c = cluster(racks(5, 3))) {
      org.apache.hadoop.fs.Path file = c.write("f", 2 * 6 * 2 * CELL, 17);
      assertCombined(c, file, 5);
      Map<Integer, Map<Integer, String>> before = layouts(c, file);

      String[] archiveRacks = {"/rack0", "/rack1", "/rack2", "/rack3", "/rack4", "/rack5", "/rack5", "/rack5"};
      org.apache.hadoop.fs.StorageType[][] archive = new org.apache.hadoop.fs.StorageType[archiveRacks.length][];
      java.util.Arrays.fill(archive, new org.apache.hadoop.fs.StorageType[] {org.apache.hadoop.fs.StorageType.ARCHIVE});
      c.cluster.startDataNodes(c.conf, archiveRacks.length, archive, true, null, archiveRacks, null, null, null, false,
          false, false, null, null, null);
      c.cluster.waitActive();
      c.fs.setStoragePolicy(file.getParent(), "COLD");

      Configuration mover = new Configuration(c.conf);
      mover.setInt(DFSConfigKeys.DFS_MOVER_RETRY_MAX_ATTEMPTS_KEY, 2); // blocks that may not move are given up soon
      int exit = org.apache.hadoop.util.ToolRunner.run(mover, new org.apache.hadoop.hdfs.server.mover.Mover.Cli(),
          new String[] {"-p", file.toString()});
      // Done, or some blocks could not be moved (-2: none of them could be scheduled; -3: no progress).
      assertTrue(exit == 0 || exit == -2 || exit == -3, "the Mover ended with " + exit);
      c.awaitHealthy();

      int archived = 0;
      for (LocatedBlock block : c.groups(file)) {
        for (org.apache.hadoop.fs.StorageType t : block.getStorageTypes()) {
          archived += t == org.apache.hadoop.fs.StorageType.ARCHIVE ? 1 : 0;
        }
      }
      assertTrue(archived >= 5 * before.size(), "the Mover moved blocks onto ARCHIVE: " + archived);
      assertCombined(c, file, 5);
      Map<Integer, Map<Integer, String>> after = layouts(c, file);
      for (int g : before.keySet()) {
        for (int u = 0; u < 8; u++) {
          assertEquals(before.get(g).get(u), after.get(g).get(u), "group " + g + " unit " + u + " changed rack");
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
    assertEquals(3, CombinedLocalityPlacementPolicy.toleranceOfWidth(enabled, 16, Set.of())); // only the LRC
    assertEquals(3, CombinedLocalityPlacementPolicy.toleranceOfWidth(enabled, 14, Set.of())); // LRC or RS-10-4
    assertEquals(2, CombinedLocalityPlacementPolicy.toleranceOfWidth(enabled, 5, Set.of())); // short LRC or RS-3-2
    ErasureCodingPolicy[] rsOnly = {rs104, rs32};
    assertEquals(0, CombinedLocalityPlacementPolicy.toleranceOfWidth(rsOnly, 14, Set.of()), "no LRC: HDFS's rule alone");
    assertEquals("RS-10-4-64k", rs104.getName());
    assertEquals(4, CombinedLocalityPlacementPolicy.toleranceOfWidth(rsOnly, 14, Set.of("RS-10-4-64k")),
        "RS-10-4 with topology locality: its own m");
    assertEquals(2, CombinedLocalityPlacementPolicy.toleranceOfWidth(rsOnly, 5, Set.of("RS-10-4-64k")),
        "a short RS-10-4 group, or an RS-3-2 group held to its own m");
    assertEquals(0, CombinedLocalityPlacementPolicy.toleranceOfWidth(rsOnly, 5, Set.of("RS-10-4-1024k")),
        "another cell size is another policy");
  }

  @Test
  void secondCopiesOfAUnitDoNotCountAgainstARack() {
    Map<String, Integer> perRack = Map.of("/a", 3, "/b", 2, "/c", 1);
    assertEquals(3, CombinedLocalityPlacementPolicy.mostPerRackWithoutCopies(perRack, 0));
    assertEquals(2, CombinedLocalityPlacementPolicy.mostPerRackWithoutCopies(perRack, 1));
    assertEquals(2, CombinedLocalityPlacementPolicy.mostPerRackWithoutCopies(perRack, 2));
    assertEquals(1, CombinedLocalityPlacementPolicy.mostPerRackWithoutCopies(perRack, 3));
    assertEquals(3, CombinedLocalityPlacementPolicy.mostPerRackWithoutCopies(perRack, -1), "a group short of units");
  }

  /** Decommissions {@code dn} as {@code hdfs dfsadmin -refreshNodes} would, and waits until it is done. */
  private static void decommission(RepairCluster c, DatanodeInfo dn) throws Exception {
    org.apache.hadoop.hdfs.server.namenode.FSNamesystem fsn = c.cluster.getNamesystem();
    org.apache.hadoop.hdfs.server.blockmanagement.DatanodeManager dm = fsn.getBlockManager().getDatanodeManager();
    org.apache.hadoop.hdfs.server.blockmanagement.DatanodeDescriptor node = dm.getDatanode(dn);
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
  }

  /** {@code hdfs balancer -threshold 5}, with the cluster's configuration. */
  private static void balance(RepairCluster c) throws Exception {
    Configuration balancer = new Configuration(c.conf);
    balancer.setLong(DFSConfigKeys.DFS_BALANCER_GETBLOCKS_MIN_BLOCK_SIZE_KEY, 1);
    balancer.setLong(DFSConfigKeys.DFS_BALANCER_MOVEDWINWIDTH_KEY, 2_000);
    // A source whose remaining blocks may not leave their racks is given up after 5 s, not 60.
    balancer.setInt(DFSConfigKeys.DFS_BALANCER_MAX_NO_MOVE_INTERVAL_KEY, 5_000);
    java.lang.reflect.Constructor<?> cli =
        Class.forName("org.apache.hadoop.hdfs.server.balancer.Balancer$Cli").getDeclaredConstructor();
    cli.setAccessible(true); // hdfs balancer's own entry point, package-private in Hadoop 3.3.6
    int exit = org.apache.hadoop.util.ToolRunner.run(balancer, (org.apache.hadoop.util.Tool) cli.newInstance(),
        new String[] {"-threshold", "5", "-idleiterations", "3"});
    assertTrue(exit == 0 || exit == -3, "the Balancer ended with " + exit); // success, or nothing more to move
  }

  private RepairCluster cluster(String[] racks) throws Exception {
    Configuration extra = new Configuration(false);
    extra.setClass(DFSConfigKeys.DFS_BLOCK_PLACEMENT_EC_CLASSNAME_KEY, CombinedLocalityPlacementPolicy.class,
        BlockPlacementPolicy.class);
    extra.set(DFSConfigKeys.DFS_NAMENODE_PLUGINS_KEY, EcRepairNameNodePlugin.class.getName());
    extra.setClass(DFSConfigKeys.DFS_BLOCK_REPLICATOR_CLASSNAME_KEY, RackKeepingMovePolicy.class,
        BlockPlacementPolicy.class);
    // What a DataNode reserves for a block it receives, and the Balancer's /system/balancer.id: both
    // must fit the few MiB the Balancer test leaves each DataNode.
    extra.setLong(DFSConfigKeys.DFS_BLOCK_SIZE_KEY, 4 * CELL);
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
