package io.ecrepair.hdfs.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.harness.MiniHdfs;
import io.ecrepair.testing.ClusterTest;
import java.io.File;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.io.IOUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A degraded read whose helper replica fails its stored checksums (a byte changed on disk):
 * the read still returns the right bytes, without that helper, and the client reports the
 * replica to the NameNode as HDFS's own stream does, never only skipping it.
 */
@ClusterTest
class CorruptHelperReadTest {
  private static final int CELL = 64 * 1024;

  @TempDir
  Path tmp;

  @Test
  void aHelperReplicaFailingItsChecksumsIsReportedAndTheReadIsRight() throws Exception {
    try (DegradedCluster c = new DegradedCluster(tmp.resolve("dfs").toFile(), 7)) {
      ErasureCodingPolicy policy = c.policy("clay", 4, 2, CELL);
      org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/clay/f");
      byte[] data = c.write(file, policy, 4 * 2 * CELL, 2L * CELL, 3);
      LocatedStripedBlock group = (LocatedStripedBlock) c.groups(file).get(0);
      // Block 1's first sub-chunk: the repair of block 0's cells reads it (Clay plane 0).
      flipByteOnDisk(c, MiniHdfs.internal(group, 1, policy), 100);
      var helper = c.holder(file, 0, 1);
      c.stopAndForget(c.holder(file, 0, 0));
      long reportedBefore = DegradedReadStats.total().corruptReplicasReported();

      byte[] back = new byte[data.length];
      try (FSDataInputStream in = c.fs.open(file)) {
        IOUtils.readFully(in, back, 0, back.length);
        assertTrue(DegradedReadStats.of(in).cellsRebuilt() > 0, "the lost block's cells were rebuilt");
        assertEquals(1, DegradedReadStats.of(in).corruptReplicasReported(), "the corrupt helper was reported");
      }
      assertArrayEquals(data, back, "the read went on without the corrupt helper");
      assertEquals(reportedBefore + 1, DegradedReadStats.total().corruptReplicasReported());
      var bm = c.cluster.getNamesystem().getBlockManager();
      var corrupt = bm.getCorruptReplicas(bm.getStoredBlock(group.getBlock().getLocalBlock()));
      assertTrue(corrupt != null && corrupt.stream().anyMatch(d -> d.getXferPort() == helper.getXferPort()),
          "the NameNode marked the helper's replica corrupt: " + corrupt);
      assertEquals(DegradedReadStats.total().corruptReplicasReported(),
          ClientMetrics.snapshot().get("CorruptReplicasReported"));
    }
  }

  private static void flipByteOnDisk(DegradedCluster c, ExtendedBlock block, long offset) throws Exception {
    for (int dn = 0; dn < c.cluster.getDataNodes().size(); dn++) {
      File f = c.cluster.getBlockFile(dn, block);
      if (f != null && f.exists()) {
        try (RandomAccessFile raf = new RandomAccessFile(f, "rw")) {
          raf.seek(offset);
          int b = raf.read();
          raf.seek(offset);
          raf.write(b ^ 0x5a);
        }
        return;
      }
    }
    throw new AssertionError("no replica of " + block + " on disk");
  }
}
