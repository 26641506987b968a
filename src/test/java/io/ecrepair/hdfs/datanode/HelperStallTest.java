package io.ecrepair.hdfs.datanode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.hdfs.agent.ReadFaults;
import io.ecrepair.hdfs.task.DataNodeKeys;
import io.ecrepair.hdfs.task.ReconstructionLog;
import io.ecrepair.hdfs.task.TaskReport;
import io.ecrepair.testing.ClusterTest;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.blockmanagement.DatanodeStorageInfo;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HDFS-15240 class of bug on our path: a helper's reader stalls, holding received bytes and
 * a row buffer, past the striped-read timeout; the helper is replaced and the repair finishes
 * without it; a second repair on the same DataNode then runs while that reader wakes up and
 * copies its bytes into the row buffer. Neither rebuilt block may take a byte from the other's buffers: both are
 * compared with the originals. (HDFS's version of this test stalls its own StripedBlockReader,
 * which the plugin does not use.)
 */
@ClusterTest
class HelperStallTest {
  private static final int CELL = 64 * 1024;

  @TempDir
  Path tmp;

  @ParameterizedTest(name = "{0}({1},{2})")
  @CsvSource({"clay, 4, 2", "lrc-l2, 4, 3"})
  void aStalledHelperReadDoesNotWriteIntoTheNextRepair(String codec, int k, int m) throws Exception {
    Configuration conf = new Configuration(false);
    conf.setInt(DFSConfigKeys.DFS_NAMENODE_REDUNDANCY_INTERVAL_SECONDS_KEY, 3600); // only our orders run
    conf.setInt(DFSConfigKeys.DFS_DN_EC_RECONSTRUCTION_STRIPED_READ_TIMEOUT_MILLIS_KEY, 1000);
    // About 2 s per repair, so that the second one is still reading when the stalled reader wakes.
    conf.setLong(DFSConfigKeys.DFS_DATANODE_EC_RECONSTRUCT_READ_BANDWIDTHPERSEC_KEY, 1 << 20);
    conf.setBoolean(DataNodeKeys.PARALLEL_KEY, false); // the coordinator reads every helper itself
    ReconstructionLog.clear();
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), 2 * (k + m) + 1, codec, k, m, CELL, 8, conf)) {
      org.apache.hadoop.fs.Path a = c.write("a", k * 8 * CELL, 1);
      org.apache.hadoop.fs.Path b = c.write("b", k * 8 * CELL, 2);
      LocatedStripedBlock groupA = (LocatedStripedBlock) c.groups(a).get(0);
      LocatedStripedBlock groupB = (LocatedStripedBlock) c.groups(b).get(0);
      List<DatanodeStorageInfo> target = Orders.freeStorages(c, 1, groupA, groupB);
      assertTrue(!target.isEmpty(), "a DataNode holding neither group");
      DataNode coordinator = c.dataNode(target.get(0).getDatanodeDescriptor());
      DatanodeInfo stalled = c.holder(a, 0, 1);
      long idB = groupB.getBlock().getBlockId();

      AtomicInteger writes = new AtomicInteger();
      CountDownLatch woke = new CountDownLatch(1);
      ReadFaults.set(new ReadFaults.Hook() {
        @Override
        public void beforeCellWrite(DatanodeInfo source) {
          // The stalled helper's reader, holding bytes of its second packet and a row buffer:
          // past the timeout, until the second repair reads, then a little more.
          if (source.getXferPort() != stalled.getXferPort() || writes.incrementAndGet() != 2) {
            return;
          }
          try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!ReconstructionLog.running().contains(idB) && System.nanoTime() < deadline) {
              Thread.sleep(20);
            }
            Thread.sleep(500);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          } finally {
            woke.countDown();
          }
        }
      });
      try {
        Orders.send(c, coordinator, groupA, new byte[0], target, 0);
        TaskReport first = Orders.awaitReport(groupA.getBlock().getBlockId());
        assertTrue(first.succeeded() && first.helperReplacements() > 0, "the stalled helper was replaced: " + first);
        assertTrue(woke.getCount() == 1, "the stalled reader still waits when the second repair starts");
        Orders.send(c, coordinator, groupB, new byte[0], target, 0);
        assertTrue(woke.await(60, TimeUnit.SECONDS), "the stalled reader woke");
        TaskReport second = Orders.awaitReport(idB);
        assertTrue(second.succeeded(), second.toString());
      } finally {
        ReadFaults.set(null);
      }
      assertArrayEquals(c.original.get(a + "/0/0"), Orders.awaitRebuilt(c, groupA, 0, target),
          "block 0 of the first group");
      assertArrayEquals(c.original.get(b + "/0/0"), Orders.awaitRebuilt(c, groupB, 0, target),
          "block 0 of the second group");
    }
  }
}
