package io.ecrepair.hdfs.datanode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.hdfs.task.ReconstructionLog;
import io.ecrepair.hdfs.task.TaskReport;
import io.ecrepair.testing.ClusterTest;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.blockmanagement.DatanodeStorageInfo;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Hadoop's reconstruction tests write constant bytes, under which a row, sub-chunk or cell
 * mix-up can rebuild a block that still looks right. Here the group is short (two and a half
 * cells: two full data cells, one partial, the rest of the data blocks empty), its bytes are
 * random, and one, then three of its blocks (the partial one, an empty-neighboured one and a
 * parity) are rebuilt at once by one reconstruction order on a DataNode outside the group;
 * every rebuilt block is compared with the one written.
 */
@ClusterTest
class ShortGroupRandomDataTest {
  private static final int CELL = 64 * 1024;

  @TempDir
  Path tmp;

  @ParameterizedTest(name = "{0}({1},{2}) loses {3}")
  @CsvSource({
      "clay, 6, 3, 1",
      "clay, 6, 3, 0 2 7",
      // Local groups {0,1}+4 and {2,3}+5, global parity 6: block 3 is empty, so 2 comes back
      // from its local parity alone and 0 needs the global one.
      "lrc-l2, 4, 3, 1",
      "lrc-l2, 4, 3, 0 2 4",
  })
  void everyRebuiltBlockEqualsTheWrittenOne(String codec, int k, int m, String lostIndices) throws Exception {
    int[] lost = java.util.Arrays.stream(lostIndices.split(" ")).mapToInt(Integer::parseInt).toArray();
    Configuration conf = new Configuration(false);
    conf.setInt(DFSConfigKeys.DFS_NAMENODE_REDUNDANCY_INTERVAL_SECONDS_KEY, 3600); // only our order runs
    ReconstructionLog.clear();
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), k + m + lost.length, codec, k, m, CELL, 8,
        conf)) {
      org.apache.hadoop.fs.Path file = c.write("short", 2 * CELL + CELL / 2 + 17, 40 + lost.length);
      LocatedStripedBlock group = (LocatedStripedBlock) c.groups(file).get(0);
      List<DatanodeStorageInfo> targets = Orders.freeStorages(c, lost.length, group);
      assertEquals(lost.length, targets.size(), "a free DataNode per lost block");

      Orders.send(c, c.dataNode(targets.get(0).getDatanodeDescriptor()), group, new byte[0], targets, lost);
      TaskReport report = Orders.awaitReport(group.getBlock().getBlockId());
      assertTrue(report.succeeded() && report.engine().equals("ec-repair"), report.toString());

      for (int index : lost) {
        byte[] written = c.original.get(file + "/0/" + index);
        assertTrue(written != null && written.length > 0, "block " + index + " had bytes");
        byte[] rebuilt = Orders.awaitRebuilt(c, group, index, targets);
        assertTrue(rebuilt != null, "no target finalized block " + index + ": " + report);
        assertArrayEquals(written, rebuilt, codec + " block " + index);
      }
    }
  }
}
