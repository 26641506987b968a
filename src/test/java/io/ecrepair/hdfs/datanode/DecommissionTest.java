package io.ecrepair.hdfs.datanode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.hdfs.task.ReconstructionLog;
import io.ecrepair.testing.ClusterTest;
import java.nio.file.Path;
import java.util.function.Predicate;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.blockmanagement.DatanodeDescriptor;
import org.apache.hadoop.hdfs.server.blockmanagement.DatanodeManager;
import org.apache.hadoop.hdfs.server.namenode.FSNamesystem;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * Decommissioning and maintenance of a DataNode holding blocks of each code family, as an
 * operator starts them (here through the NameNode's admin manager, as {@code dfsadmin
 * -refreshNodes} does), with the plugin and its agents on the DataNodes: decommissioning
 * finishes with every internal block of every group on a node in service, and entering
 * maintenance finishes; every replica stays byte-equal to what was written and the files read
 * back. Meanwhile another holder is busy (at its replication limit: HDFS must neither use it nor
 * rebuild its block, HDFS-14768) and a third has died, so the NameNode copies the leaving node's
 * blocks and has the plugin rebuild the lost ones in the same groups.
 */
@ClusterTest
class DecommissionTest {
  private static final int CELL = 64 * 1024;

  @TempDir
  Path tmp;

  @ParameterizedTest(name = "{0}({1},{2})")
  @CsvSource({"clay, 4, 2", "butterfly, 4, 2", "lrc-l2, 4, 3"})
  void decommissionAndMaintenanceFinishWithEveryBlockIntact(String codec, int k, int m) throws Exception {
    Configuration conf = new Configuration(false);
    conf.setInt(DFSConfigKeys.DFS_NAMENODE_REPLICATION_STREAMS_HARD_LIMIT_KEY, 4);
    conf.setInt(DFSConfigKeys.DFS_NAMENODE_DECOMMISSION_INTERVAL_KEY, 1);
    int n = k + m;
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), n + 3, codec, k, m, CELL, 4, conf)) {
      org.apache.hadoop.fs.Path file = c.write("f", (int) (k * 4L * CELL * 2 + 3 * CELL + 99), 3);
      c.write("small", CELL + 123, 4);
      c.awaitHealthy();
      ReconstructionLog.clear();
      FSNamesystem ns = c.cluster.getNamesystem();
      DatanodeManager dm = ns.getBlockManager().getDatanodeManager();
      DatanodeDescriptor leaving = dm.getDatanode(c.holder(file, 0, 0));
      DatanodeDescriptor busy = dm.getDatanode(c.holder(file, 0, 1));
      c.stop(c.holder(file, 0, 2)); // a lost block to rebuild while the node leaves
      for (int i = 0; i < 4; i++) {
        busy.incrementPendingReplicationWithoutTargets();
      }
      try {
        ns.writeLock();
        try {
          dm.getDatanodeAdminManager().startDecommission(leaving);
        } finally {
          ns.writeUnlock();
        }
        await(leaving, DatanodeDescriptor::isDecommissioned, "decommissioned");
      } finally {
        for (int i = 0; i < 4; i++) {
          busy.decrementPendingReplicationWithoutTargets();
        }
      }
      c.awaitReconstruction(120_000); // the dead node's blocks in the groups the leaving node was not in
      assertEveryIndexInService(c, n);
      assertTrue(ReconstructionLog.reports().stream().anyMatch(r -> r.succeeded()),
          "the plugin rebuilt the lost blocks: " + ReconstructionLog.reports());
      c.verifyBlocks(); // each replica listed (the leaving node's, copies, rebuilt blocks) is the one written
      c.verifyFiles();
      System.out.printf("%s(%d,%d): decommissioned; the plugin's tasks meanwhile: %s%n", codec, k, m,
          ReconstructionLog.reports());

      DatanodeDescriptor resting = dm.getDatanode(c.holder(file, 1, 2));
      ns.writeLock();
      try {
        dm.getDatanodeAdminManager().startMaintenance(resting, Long.MAX_VALUE);
      } finally {
        ns.writeUnlock();
      }
      await(resting, DatanodeDescriptor::isInMaintenance, "in maintenance");
      c.verifyBlocks();
      // HDFS neither copies nor serves a node's blocks while it is in maintenance: HDFS's own
      // reader decodes them (which a vector code refuses), our client rebuilds them.
      try (FileSystem ours = FileSystem.newInstance(c.fs.getUri(), ourClientConf(c.conf))) {
        for (java.util.Map.Entry<org.apache.hadoop.fs.Path, byte[]> e : c.files.entrySet()) {
          try (org.apache.hadoop.fs.FSDataInputStream in = ours.open(e.getKey())) {
            assertArrayEquals(e.getValue(), in.readAllBytes(), e.getKey() + " with a node in maintenance");
          }
        }
      }
    }
  }

  private static Configuration ourClientConf(Configuration conf) {
    Configuration c = new Configuration(conf);
    c.set("fs.hdfs.impl", io.ecrepair.hdfs.client.EcRepairDistributedFileSystem.class.getName());
    c.setBoolean("fs.hdfs.impl.disable.cache", true);
    return c;
  }

  /** Every internal block of every group (that holds bytes) has a location on a node in service. */
  private static void assertEveryIndexInService(RepairCluster c, int n) throws Exception {
    for (org.apache.hadoop.fs.Path f : c.files.keySet()) {
      for (LocatedBlock lb : c.groups(f)) {
        LocatedStripedBlock g = (LocatedStripedBlock) lb;
        boolean[] inService = new boolean[n];
        for (int j = 0; j < g.getBlockIndices().length; j++) {
          DatanodeInfo d = g.getLocations()[j];
          inService[g.getBlockIndices()[j]] |= d.isInService();
        }
        for (int j = 0; j < g.getBlockIndices().length; j++) {
          assertTrue(inService[g.getBlockIndices()[j]], f + " block " + g.getBlockIndices()[j] + " of " + g.getBlock()
              + " is only on nodes out of service");
        }
      }
    }
  }

  private static void await(DatanodeDescriptor node, Predicate<DatanodeDescriptor> state, String what)
      throws InterruptedException {
    long deadline = System.currentTimeMillis() + 90_000;
    while (!state.test(node)) {
      assertTrue(System.currentTimeMillis() < deadline, node + " never " + what + ": " + node.getAdminState());
      Thread.sleep(200);
    }
  }
}
