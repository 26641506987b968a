package io.ecrepair.hdfs.datanode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.RepairableCode;
import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.testing.ClusterTest;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.DFSClientFaultInjector;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.client.HdfsClientConfigKeys;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.DataNodeTestUtils;
import org.apache.hadoop.hdfs.server.datanode.ReplicaInfo;
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
  private static final Pattern INTERNAL_BLOCK = Pattern.compile("blk_(-?\\d+)_");

  @TempDir
  Path tmp;

  @Test
  void leaseRecoveryKeepsOnlyStripesTheCodeCanRebuild() throws Exception {
    RepairableCode lrc = RepairCatalog.code(new io.ecrepair.codes.CodeSpec("lrc-l2", 4, 3));
    assertFalse(lrc.decodable(new int[] {2, 3, 5}), "the held units are a pattern LRC(4,2,1) cannot rebuild");

    DFSClientFaultInjector before = DFSClientFaultInjector.get();
    HoldPackets hold = new HoldPackets();
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
      awaitUnitLengths(c, group, u -> CELL);

      DFSClientFaultInjector.set(hold);
      out.write(data, firstWrite, total - firstWrite);
      awaitUnitLengths(c, group, u -> HELD.contains(u) ? CELL : 4 * CELL);

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
      hold.release();
    } finally {
      hold.release();
      DFSClientFaultInjector.set(before);
    }
  }

  private static void awaitUnitLengths(RepairCluster c, LocatedStripedBlock group,
                                       java.util.function.IntUnaryOperator expected) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    String last = "";
    while (System.nanoTime() < deadline) {
      last = unitLengths(c, group);
      StringBuilder want = new StringBuilder();
      for (int u = 0; u < 7; u++) {
        want.append(u).append('=').append(expected.applyAsInt(u)).append(' ');
      }
      if (last.contentEquals(want)) {
        return;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("unit lengths on the DataNodes stayed " + last);
  }

  private static String unitLengths(RepairCluster c, LocatedStripedBlock group) throws IOException {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < group.getBlockIndices().length; i++) {
      int unit = group.getBlockIndices()[i];
      DataNode dn = c.dataNode(group.getLocations()[i]);
      ReplicaInfo r = DataNodeTestUtils.fetchReplicaInfo(dn, group.getBlock().getBlockPoolId(),
          group.getBlock().getBlockId() + unit);
      s.append(unit).append('=').append(r == null ? -1 : r.getBytesOnDisk()).append(' ');
    }
    return s.toString();
  }

  /** Stops the client's streamers of the held units before they send a packet, until released. */
  private static final class HoldPackets extends DFSClientFaultInjector {
    private final CountDownLatch released = new CountDownLatch(1);

    @Override
    public boolean corruptPacket() {
      Matcher m = INTERNAL_BLOCK.matcher(Thread.currentThread().getName());
      if (m.find() && HELD.contains((int) (Long.parseLong(m.group(1)) & 0xF))) {
        try {
          released.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        // Never send the held packet: the writer is meant to have died.
        throw new IllegalStateException("packet held by the test");
      }
      return false;
    }

    void release() {
      released.countDown();
    }
  }
}
