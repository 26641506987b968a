package io.ecrepair.hdfs.datanode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.hdfs.task.DataNodeKeys;
import io.ecrepair.hdfs.task.ReconstructionLog;
import io.ecrepair.testing.ClusterTest;
import java.io.File;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A helper's replica whose bytes no longer match their stored checksums (a byte changed on
 * disk) is reported to the NameNode, never only skipped: the repair goes on without it, the
 * NameNode rebuilds that replica too, and in the end every internal block equals the original.
 * Without the report the corrupt replica would stay listed and the final comparison would fail.
 */
@ClusterTest
class CorruptReplicaTest {
  private static final int CELL = 64 * 1024;
  private static final int CELLS_PER_BLOCK = 4;

  @TempDir
  Path tmp;

  @BeforeEach
  @AfterEach
  void clear() {
    ReconstructionLog.clear();
  }

  /** Central repair reading its helpers through HDFS's block reads. */
  @Test
  void aCorruptHelperIsReportedByTheRebuildingDataNode() throws Exception {
    repairAroundACorruptHelper(new Configuration(false));
  }

  /** A parallel repair: the helper's agent finds its own replica corrupt and reports it itself. */
  @Test
  void aCorruptParticipantReportsItsOwnReplica() throws Exception {
    RepairCatalog.searchParallelPlans(new CodeSpec("clay", 4, 2));
    Configuration agents = new Configuration(false);
    agents.setInt(DataNodeKeys.AGENT_PORT_OFFSET_KEY, 7);
    repairAroundACorruptHelper(agents);
  }

  private void repairAroundACorruptHelper(Configuration extra) throws Exception {
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), 8, "clay", 4, 2, CELL, CELLS_PER_BLOCK,
        extra)) {
      org.apache.hadoop.fs.Path file = c.write("one-group", 4 * CELLS_PER_BLOCK * CELL, 5);
      c.awaitHealthy();
      DatanodeInfo victim = c.holder(file, 0, 0);
      // Block 1's first sub-chunk is one the repair of block 0 reads (Clay plane 0).
      LocatedStripedBlock group = (LocatedStripedBlock) c.groups(file).get(0);
      flipByteOnDisk(c, group, 1, 100);
      DatanodeInfo helper = c.holder(file, 0, 1);
      // The NameNode's corrupt-replica list (what fsck shows) holds the helper's replica from the
      // report until it rebuilt block 1 elsewhere: watched throughout the repair.
      AtomicBoolean listedCorrupt = new AtomicBoolean();
      Thread watcher = new Thread(() -> watchCorrupt(c, group, helper, listedCorrupt), "corrupt-watcher");
      watcher.setDaemon(true);
      watcher.start();
      c.lose(victim);
      c.awaitReconstruction(120_000);
      c.awaitHealthy(); // nothing corrupt or missing left: the NameNode also rebuilt block 1
      watcher.interrupt();
      watcher.join(5000);
      assertTrue(listedCorrupt.get(), "the NameNode listed the helper's replica as corrupt");
      assertEquals(c.original.size(), c.verifyBlocks(), "every internal block present and equal");
      c.verifyFiles();
      long reported = 0;
      for (var dn : c.cluster.getDataNodes()) {
        reported += EcRepairDataNodePlugin.metrics(dn).getOrDefault("CorruptReplicasReported", 0L);
      }
      assertTrue(reported >= 1, "the corrupt replica was reported: " + ReconstructionLog.reports());
    }
  }

  private static void watchCorrupt(RepairCluster c, LocatedStripedBlock group, DatanodeInfo helper,
                                   AtomicBoolean listed) {
    var bm = c.cluster.getNamesystem().getBlockManager();
    var stored = bm.getStoredBlock(group.getBlock().getLocalBlock());
    while (!listed.get() && !Thread.currentThread().isInterrupted()) {
      var corrupt = bm.getCorruptReplicas(stored);
      if (corrupt != null && corrupt.stream().anyMatch(d -> d.getXferPort() == helper.getXferPort())) {
        listed.set(true);
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /**
   * Changes one byte of internal block {@code index}'s replica file, leaving its checksums as they
   * were; returns the index of the DataNode holding it.
   */
  static int flipByteOnDisk(RepairCluster c, LocatedStripedBlock group, int index, long offset)
      throws Exception {
    ExtendedBlock block = c.internal(group, index);
    for (int dn = 0; dn < c.cluster.getDataNodes().size(); dn++) {
      File f = c.cluster.getBlockFile(dn, block);
      if (f != null && f.exists()) {
        try (RandomAccessFile raf = new RandomAccessFile(f, "rw")) {
          raf.seek(offset);
          int b = raf.read();
          raf.seek(offset);
          raf.write(b ^ 0x5a);
        }
        return dn;
      }
    }
    throw new AssertionError("no replica of internal block " + index + " on disk");
  }
}
