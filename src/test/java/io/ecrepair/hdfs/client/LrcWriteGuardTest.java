package io.ecrepair.hdfs.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.hdfs.datanode.HeldPackets;
import io.ecrepair.hdfs.datanode.RepairCluster;
import io.ecrepair.testing.ClusterTest;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
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
 * The DataNodes holding one LRC(4,2,1) local group's data blocks and its local parity (units 2,
 * 3 and 5) die while a client writes. HDFS's writer goes on with four units and its close
 * succeeds, leaving groups no reader can decode; through our FileSystem the write fails, and
 * the file is left closed at a length it can be read back at.
 */
@ClusterTest
class LrcWriteGuardTest {
  private static final int CELL = 64 * 1024;
  private static final Set<Integer> DYING = Set.of(2, 3, 5);

  @TempDir
  Path tmp;

  @Test
  void aWriteTheCodeCouldNotReadBackFails() throws Exception {
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), 7, "lrc-l2", 4, 3, CELL, 8,
        new Configuration(false))) {
      int stripe = 4 * CELL;
      byte[] data = new byte[4 * stripe];
      new Random(11).nextBytes(data);
      try (FileSystem ours = FileSystem.newInstance(c.fs.getUri(), ourConf(c))) {
        assertTrue(ours instanceof EcRepairDistributedFileSystem, ours.getClass().getName());
        org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/ec/guarded");
        FSDataOutputStream out = ours.create(file);
        out.write(data, 0, stripe);
        LocatedStripedBlock group = (LocatedStripedBlock) c.fs.getClient()
            .getLocatedBlocks(file.toString(), 0).getLastLocatedBlock();
        for (int i = 0; i < group.getBlockIndices().length; i++) {
          if (DYING.contains((int) group.getBlockIndices()[i])) {
            c.cluster.stopDataNode(group.getLocations()[i].getXferAddr());
          }
        }
        IOException failure = assertThrows(IOException.class, () -> {
          out.write(data, stripe, data.length - stripe);
          out.close();
        });
        assertTrue(failure.getMessage().contains("units [2, 3, 5]") && failure.getMessage().contains("cannot rebuild"),
            failure.getMessage());
        out.close(); // a second close after the failure is quiet

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!c.fs.isFileClosed(file)) {
          assertTrue(System.nanoTime() < deadline, "the file's lease was not recovered in 60 s");
          Thread.sleep(200);
        }
        long length = c.fs.getFileStatus(file).getLen();
        assertEquals(0, length % stripe, "whole stripes kept: " + length);
        assertTrue(length < data.length, "the stripes units 2 and 3 never received are not kept: " + length);
        byte[] read = new byte[(int) length];
        try (FSDataInputStream in = ours.open(file)) {
          in.readFully(0, read);
        }
        assertArrayEquals(Arrays.copyOf(data, (int) length), read);
      }
    }
  }

  @Test
  void failuresThatShowOnlyWhileClosingStillFailTheWrite() throws Exception {
    // The packets to units 2, 3 and 5 are held in the client after the first stripe, so every
    // check before close sees healthy streamers; they fail only while the close waits for
    // their acknowledgements. The close must not commit the group before it has seen that.
    DFSClientFaultInjector before = DFSClientFaultInjector.get();
    HeldPackets held = new HeldPackets(DYING);
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), 7, "lrc-l2", 4, 3, CELL, 8,
        new Configuration(false))) {
      int stripe = 4 * CELL;
      // As in TornWriteLeaseRecoveryTest: one packet per cell, and writes ending on a multiple
      // of the checksummer's 9 chunks, so the first stripe is on every unit's disk before the
      // packets are held.
      int firstWrite = stripe + 512;
      byte[] data = new byte[4 * stripe + 2048];
      new Random(13).nextBytes(data);
      Configuration conf = ourConf(c);
      conf.setInt(HdfsClientConfigKeys.DFS_CLIENT_WRITE_PACKET_SIZE_KEY, 128 * (512 + 4) + 64);
      try (FileSystem ours = FileSystem.newInstance(c.fs.getUri(), conf)) {
        org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/ec/closing");
        FSDataOutputStream out = ours.create(file);
        out.write(data, 0, firstWrite);
        LocatedStripedBlock group = (LocatedStripedBlock) c.fs.getClient()
            .getLocatedBlocks(file.toString(), 0).getLastLocatedBlock();
        c.awaitUnitLengths(group, u -> CELL);
        DFSClientFaultInjector.set(held);
        out.write(data, firstWrite, data.length - firstWrite);
        Thread failLater = new Thread(() -> {
          sleep(2000);
          held.fail();
        });
        failLater.start();
        IOException failure = assertThrows(IOException.class, out::close);
        failLater.join();
        assertTrue(failure.getMessage().contains("units [2, 3, 5]"), failure.getMessage());
        // Units 2, 3 and 5 got the first stripe before their packets were held: the recovered
        // file keeps exactly it.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!c.fs.isFileClosed(file)) {
          assertTrue(System.nanoTime() < deadline, "the file's lease was not recovered in 60 s");
          Thread.sleep(200);
        }
        assertEquals(stripe, c.fs.getFileStatus(file).getLen());
        byte[] read = new byte[stripe];
        try (FSDataInputStream in = ours.open(file)) {
          in.readFully(0, read);
        }
        assertArrayEquals(Arrays.copyOf(data, stripe), read);
      }
    } finally {
      held.fail();
      DFSClientFaultInjector.set(before);
    }
  }

  private static Configuration ourConf(RepairCluster c) {
    Configuration conf = new Configuration(c.conf);
    conf.set("fs.hdfs.impl", EcRepairDistributedFileSystem.class.getName());
    conf.setBoolean("fs.hdfs.impl.disable.cache", true);
    return conf;
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Test
  void stockWriterCompletesAGroupNobodyCanRead() throws Exception {
    // What the guard is for: the same failure through HDFS's own FileSystem.
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), 7, "lrc-l2", 4, 3, CELL, 8,
        new Configuration(false))) {
      int stripe = 4 * CELL;
      byte[] data = new byte[4 * stripe];
      new Random(12).nextBytes(data);
      DistributedFileSystem stock = c.fs;
      assertFalse(stock instanceof EcRepairDistributedFileSystem);
      org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/ec/stock");
      FSDataOutputStream out = stock.create(file);
      out.write(data, 0, stripe);
      LocatedStripedBlock group = (LocatedStripedBlock) stock.getClient()
          .getLocatedBlocks(file.toString(), 0).getLastLocatedBlock();
      for (int i = 0; i < group.getBlockIndices().length; i++) {
        if (DYING.contains((int) group.getBlockIndices()[i])) {
          c.cluster.stopDataNode(group.getLocations()[i].getXferAddr());
        }
      }
      out.write(data, stripe, data.length - stripe);
      out.close();
      assertEquals(data.length, stock.getFileStatus(file).getLen());
      assertThrows(IOException.class, () -> {
        try (FSDataInputStream in = stock.open(file)) {
          in.readFully(0, new byte[data.length]);
        }
      });
    }
  }
}
