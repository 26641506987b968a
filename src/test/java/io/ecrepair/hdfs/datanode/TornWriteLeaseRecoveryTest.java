package io.ecrepair.hdfs.datanode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.RepairableCode;
import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.hdfs.task.DataNodeKeys;
import io.ecrepair.testing.ClusterTest;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.DFSClientFaultInjector;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.client.HdfsClientConfigKeys;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.blockmanagement.BlockManager;
import org.apache.hadoop.hdfs.server.datanode.DataNodeTestUtils;
import org.apache.hadoop.hdfs.server.datanode.ReplicaInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A writer that dies leaves each unit of its last group as far as its packets got. In the
 * first case the packets of one LRC local group's data units and its local parity are held in the client
 * after the first stripe, the other units receive four stripes, and the lease is recovered
 * while the writer is still stuck. HDFS keeps every stripe four units hold; from units
 * {0, 1, 4, 6} LRC(4,2,1) cannot rebuild 2 and 3, so that group could never be read or
 * repaired. The plugin's lease recovery keeps the one stripe every unit holds.
 */
@ClusterTest
class TornWriteLeaseRecoveryTest {
  private static final int CELL = 64 * 1024;
  private static final int STRIPE = 4 * CELL;

  @TempDir
  Path tmp;

  @Test
  void leaseRecoveryKeepsOnlyStripesTheCodeCanRebuild() throws Exception {
    RepairableCode lrc = RepairCatalog.code(new io.ecrepair.codes.CodeSpec("lrc-l2", 4, 3));
    assertFalse(lrc.decodable(new int[] {2, 3, 5}), "the held units are a pattern LRC(4,2,1) cannot rebuild");
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), 7, "lrc-l2", 4, 3, CELL, 8,
        new org.apache.hadoop.conf.Configuration(false))) {
      TornWrite torn = tear(c, Set.of(2, 3, 5));
      assertEquals(STRIPE, torn.length(), "the recovered file keeps the one stripe every unit holds");
      torn.verify(c);
      c.awaitHealthy();
    }
  }

  /**
   * The other way round: one unit is held, the rest decode four stripes, so the recovery keeps
   * them and leaves the short unit's replica on its DataNode, unknown to the NameNode. With
   * seven DataNodes for seven units, the only place to rebuild that unit is the DataNode
   * holding the leftover, whose write HDFS refuses while the leftover is there. The DataNode
   * reports the leftover, the NameNode deletes it, and the unit is rebuilt there. No full block
   * report is sent, since one would delete the leftover on its own.
   */
  @Test
  void aShortUnitLeftByTheRecoveryMakesRoomForItsRebuild() throws Exception {
    org.apache.hadoop.conf.Configuration conf = new org.apache.hadoop.conf.Configuration(false);
    conf.setInt(DataNodeKeys.RECOVERY_LEFTOVER_CHECK_SECONDS_KEY, 2);
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), 7, "lrc-l2", 4, 3, CELL, 8, conf)) {
      TornWrite torn = tear(c, Set.of(6));
      assertEquals(4 * STRIPE, torn.length(), "the recovery keeps the four stripes six units hold");
      DatanodeInfo leftoverHolder = torn.group().getLocations()[6];

      BlockManager bm = c.cluster.getNamesystem().getBlockManager();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
      LocatedStripedBlock now = torn.lastGroup(c);
      while (bm.getLowRedundancyBlocksCount() + bm.getPendingReconstructionBlocksCount() > 0
          || now.getLocations().length < 7) {
        assertTrue(System.nanoTime() < deadline, "unit 6 was not rebuilt in 90 s; the group has units "
            + Arrays.toString(now.getBlockIndices()) + ", " + bm.getLowRedundancyBlocksCount() + " groups low");
        Thread.sleep(200);
        now = torn.lastGroup(c);
      }
      int at = Arrays.asList(now.getLocations()).indexOf(leftoverHolder);
      assertTrue(at >= 0 && now.getBlockIndices()[at] == 6, "unit 6 was rebuilt on the leftover's DataNode");
      ReplicaInfo rebuilt = DataNodeTestUtils.fetchReplicaInfo(c.dataNode(leftoverHolder),
          now.getBlock().getBlockPoolId(), now.getBlock().getBlockId() + 6);
      assertEquals(now.getBlock().getGenerationStamp(), rebuilt.getGenerationStamp(),
          "the replica there now is the rebuilt one");
      torn.verify(c);
    }
  }

  /** The written bytes, the file, and its group as the writer saw it. */
  private record TornWrite(byte[] data, org.apache.hadoop.fs.Path file, LocatedStripedBlock group, long length) {
    LocatedStripedBlock lastGroup(RepairCluster c) throws IOException {
      return (LocatedStripedBlock) c.fs.getClient().getLocatedBlocks(file.toString(), 0).getLastLocatedBlock();
    }

    void verify(RepairCluster c) throws IOException {
      byte[] read = new byte[(int) length];
      try (FSDataInputStream in = c.fs.open(file)) {
        in.readFully(0, read);
      }
      assertArrayEquals(Arrays.copyOf(data, (int) length), read, "the kept stripes read back as written");
    }
  }

  /**
   * Writes four stripes of which the units in {@code held} receive only the first, then has
   * another client recover the lease while the writer is stuck.
   */
  private static TornWrite tear(RepairCluster c, Set<Integer> held) throws Exception {
    DFSClientFaultInjector before = DFSClientFaultInjector.get();
    HeldPackets hold = new HeldPackets(held);
    try {
      // The client's checksummer keeps up to 9 chunks back until more data comes (flush does
      // not push a striped stream), so each write ends on a multiple of 9 chunks, a little past
      // the stripe the test needs complete.
      int firstWrite = STRIPE + 512;
      int total = 4 * STRIPE + 2048;
      byte[] data = new byte[total];
      new Random(7).nextBytes(data);
      org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/ec/torn");
      // One packet per cell (128 chunks of 512 bytes and their CRCs), so a unit's bytes on disk
      // end at a cell and not at some packet boundary inside one.
      org.apache.hadoop.conf.Configuration writerConf = new org.apache.hadoop.conf.Configuration(c.conf);
      writerConf.setInt(HdfsClientConfigKeys.DFS_CLIENT_WRITE_PACKET_SIZE_KEY, 128 * (512 + 4) + 64);
      DistributedFileSystem writerFs = (DistributedFileSystem) FileSystem.newInstance(c.fs.getUri(), writerConf);
      FSDataOutputStream out = writerFs.create(file);
      out.write(data, 0, firstWrite);
      LocatedStripedBlock group = (LocatedStripedBlock) c.fs.getClient()
          .getLocatedBlocks(file.toString(), 0).getLastLocatedBlock();
      c.awaitUnitLengths(group, u -> CELL);

      DFSClientFaultInjector.set(hold);
      out.write(data, firstWrite, total - firstWrite);
      c.awaitUnitLengths(group, u -> held.contains(u) ? CELL : 4 * CELL);

      // The writer is stuck with packets in flight; another client takes the file over.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!c.fs.recoverLease(file)) {
        assertTrue(System.nanoTime() < deadline, "lease recovery did not finish in 60 s");
        Thread.sleep(200);
      }
      return new TornWrite(data, file, group, c.fs.getFileStatus(file).getLen());
    } finally {
      hold.fail();
      DFSClientFaultInjector.set(before);
    }
  }
}
