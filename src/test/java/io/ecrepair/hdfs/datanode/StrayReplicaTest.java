package io.ecrepair.hdfs.datanode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.testing.ClusterTest;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.protocol.Block;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A loss starts only on a healthy cluster: a replica a DataNode keeps without the NameNode
 * placing it there (a failed write's leftover) is found, and the wait ends once the NameNode,
 * told by a full block report, has it deleted; a block gone before the loss is rebuilt first.
 */
@ClusterTest
class StrayReplicaTest {
  @TempDir
  Path tmp;

  @Test
  void aReplicaTheNameNodeDoesNotPlaceIsWaitedOut() throws Exception {
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), 6, "rs", 3, 2, 64 * 1024, 2,
        new Configuration(false))) {
      c.write("file", 3 * 64 * 1024 + 5, 1);
      c.awaitHealthy(); // a write's own leftovers (a failed streamer on a loaded machine) are not the subject
      assertEquals("", c.strayReplicas(), "a settled cluster is clean");
      DataNode dn = c.cluster.getDataNodes().get(2);
      ExtendedBlock unknown = new ExtendedBlock(c.cluster.getNamesystem().getBlockPoolId(), 4242L, 0, 1001);
      c.cluster.getFsDatasetTestUtils(dn).createFinalizedReplica(unknown);
      assertTrue(c.strayReplicas().contains(dn.getXferAddress().toString()), "the stray is found: " + c.strayReplicas());
      c.awaitHealthy();
      assertEquals("", c.strayReplicas(), "the NameNode had the stray deleted");
    }
  }

  @Test
  void aBlockLostBeforeTheLossIsRebuiltFirst() throws Exception {
    // 6 DataNodes for 5 internal blocks: one is free to host a rebuilt block.
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), 6, "rs", 3, 2, 64 * 1024, 2,
        new Configuration(false))) {
      org.apache.hadoop.fs.Path file = c.write("file", 3 * 2 * 64 * 1024, 1);
      c.awaitHealthy();
      assertEquals("", c.unhealthy(), "a settled cluster is healthy");
      LocatedStripedBlock group = (LocatedStripedBlock) c.groups(file).get(0);
      DataNode dn = c.dataNode(c.holder(file, 0, 1));
      dn.getFSDataset().invalidate(group.getBlock().getBlockPoolId(), new Block[] {c.internal(group, 1).getLocalBlock()});
      assertFalse(c.unhealthy().isEmpty(), "a replica gone behind the NameNode's back is noticed");
      c.awaitHealthy();
      assertEquals("", c.unhealthy());
      assertEquals(c.original.size(), c.verifyBlocks(), "internal block 1 was rebuilt, byte for byte");
    }
  }
}
