package io.ecrepair.hdfs.datanode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.layout.StripedLayout;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntToDoubleFunction;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * NameNode-driven reconstruction with the DataNode plugin, on a MiniDFSCluster per codec:
 * files under one cell, of a partial stripe and of several block groups; one DataNode
 * stopped, then a second one (m >= 2); every rebuilt internal block equals the original byte
 * for byte, every file reads back whole with the original holders still down, and each repair
 * read what its code needs (Clay d/q blocks, Butterfly (k+1)/2 for a data block, LRC the local
 * group), not k blocks.
 *
 * <p>With only the DataNode plugin, a stock client cannot read a Clay or Butterfly file while
 * an internal block is missing (its decoder refuses partial cells; the client FileSystem is
 * issue #8), so the files are read back once reconstruction made the rebuilt blocks live.
 */
class PluginReconstructionTest {
  private static final int CELL = 64 * 1024;
  private static final int CELLS_PER_BLOCK = 4;

  @TempDir
  Path tmp;

  @BeforeEach
  void clearLog() {
    ReconstructionLog.clear();
  }

  @Test
  void clayWithShortening() throws Exception {
    // CLAY-5-3: n = 8, q = 3, one virtual node (shortening), d = 7: 7/3 blocks per lost block.
    run("clay", 5, 3, u -> 7.0 / 3);
  }

  @Test
  void butterfly() throws Exception {
    run("butterfly", 4, 2, u -> u < 4 ? 2.5 : 4.0);
  }

  @Test
  void lrc() throws Exception {
    // LRC(12,2,2): groups of 6 data blocks with a local parity each (12, 13), globals 14, 15.
    run("lrc-l2", 12, 4, u -> u < 14 ? 6.0 : 12.0);
  }

  @Test
  void rsStaysWithHdfs() throws Exception {
    // Hadoop's RS: HDFS's own reconstruction runs (reading k blocks), the plugin never takes over.
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), 6 + 3 + 1, "rs", 6, 3, CELL,
        CELLS_PER_BLOCK, null)) {
      long groupBytes = 6L * CELL * CELLS_PER_BLOCK;
      org.apache.hadoop.fs.Path big = c.write("several-groups", (int) (2 * groupBytes + 3L * CELL + 99), 1);
      c.write("under-one-cell", 1000, 2);
      c.write("partial-stripe", 2 * CELL + CELL / 2 + 17, 3);
      c.stop(c.holder(big, 0, 0));
      c.awaitReconstruction(120_000);
      assertEquals(c.original.size(), c.verifyBlocks());
      c.verifyFiles();
      assertTrue(ReconstructionLog.reports().isEmpty(), "RS stays with HDFS: " + ReconstructionLog.reports());
      long stockTasks = 0;
      for (DataNode dn : c.cluster.getDataNodes()) {
        stockTasks += Jmx.attribute(dn.getMetrics().name(), "EcReconstructionTasks");
        assertEquals(0L, EcRepairDataNodePlugin.metrics(dn).get("Tasks"));
      }
      assertTrue(stockTasks > 0, "HDFS's own reconstruction ran");
    }
  }

  private void run(String codec, int k, int m, IntToDoubleFunction singleLossBlocks) throws Exception {
    int losses = Math.min(2, m);
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), k + m + losses, codec, k, m, CELL,
        CELLS_PER_BLOCK, null)) {
      for (DataNode dn : c.cluster.getDataNodes()) {
        assertTrue(EcRepairDataNodePlugin.isActive(dn), "plugin active on " + dn);
      }
      long groupBytes = (long) k * CELL * CELLS_PER_BLOCK;
      org.apache.hadoop.fs.Path big = c.write("several-groups", (int) (2 * groupBytes + 3L * CELL + 99), 1);
      c.write("under-one-cell", 1000, 2);
      c.write("partial-stripe", 2 * CELL + CELL / 2 + 17, 3);

      // First loss: the holder of data block 0 of group 0 (it holds other indices of other groups too).
      DatanodeInfo first = c.holder(big, 0, 0);
      c.stop(first);
      c.awaitReconstruction(120_000);
      int checked = c.verifyBlocks();
      assertEquals(c.original.size(), checked, "every internal block present and equal");
      c.verifyFiles();
      List<TaskReport> singles = ReconstructionLog.reports();
      assertFalse(singles.isEmpty(), "the plugin ran the reconstruction");
      assertReads(c, singles, singleLossBlocks, k);

      if (losses > 1) {
        ReconstructionLog.clear();
        // Second loss: a parity holder of group 1, while the first node stays down.
        DatanodeInfo second = c.holder(big, 1, k);
        c.stop(second);
        c.awaitReconstruction(120_000);
        assertEquals(c.original.size(), c.verifyBlocks());
        c.verifyFiles();
        assertReads(c, ReconstructionLog.reports(), singleLossBlocks, k);
      }
    }
  }

  /**
   * Each successful task read at most what its code needs: for one lost block, the code's
   * repair bandwidth (in blocks) times the coding length of the rows rebuilt; for several,
   * k blocks' worth.
   */
  private static void assertReads(RepairCluster c, List<TaskReport> reports, IntToDoubleFunction singleLossBlocks,
                                  int k) throws Exception {
    Map<Long, Long> groupLengths = new HashMap<>();
    for (org.apache.hadoop.fs.Path f : c.files.keySet()) {
      for (LocatedBlock b : c.groups(f)) {
        groupLengths.put(b.getBlock().getBlockId(), b.getBlock().getNumBytes());
      }
    }
    StripedLayout layout = new StripedLayout(k, c.policy.getNumParityUnits(), CELL, (long) CELL * CELLS_PER_BLOCK);
    int succeeded = 0;
    for (TaskReport r : reports) {
      if (!r.succeeded()) {
        continue;
      }
      succeeded++;
      long groupLength = groupLengths.get(r.blockGroupId());
      int rows = 0;
      for (int u : r.lost()) {
        rows = Math.max(rows, (int) ((layout.internalBlockLength(groupLength, u) + CELL - 1) / CELL));
      }
      long coding = 0;
      for (int row = 0; row < rows; row++) {
        coding += layout.codingLength(groupLength, row);
      }
      double blocks = r.lost().length == 1 ? singleLossBlocks.applyAsDouble(r.lost()[0]) : k;
      long bound = (long) Math.ceil(blocks * coding) + rows * 64L * k;
      assertTrue(r.bytesRead() <= bound, "task " + r + " read " + r.bytesRead() + " bytes, more than " + blocks
          + " blocks of " + coding + " coding bytes (" + bound + ")");
      if (r.lost().length == 1 && blocks < k && coding >= CELL) {
        assertTrue(r.bytesRead() < 0.9 * k * coding, "task " + r + " read about k blocks");
      }
    }
    assertTrue(succeeded > 0, "no successful task among " + reports);
  }
}
