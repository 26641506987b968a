package io.ecrepair.hdfs.namenode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.hdfs.datanode.RepairCluster;
import io.ecrepair.hdfs.task.DataNodeKeys;
import io.ecrepair.hdfs.task.ReconstructionLog;
import io.ecrepair.hdfs.task.TaskReport;
import io.ecrepair.plan.CombinedLocality;
import io.ecrepair.testing.ClusterTest;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.blockmanagement.BlockPlacementPolicy;
import org.apache.hadoop.io.erasurecode.ECSchema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Topology locality for an RS policy named in {@code ecrepair.namenode.topology-locality.policies},
 * on 12 DataNodes in 4 racks of 3: RS(3,2) groups go 2, 2 and 1 to a rack, the cluster's other
 * policies keep HDFS's placement, and a lost block is rebuilt in its rack-mates' rack along a
 * chain that reads the fewest racks (a block of a 2-block rack: its mate and the other 2-block
 * rack, one partial sum across racks, where any 3 of the 4 survivors would often cross twice),
 * byte-equal, the group keeping its layout.
 */
@ClusterTest
class TopologyLocalityTest {
  private static final int CELL = 64 * 1024;

  @TempDir
  Path tmp;

  @BeforeEach
  @AfterEach
  void clear() {
    ReconstructionLog.clear();
  }

  @Test
  void namedRsPolicyIsPlacedOnFewestRacksAndRepairedInsideThem() throws Exception {
    Configuration extra = new Configuration(false);
    extra.setClass(DFSConfigKeys.DFS_BLOCK_PLACEMENT_EC_CLASSNAME_KEY, CombinedLocalityPlacementPolicy.class,
        BlockPlacementPolicy.class);
    extra.set(DFSConfigKeys.DFS_NAMENODE_PLUGINS_KEY, EcRepairNameNodePlugin.class.getName());
    extra.set(NameNodeKeys.TOPOLOGY_LOCALITY_POLICIES_KEY, "RS-3-2-64k");
    extra.setBoolean(DataNodeKeys.REBUILD_RS_KEY, true);
    extra.setInt(DataNodeKeys.AGENT_PORT_OFFSET_KEY, 7);
    String[] racks = new String[12];
    for (int i = 0; i < racks.length; i++) {
      racks[i] = "/rack" + (i % 4);
    }
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), racks.length, "rs", 3, 2, CELL, 2, extra,
        racks)) {
      assertEquals("RS-3-2-64k", c.policy.getName());
      org.apache.hadoop.fs.Path file = c.write("f", 12 * 3 * 2 * CELL, 31);
      assertTopology(c, file);

      // A policy the setting does not name is spread as HDFS spreads it: RS(6,3) over all 4 racks.
      ErasureCodingPolicy plain = c.hdfs.enable(new ErasureCodingPolicy(new ECSchema("rs", 6, 3), CELL));
      c.hdfs.directory("/plain", plain);
      org.apache.hadoop.fs.Path other = new org.apache.hadoop.fs.Path("/plain/f");
      byte[] otherBytes = io.ecrepair.harness.MiniHdfs.randomBytes(2 * 6 * 2 * CELL, 32);
      c.hdfs.write(other, 2L * CELL, otherBytes);
      for (LocatedBlock g : c.hdfs.awaitReported(other, 30_000)) {
        assertEquals(4, perRack(g).size(), "an RS-6-3 group, not named: " + perRack(g));
      }

      // The DataNode holding most blocks of 2-block racks (48 over 12 nodes: at least 4) is stopped.
      Map<org.apache.hadoop.hdfs.protocol.DatanodeInfo, Integer> pairBlocks = new HashMap<>();
      for (LocatedBlock g : c.groups(file)) {
        LocatedStripedBlock striped = (LocatedStripedBlock) g;
        for (int j = 0; j < striped.getBlockIndices().length; j++) {
          if (striped.getBlockIndices()[j] < 4) {
            pairBlocks.merge(striped.getLocations()[j], 1, Integer::sum);
          }
        }
      }
      org.apache.hadoop.hdfs.protocol.DatanodeInfo victim =
          java.util.Collections.max(pairBlocks.entrySet(), Map.Entry.comparingByValue()).getKey();
      List<TaskReport> reports = c.loseAndVerify(victim); // every rebuilt block byte-equal
      CombinedLocality layout = CombinedLocality.topology(3, 2, 2); // {0,1} {2,3} {4}
      int inPairs = 0;
      for (TaskReport r : reports) {
        if (!r.policy().equals("RS-3-2-64k")) {
          continue;
        }
        assertEquals("chain", r.route(), r.toString());
        int lost = r.lost()[0];
        assertEquals(layout.crossRackBlocks(lost), r.crossRackHops(), "lost unit " + lost + ": " + r);
        inPairs += lost < 4 ? 1 : 0;
      }
      assertTrue(inPairs >= 4, "the stopped DataNode held blocks of 2-block racks in several groups: " + reports);
      assertTopology(c, file);
      assertTrue(c.hdfs.readsBack(other, otherBytes));
    }
  }

  /** Every group: racks of 2, 2 and 1 blocks. */
  private static void assertTopology(RepairCluster c, org.apache.hadoop.fs.Path file) throws Exception {
    c.awaitHealthy();
    for (LocatedBlock g : c.groups(file)) {
      Map<String, Integer> perRack = perRack(g);
      assertEquals(Map.of(2, 2, 1, 1), count(perRack), "RS(3,2) with topology locality: racks of 2, 2, 1, "
          + perRack);
    }
  }

  private static Map<String, Integer> perRack(LocatedBlock group) {
    Set<Integer> seen = new TreeSet<>();
    Map<String, Integer> n = new HashMap<>();
    LocatedStripedBlock striped = (LocatedStripedBlock) group;
    for (int j = 0; j < striped.getBlockIndices().length; j++) {
      if (seen.add((int) striped.getBlockIndices()[j])) {
        n.merge(striped.getLocations()[j].getNetworkLocation(), 1, Integer::sum);
      }
    }
    return n;
  }

  /** How many racks hold each count. */
  private static Map<Integer, Integer> count(Map<String, Integer> perRack) {
    Map<Integer, Integer> n = new HashMap<>();
    perRack.values().forEach(v -> n.merge(v, 1, Integer::sum));
    return n;
  }
}
