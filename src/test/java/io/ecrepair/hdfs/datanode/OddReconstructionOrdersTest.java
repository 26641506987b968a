package io.ecrepair.hdfs.datanode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.hdfs.task.ReconstructionLog;
import io.ecrepair.hdfs.task.TaskReport;
import io.ecrepair.testing.ClusterTest;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.blockmanagement.DatanodeStorageInfo;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reconstruction orders as a NameNode hands them out while DataNodes decommission or are busy
 * (the cases of HDFS-14768, HDFS-15186 and HDFS-16566), given to a DataNode's
 * ErasureCodingWorker as its heartbeat would: more targets than missing blocks, and a missing
 * block the NameNode excludes because another task rebuilds it. The plugin rebuilds exactly the
 * missing, not excluded blocks onto the first targets, byte for byte, writes nothing to the
 * others, and gives back the xmits HDFS charged.
 */
@ClusterTest
class OddReconstructionOrdersTest {
  private static final int CELL = 64 * 1024;

  @TempDir
  Path tmp;

  @Test
  void moreTargetsThanMissingBlocksRebuildOnlyTheMissingOne() throws Exception {
    try (RepairCluster c = cluster()) {
      org.apache.hadoop.fs.Path small = c.write("small", CELL + 99, 8); // data blocks 2 and 3 hold nothing
      c.stop(c.holder(small, 0, 4));
      // Two targets: HDFS allows as many as the group has blocks absent (4 and the empty 2 and 3).
      order(c, small, new byte[0], 2, List.of(4));
    }
  }

  @Test
  void aBlockTheNameNodeExcludesIsNotRebuilt() throws Exception {
    try (RepairCluster c = cluster()) {
      org.apache.hadoop.fs.Path file = c.write("f", 4 * 4 * CELL + 3 * CELL + 99, 7);
      c.stop(c.holder(file, 0, 2), c.holder(file, 0, 3));
      // Block 3 is excluded (another DataNode rebuilds it): the second target gets nothing.
      order(c, file, new byte[] {3}, 2, List.of(2));
    }
  }

  private RepairCluster cluster() throws java.io.IOException {
    Configuration conf = new Configuration(false);
    conf.setInt(DFSConfigKeys.DFS_NAMENODE_REDUNDANCY_INTERVAL_SECONDS_KEY, 3600); // only our orders run
    return new RepairCluster(tmp.resolve("dfs").toFile(), 9, "clay", 4, 2, CELL, 4, conf);
  }

  /**
   * Sends the coordinator (the first target, as the NameNode does) an order to rebuild the
   * group's missing blocks onto {@code targetCount} DataNodes holding none of the group, and
   * checks that exactly {@code rebuilt} were written, to the first targets, equal to the originals.
   */
  private static void order(RepairCluster c, org.apache.hadoop.fs.Path file, byte[] excluded, int targetCount,
      List<Integer> rebuilt) throws Exception {
    LocatedStripedBlock now = (LocatedStripedBlock) c.groups(file).get(0);
    List<DatanodeStorageInfo> targets = Orders.freeStorages(c, targetCount, now);
    assertEquals(targetCount, targets.size(), "free DataNodes for the targets");
    DataNode coordinator = c.dataNode(targets.get(0).getDatanodeDescriptor());
    ReconstructionLog.clear();
    Orders.send(c, coordinator, now, excluded, targets);
    TaskReport report = Orders.awaitReport(now.getBlock().getBlockId());
    assertEquals(1, ReconstructionLog.reports().size(), ReconstructionLog.reports().toString());
    assertTrue(report.succeeded(), report.toString());
    assertEquals(rebuilt, Arrays.stream(report.lost()).boxed().toList(), "the blocks rebuilt");
    long deadline = System.currentTimeMillis() + 10_000;
    while (coordinator.getXmitsInProgress() != 0) {
      assertTrue(System.currentTimeMillis() < deadline, "xmits not given back: " + coordinator.getXmitsInProgress());
      Thread.sleep(50);
    }

    String bpid = now.getBlock().getBlockPoolId();
    for (int t = 0; t < targets.size(); t++) {
      DataNode target = c.dataNode(targets.get(t).getDatanodeDescriptor());
      for (int index = 0; index < c.policy.getNumDataUnits() + c.policy.getNumParityUnits(); index++) {
        ExtendedBlock internal = c.internal(now, index);
        boolean expected = t < rebuilt.size() && rebuilt.get(t) == index;
        if (expected) {
          // The coordinator is done once its last packet is acknowledged; the target finalizes
          // the replica on its own thread just after.
          byte[] original = c.original.get(file + "/0/" + index);
          long until = System.currentTimeMillis() + 10_000;
          while (lengthOn(target, internal) != original.length && System.currentTimeMillis() < until) {
            Thread.sleep(50);
          }
          assertArrayEquals(original, c.replica(targets.get(t).getDatanodeDescriptor(), internal),
              "internal block " + index + " rebuilt on target " + t);
        } else {
          assertNull(target.getFSDataset().getReplica(bpid, internal.getBlockId()),
              "target " + t + " holds internal block " + index);
        }
      }
    }
  }

  /** The replica's length on {@code dn}; -1 while it has none. */
  private static long lengthOn(DataNode dn, ExtendedBlock block) {
    try {
      return dn.getFSDataset().getLength(block);
    } catch (java.io.IOException e) {
      return -1;
    }
  }
}
