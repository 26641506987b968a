package io.ecrepair.hdfs.namenode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.ecrepair.testing.ClusterTest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.BlockStoragePolicy;
import org.apache.hadoop.hdfs.server.blockmanagement.BlockPlacementPolicy;
import org.apache.hadoop.hdfs.server.blockmanagement.BlockStoragePolicySuite;
import org.apache.hadoop.hdfs.server.blockmanagement.DatanodeDescriptor;
import org.apache.hadoop.hdfs.server.blockmanagement.DatanodeManager;
import org.apache.hadoop.hdfs.server.blockmanagement.DatanodeStorageInfo;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.net.Node;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A repair target is never a DataNode the NameNode excluded: the nodes holding a replica of the
 * group, a corrupt one included. On the benchmark cluster's thrash run, an RS(6,3) group held by
 * all 10 DataNodes (8 live units, one unit twice, and a corrupt replica of unit 0) had unit 0
 * rebuilt onto the node with its corrupt replica: HDFS's rack-fault-tolerant fallback forgets
 * the excluded nodes, the write failed there (the replica exists), and the group stayed corrupt.
 */
@ClusterTest
class RepairTargetExclusionTest {
  @TempDir
  Path tmp;

  @Test
  void noTargetWhenEveryNodeIsExcludedAndOnlyAFreeOneOtherwise() throws Exception {
    Configuration conf = new HdfsConfiguration();
    conf.setClass(DFSConfigKeys.DFS_BLOCK_PLACEMENT_EC_CLASSNAME_KEY, SpreadRepairPlacementPolicy.class,
        BlockPlacementPolicy.class);
    MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf, tmp.toFile()).numDataNodes(4).build();
    try {
      cluster.waitActive();
      BlockPlacementPolicy policy = cluster.getNamesystem().getBlockManager().getStriptedBlockPlacementPolicy();
      assertSame(SpreadRepairPlacementPolicy.class, policy.getClass());
      DatanodeManager dm = cluster.getNamesystem().getBlockManager().getDatanodeManager();
      List<DatanodeDescriptor> nodes = new ArrayList<>();
      for (DataNode dn : cluster.getDataNodes()) {
        nodes.add(dm.getDatanode(dn.getDatanodeId()));
      }
      BlockStoragePolicy storage = BlockStoragePolicySuite.createDefaultSuite().getDefaultPolicy();
      // two live units of the group on nodes 0 and 1; nodes 2 and 3 hold other replicas of it (e.g. corrupt)
      List<DatanodeStorageInfo> live = List.of(nodes.get(0).getStorageInfos()[0], nodes.get(1).getStorageInfos()[0]);
      for (int round = 0; round < 20; round++) {
        Set<Node> excluded = new HashSet<>(nodes);
        DatanodeStorageInfo[] targets = policy.chooseTarget("/ec/f", 1, nodes.get(0), live, false, excluded,
            1 << 20, storage, null);
        assertEquals(0, targets.length, "a target among the excluded nodes: "
            + (targets.length > 0 ? targets[0].getDatanodeDescriptor() : ""));
        Set<Node> allButLast = new HashSet<>(nodes.subList(0, 3));
        targets = policy.chooseTarget("/ec/f", 1, nodes.get(0), live, false, allButLast, 1 << 20, storage, null);
        assertEquals(1, targets.length);
        assertSame(nodes.get(3), targets[0].getDatanodeDescriptor(), "the one node not excluded");
      }
    } finally {
      cluster.shutdown();
    }
  }
}
