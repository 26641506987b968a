package io.ecrepair.hdfs.datanode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.hdfs.task.DataNodeKeys;
import io.ecrepair.hdfs.task.ReconstructionLog;
import io.ecrepair.hdfs.task.TaskReport;
import io.ecrepair.testing.ClusterTest;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * On a cluster of racks holding several blocks of a group each (HDFS's rack-fault-tolerant
 * placement with fewer racks than blocks), an LRC block is rebuilt along a chain that sums
 * each rack's terms inside the rack and ends in the rebuilding DataNode's rack: exactly one
 * partial sum leaves each other rack of the local group, and the rebuilt blocks are exact.
 */
@ClusterTest
class RackLocalChainTest {
  private static final int CELL = 64 * 1024;

  @TempDir
  Path tmp;

  @BeforeEach
  @AfterEach
  void clear() {
    ReconstructionLog.clear();
  }

  @Test
  void oneBlockLeavesEachOtherRack() throws Exception {
    Configuration extra = new Configuration(false);
    extra.setInt(DataNodeKeys.AGENT_PORT_OFFSET_KEY, 7);
    String[] racks = new String[17];
    for (int i = 0; i < racks.length; i++) {
      racks[i] = "/r" + (i % 4);
    }
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), 17, "lrc-l2", 12, 4, CELL, 4, extra,
        racks)) {
      org.apache.hadoop.fs.Path file = c.write("f", 12 * 4 * CELL, 21);
      c.awaitHealthy();
      Set<String> helperRacks = new TreeSet<>();
      for (int i : new int[] {1, 2, 3, 4, 5, 12}) { // block 0's local group
        helperRacks.add(c.holder(file, 0, i).getNetworkLocation());
      }
      assertTrue(helperRacks.size() > 1, "the local group spans racks: " + helperRacks);

      List<TaskReport> reports = c.loseAndVerify(c.holder(file, 0, 0)); // bytes compared
      TaskReport chain = reports.stream().filter(r -> r.route().equals("chain")).findFirst()
          .orElseThrow(() -> new AssertionError("no chain ran: " + reports));
      String requestorRack = c.holder(file, 0, 0).getNetworkLocation();
      Set<String> others = new TreeSet<>(helperRacks);
      others.remove(requestorRack);
      assertEquals(others.size(), chain.crossRackHops(), "one partial sum from each of " + others
          + " into " + requestorRack + ": " + chain);
    }
  }
}
