package io.ecrepair.hdfs.datanode;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.hdfs.task.ReconstructionLog;
import io.ecrepair.hdfs.task.TaskReport;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.blockmanagement.DatanodeStorageInfo;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.protocol.BlockECReconstructionCommand.BlockECReconstructionInfo;

/**
 * Reconstruction orders given to a DataNode's ErasureCodingWorker as its heartbeat would, for
 * tests that need a chosen order on a chosen DataNode (the NameNode's own scheduling off).
 */
final class Orders {
  private Orders() {}

  /** Storages of up to {@code count} running DataNodes holding no block of {@code groups} and not stopped. */
  static List<DatanodeStorageInfo> freeStorages(RepairCluster c, int count, LocatedStripedBlock... groups)
      throws IOException {
    Set<String> busy = new HashSet<>();
    for (LocatedStripedBlock g : groups) {
      for (DatanodeInfo d : g.getLocations()) {
        busy.add(d.getXferAddr());
      }
    }
    for (DatanodeInfo d : c.stopped) {
      busy.add(d.getXferAddr());
    }
    List<DatanodeStorageInfo> out = new ArrayList<>();
    for (DataNode dn : c.cluster.getDataNodes()) {
      if (!busy.contains(dn.getDatanodeId().getXferAddr()) && out.size() < count) {
        out.add(c.cluster.getNamesystem().getBlockManager().getDatanodeManager()
            .getDatanode(dn.getDatanodeId()).getStorageInfos()[0]);
      }
    }
    return out;
  }

  /**
   * Has {@code coordinator} rebuild what {@code group}'s located blocks lack onto {@code targets}
   * (HDFS's worker picks the indices), the blocks of indices {@code unoffered} counting as lost
   * too (they are not offered as sources).
   */
  static void send(RepairCluster c, DataNode coordinator, LocatedStripedBlock group, byte[] excluded,
                   List<DatanodeStorageInfo> targets, int... unoffered) {
    List<DatanodeInfo> sources = new ArrayList<>();
    List<Byte> indices = new ArrayList<>();
    for (int j = 0; j < group.getBlockIndices().length; j++) {
      int index = group.getBlockIndices()[j];
      if (java.util.Arrays.stream(unoffered).noneMatch(u -> u == index)) {
        sources.add(group.getLocations()[j]);
        indices.add((byte) index);
      }
    }
    byte[] live = new byte[indices.size()];
    for (int i = 0; i < live.length; i++) {
      live[i] = indices.get(i);
    }
    BlockECReconstructionInfo info = new BlockECReconstructionInfo(group.getBlock(),
        sources.toArray(new DatanodeInfo[0]), targets.toArray(new DatanodeStorageInfo[0]), live, excluded, c.policy);
    coordinator.getErasureCodingWorker().processErasureCodingTasks(List.of(info));
  }

  /** The report of the task of block group {@code groupId}, once it ended (60 s at most). */
  static TaskReport awaitReport(long groupId) throws IOException, InterruptedException {
    long deadline = System.currentTimeMillis() + 60_000;
    while (true) {
      List<TaskReport> reports = ReconstructionLog.reports(r -> r.blockGroupId() == groupId);
      if (!reports.isEmpty() && !ReconstructionLog.running().contains(groupId)) {
        return reports.get(reports.size() - 1);
      }
      assertTrue(System.currentTimeMillis() < deadline, "no task of block group " + groupId + " ended");
      Thread.sleep(20);
    }
  }

  /**
   * The replica of block {@code index} that one of {@code targets} holds once finalized (30 s at
   * most; a target finalizes after the task's last packet, as with HDFS's own tasks), or null.
   */
  static byte[] awaitRebuilt(RepairCluster c, LocatedStripedBlock group, int index,
                             List<DatanodeStorageInfo> targets) throws IOException, InterruptedException {
    long deadline = System.currentTimeMillis() + 30_000;
    while (System.currentTimeMillis() < deadline) {
      for (DatanodeStorageInfo t : targets) {
        DatanodeInfo node = t.getDatanodeDescriptor();
        if (c.dataNode(node).getFSDataset().isValidBlock(c.internal(group, index))) {
          return c.replica(node, c.internal(group, index));
        }
      }
      Thread.sleep(20);
    }
    return null;
  }
}
