package io.ecrepair.hdfs.datanode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.RepairableCode;
import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.testing.ClusterTest;
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
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A writer that dies leaves each unit of its last group as far as its packets got. Here the
 * packets of one LRC local group's data units and its local parity are held in the client
 * after the first stripe, the other units receive four stripes, and the lease is recovered
 * while the writer is still stuck. HDFS keeps every stripe four units hold; from units
 * {0, 1, 4, 6} LRC(4,2,1) cannot rebuild 2 and 3, so that group could never be read or
 * repaired. The plugin's lease recovery keeps the one stripe every unit holds.
 */
@ClusterTest
class TornWriteLeaseRecoveryTest {
  private static final int CELL = 64 * 1024;
  private static final Set<Integer> HELD = Set.of(2, 3, 5);

  @TempDir
  Path tmp;

  @Test
  void leaseRecoveryKeepsOnlyStripesTheCodeCanRebuild() throws Exception {
    RepairableCode lrc = RepairCatalog.code(new io.ecrepair.codes.CodeSpec("lrc-l2", 4, 3));
    assertFalse(lrc.decodable(new int[] {2, 3, 5}), "the held units are a pattern LRC(4,2,1) cannot rebuild");

    DFSClientFaultInjector before = DFSClientFaultInjector.get();
    HeldPackets hold = new HeldPackets(HELD);
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), 7, "lrc-l2", 4, 3, CELL, 8,
        new org.apache.hadoop.conf.Configuration(false))) {
      int stripe = 4 * CELL;
      // The client's checksummer keeps up to 9 chunks back until more data comes (flush does
      // not push a striped stream), so each write ends on a multiple of 9 chunks, a little past
      // the stripe the test needs complete.
      int firstWrite = stripe + 512;
      int total = 4 * stripe + 2048;
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
      c.awaitUnitLengths(group, u -> HELD.contains(u) ? CELL : 4 * CELL);

      // The writer is stuck with packets in flight; another client takes the file over.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!c.fs.recoverLease(file)) {
        assertTrue(System.nanoTime() < deadline, "lease recovery did not finish in 60 s");
        Thread.sleep(200);
      }

      long length = c.fs.getFileStatus(file).getLen();
      assertEquals(stripe, length, "the recovered file keeps the one stripe every unit holds");
      byte[] read = new byte[(int) length];
      try (FSDataInputStream in = c.fs.open(file)) {
        in.readFully(0, read);
      }
      assertArrayEquals(Arrays.copyOf(data, (int) length), read, "the kept stripe reads back as written");
      c.awaitHealthy();
      hold.fail();
    } finally {
      hold.fail();
      DFSClientFaultInjector.set(before);
    }
  }
}
