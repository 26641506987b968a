package io.ecrepair.hdfs.datanode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.hdfs.agent.ReadFaults;
import io.ecrepair.hdfs.task.DataNodeKeys;
import io.ecrepair.hdfs.task.ReconstructionLog;
import io.ecrepair.hdfs.task.TaskReport;
import io.ecrepair.testing.ClusterTest;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Helper reads through the repair agents (ecrepair.datanode.agent.port-offset set) on a
 * MiniDFSCluster: a Clay repair asks each helper's agent once for all its sub-chunk ranges
 * instead of making one HDFS block read per range; the rebuilt blocks are byte for byte the
 * lost ones, an agent that is gone costs nothing but the HDFS reads, and a helper replica with
 * a bad byte is caught by its stored checksums, not copied into the rebuilt block.
 */
@ClusterTest
class AgentRangeReadTest {
  private static final int CELL = 64 * 1024;
  private static final int CELLS_PER_BLOCK = 4;

  @TempDir
  Path tmp;

  @BeforeEach
  @AfterEach
  void clear() {
    ReconstructionLog.clear();
    ReadFaults.set(null);
  }

  private static Configuration agents(boolean tokens) {
    Configuration extra = new Configuration(false);
    extra.setInt(DataNodeKeys.AGENT_PORT_OFFSET_KEY, 7);
    extra.setBoolean(DataNodeKeys.PARALLEL_KEY, false); // central repairs, helpers read through agents
    extra.setBoolean(DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY, tokens);
    return extra;
  }

  @Test
  void clayHelpersAreReadThroughTheirAgentsWithBlockTokens() throws Exception {
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), 9, "clay", 5, 3, CELL, CELLS_PER_BLOCK,
        agents(true))) {
      org.apache.hadoop.fs.Path big = c.writeMixedFiles();
      List<TaskReport> reports = c.loseAndVerify(c.holder(big, 0, 0));
      assertTrue(reports.stream().allMatch(r -> r.succeeded() && r.helperReplacements() == 0), reports.toString());
      // One agent request per helper read, and no HDFS read instead of one.
      long helperReads = reports.stream().mapToLong(r -> r.helperBytes().values().stream().filter(b -> b > 0).count())
          .sum();
      assertTrue(helperReads > 0, reports.toString());
      assertEquals(helperReads, rangeRequestsServed(c), "range requests the agents served");
      // Clay(5,3), q = 3: a helper sends a third of each cell row it serves (sub-chunks of 2427
      // bytes and a tail of a few more), as through HDFS's reads; whole cells would be 65536 a row.
      for (TaskReport r : reports) {
        for (long b : r.helperBytes().values()) {
          assertTrue(b <= CELLS_PER_BLOCK * (CELL / 3 + 64), "bytes read from one helper: " + r);
        }
      }
    }
  }

  @Test
  void aStoppedAgentsHelperIsReadThroughHdfs() throws Exception {
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), 9, "clay", 5, 3, CELL, CELLS_PER_BLOCK,
        agents(false))) {
      org.apache.hadoop.fs.Path big = c.writeMixedFiles();
      DataNode noAgent = c.dataNode(c.holder(big, 0, 1));
      EcRepairDataNodePlugin.stopAgent(noAgent);
      List<TaskReport> reports = c.loseAndVerify(c.holder(big, 0, 0));
      assertTrue(reports.stream().allMatch(r -> r.succeeded() && r.helperReplacements() == 0), reports.toString());
      long helperReads = reports.stream().mapToLong(r -> r.helperBytes().values().stream().filter(b -> b > 0).count())
          .sum();
      long served = rangeRequestsServed(c);
      assertTrue(served > 0 && served < helperReads, "agents served " + served + " of " + helperReads + " helper reads");
    }
  }

  @Test
  void aBadByteInAHelperReplicaIsCaught() throws Exception {
    // Ten DataNodes: once block 0 is rebuilt, one is left to take block 1, which the NameNode
    // rebuilds too when it hears that its replica is corrupt.
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), 10, "clay", 5, 3, CELL, CELLS_PER_BLOCK,
        agents(false))) {
      org.apache.hadoop.fs.Path big = c.writeMixedFiles();
      c.awaitHealthy(); // the bad byte goes in last: nothing else may be repaired meanwhile
      // Block 1 of group 0 gets a flipped byte every 2 KiB of its first cell: the repair of block 0
      // reads sub-chunks of 2427 bytes there (alpha = 27), each holding at least one of them.
      LocatedStripedBlock group = (LocatedStripedBlock) c.groups(big).get(0);
      DatanodeInfo holder = c.holder(big, 0, 1);
      ExtendedBlock helper = c.internal(group, 1);
      byte[] good = c.replica(holder, helper);
      java.io.File file = new java.io.File(c.dataNode(holder).getFSDataset().getBlockLocalPathInfo(helper)
          .getBlockPath());
      flipEvery2k(file);
      assertFalse(java.util.Arrays.equals(good, c.replica(holder, helper)), "the replica on disk has a bad byte");

      c.lose(c.holder(big, 0, 0));
      c.awaitReconstruction(120_000);
      List<TaskReport> reports = ReconstructionLog.reports();
      long group0 = group.getBlock().getBlockId();
      assertTrue(reports.stream().anyMatch(r -> r.blockGroupId() == group0 && r.succeeded()
          && r.helperReplacements() > 0), "the bad helper was dropped: " + reports);
      long reported = 0;
      for (DataNode dn : c.cluster.getDataNodes()) {
        reported += EcRepairDataNodePlugin.metrics(dn).getOrDefault("CorruptReplicasReported", 0L);
      }
      assertTrue(reported >= 1, "the bad replica was reported to the NameNode");
      c.awaitHealthy(); // the NameNode rebuilt block 1 elsewhere and dropped the bad replica
      assertEquals(c.original.size(), c.verifyBlocks(), "every internal block present and equal");
    }
  }

  /** Flips a byte every 2 KiB of the first cell, leaving the stored checksums as they were. */
  private static void flipEvery2k(java.io.File file) throws java.io.IOException {
    try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(file, "rw")) {
      for (long offset = 100; offset < CELL; offset += 2048) {
        f.seek(offset);
        int b = f.read();
        f.seek(offset);
        f.write(b ^ 0x5a);
      }
    }
  }



  private static long rangeRequestsServed(RepairCluster c) {
    long served = 0;
    for (DataNode dn : c.cluster.getDataNodes()) {
      served += EcRepairDataNodePlugin.rangeRequestsServed(dn);
    }
    return served;
  }
}
