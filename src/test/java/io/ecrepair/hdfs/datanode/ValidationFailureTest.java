package io.ecrepair.hdfs.datanode;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.hdfs.ListedUnits;
import io.ecrepair.hdfs.task.ReconstructionLog;
import io.ecrepair.hdfs.task.TaskReport;
import io.ecrepair.testing.ClusterTest;
import java.io.DataInputStream;
import java.io.File;
import java.io.FileInputStream;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.datanode.BlockMetadataHeader;
import org.apache.hadoop.util.DataChecksum;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A helper whose replica holds wrong bytes under valid checksums (written wrong, so HDFS's
 * checksums cannot see it) feeds a repair: with {@code dfs.datanode.ec.reconstruction.validation}
 * the rebuilt rows are recomputed without one helper, the two disagree, and the task fails with
 * nothing committed: the lost block stays missing rather than being rebuilt wrong.
 */
@ClusterTest
class ValidationFailureTest {
  private static final int CELL = 64 * 1024;
  private static final int CELLS_PER_BLOCK = 4;

  @TempDir
  Path tmp;

  @BeforeEach
  @AfterEach
  void clear() {
    ReconstructionLog.clear();
  }

  @Test
  void wrongBytesWithValidChecksumsFailValidationAndNothingIsCommitted() throws Exception {
    Configuration extra = new Configuration(false);
    extra.setBoolean(DFSConfigKeys.DFS_DN_EC_RECONSTRUCTION_VALIDATION_KEY, true);
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), 8, "clay", 4, 2, CELL, CELLS_PER_BLOCK,
        extra)) {
      org.apache.hadoop.fs.Path file = c.write("f", 4 * CELLS_PER_BLOCK * CELL, 6);
      c.awaitHealthy();
      // Block 1's first sub-chunk is one the repair of block 0 reads (Clay plane 0).
      rewriteWithValidChecksums(c, (LocatedStripedBlock) c.groups(file).get(0), 1, 100);
      DatanodeInfo victim = c.holder(file, 0, 0);
      c.lose(victim);

      long deadline = System.currentTimeMillis() + 90_000;
      while (ReconstructionLog.reports().stream().noneMatch(ValidationFailureTest::failedValidation)) {
        assertTrue(System.currentTimeMillis() < deadline, "no task failed validation: " + ReconstructionLog.reports());
        Thread.sleep(200);
      }
      List<TaskReport> reports = ReconstructionLog.reports();
      assertTrue(reports.stream().noneMatch(TaskReport::succeeded), "a task committed a block: " + reports);
      Set<Integer> missing = ListedUnits.unlisted((LocatedStripedBlock) c.groups(file).get(0), c.policy,
          Set.of(victim.getXferPort()));
      assertTrue(missing.contains(0), "block 0 is still missing, not rebuilt wrong: " + missing);
    }
  }

  private static boolean failedValidation(TaskReport r) {
    return r.error() != null && r.error().contains("validation failed");
  }

  /** Changes one byte of internal block {@code index}'s replica and writes checksums that match the change. */
  private static void rewriteWithValidChecksums(RepairCluster c, LocatedStripedBlock group, int index, long offset)
      throws Exception {
    int dn = CorruptReplicaTest.flipByteOnDisk(c, group, index, offset);
    ExtendedBlock block = c.internal(group, index);
    File meta = c.cluster.getBlockMetadataFile(dn, block);
    DataChecksum checksum;
    try (DataInputStream in = new DataInputStream(new FileInputStream(meta))) {
      checksum = BlockMetadataHeader.readHeader(in).getChecksum();
    }
    byte[] bytes = Files.readAllBytes(c.cluster.getBlockFile(dn, block).toPath());
    int chunks = (bytes.length + checksum.getBytesPerChecksum() - 1) / checksum.getBytesPerChecksum();
    ByteBuffer sums = ByteBuffer.allocate(chunks * checksum.getChecksumSize());
    checksum.calculateChunkedSums(ByteBuffer.wrap(bytes), sums);
    try (RandomAccessFile raf = new RandomAccessFile(meta, "rw")) {
      raf.seek(BlockMetadataHeader.getHeaderSize());
      raf.write(sums.array());
    }
  }
}
