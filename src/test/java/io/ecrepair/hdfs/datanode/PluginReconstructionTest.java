package io.ecrepair.hdfs.datanode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.hdfs.task.DataNodeKeys;
import io.ecrepair.hdfs.task.ReconstructionLog;
import io.ecrepair.hdfs.task.TaskReport;
import io.ecrepair.layout.StripedLayout;
import io.ecrepair.testing.ClusterTest;
import java.lang.reflect.Field;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntToDoubleFunction;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.metrics.DataNodeMetrics;
import org.apache.hadoop.metrics2.lib.MetricsRegistry;
import org.apache.hadoop.metrics2.lib.MutableCounterLong;
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
@ClusterTest
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
  void butterflyWithValidation() throws Exception {
    run("butterfly", 4, 2, u -> u < 4 ? 2.5 : 4.0, true);
  }

  @Test
  void lrc() throws Exception {
    // LRC(12,2,2): groups of 6 data blocks with a local parity each (12, 13), globals 14, 15.
    run("lrc-l2", 12, 4, u -> u < 14 ? 6.0 : 12.0);
  }

  @Test
  void clayWithBlockTokensAndNoKeepAlive() throws Exception {
    // Block access tokens on: every helper read and target write carries one the DataNodes
    // check. dfs.datanode.socket.reuse.keepalive = 0: a DataNode closes each connection after
    // one read; the helper readers reopen it and go on, nothing counts as a failed helper.
    org.apache.hadoop.conf.Configuration extra = new org.apache.hadoop.conf.Configuration(false);
    extra.setBoolean(DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY, true);
    extra.setInt(DFSConfigKeys.DFS_DATANODE_SOCKET_REUSE_KEEPALIVE_KEY, 0);
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), 9, "clay", 5, 3, CELL, CELLS_PER_BLOCK,
        extra)) {
      org.apache.hadoop.fs.Path f = c.write("two-groups", (int) (5L * CELL * CELLS_PER_BLOCK * 3 / 2), 5);
      c.lose(c.holder(f, 0, 0));
      c.awaitReconstruction(120_000);
      assertEquals(c.original.size(), c.verifyBlocks());
      c.verifyFiles();
      List<TaskReport> reports = ReconstructionLog.reports();
      assertTrue(reports.stream().allMatch(r -> r.succeeded() && r.helperReplacements() == 0), reports.toString());
      assertReads(c, reports, u -> 7.0 / 3, 5);
    }
  }

  @Test
  void rsStaysWithHdfs() throws Exception {
    // Hadoop's RS: HDFS's own reconstruction runs (reading k blocks); the plugin only times it
    // (ecrepair.datanode.time-stock-tasks) and never takes it over.
    run("rs", 6, 3, u -> 6.0);
  }

  @Test
  void rsThroughThePluginWhenAskedTo() throws Exception {
    // ecrepair.datanode.rebuild.rs: the plugin rebuilds RS too, from any k blocks, single and
    // double losses, byte for byte.
    run("rs", 6, 3, u -> 6.0, false, true);
  }

  private void run(String codec, int k, int m, IntToDoubleFunction singleLossBlocks) throws Exception {
    run(codec, k, m, singleLossBlocks, false);
  }

  private void run(String codec, int k, int m, IntToDoubleFunction singleLossBlocks, boolean validation)
      throws Exception {
    run(codec, k, m, singleLossBlocks, validation, false);
  }

  private void run(String codec, int k, int m, IntToDoubleFunction singleLossBlocks, boolean validation,
                   boolean rebuildRs) throws Exception {
    org.apache.hadoop.conf.Configuration extra = new org.apache.hadoop.conf.Configuration(false);
    extra.setBoolean(DFSConfigKeys.DFS_DN_EC_RECONSTRUCTION_VALIDATION_KEY, validation);
    extra.setBoolean(DataNodeKeys.REBUILD_RS_KEY, rebuildRs);
    boolean stock = codec.equals("rs") && !rebuildRs;
    extra.setBoolean(DataNodeKeys.TIME_STOCK_TASKS_KEY, stock);
    // n + 1 DataNodes for the first loss, two more for the double loss (MiniDFSCluster cannot
    // add DataNodes once one was stopped).
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), k + m + (m >= 2 ? 3 : 1), codec, k, m,
        CELL, CELLS_PER_BLOCK, extra)) {
      for (DataNode dn : c.cluster.getDataNodes()) {
        assertTrue(EcRepairDataNodePlugin.isActive(dn), "plugin active on " + dn);
      }
      long groupBytes = (long) k * CELL * CELLS_PER_BLOCK;
      org.apache.hadoop.fs.Path big = c.write("several-groups", (int) (2 * groupBytes + 3L * CELL + 99), 1);
      c.write("under-one-cell", 1000, 2);
      c.write("partial-stripe", 2 * CELL + CELL / 2 + 17, 3);

      // One loss: the holder of data block 0 of group 0 (it holds other indices of other groups too).
      c.lose(c.holder(big, 0, 0));
      c.awaitReconstruction(120_000);
      assertEquals(c.original.size(), c.verifyBlocks(), "every internal block present and equal");
      c.verifyFiles();
      List<TaskReport> singles = ReconstructionLog.reports();
      assertFalse(singles.isEmpty(), "the reconstruction ran");
      String engine = stock ? "hdfs" : "ec-repair";
      assertTrue(singles.stream().allMatch(r -> r.engine().equals(engine)), "rebuilt by " + engine + ": " + singles);
      assertReads(c, singles, singleLossBlocks, k);
      if (validation) {
        assertTrue(singles.stream().filter(TaskReport::succeeded).allMatch(TaskReport::validated),
            "every task validated its cells: " + singles);
      }

      if (m >= 2) {
        // Two losses at once in every group they share: a data and a parity holder of group 1.
        c.lose(c.holder(big, 1, 1), c.holder(big, 1, k));
        c.awaitReconstruction(120_000);
        assertEquals(c.original.size(), c.verifyBlocks(), "every internal block present and equal");
        c.verifyFiles();
        List<TaskReport> doubles = ReconstructionLog.reports();
        assertTrue(doubles.stream().allMatch(r -> r.engine().equals(engine)), "rebuilt by " + engine + ": " + doubles);
        assertTrue(doubles.stream().anyMatch(r -> r.succeeded() && r.lost().length == 2),
            "some task rebuilt two blocks at once: " + doubles);
        assertReads(c, doubles, singleLossBlocks, k);
      }
      assertAccounting(c, !stock);
    }
  }

  /**
   * HDFS's EC task counter, read from the DataNode's own metrics registry. Not by source name:
   * the metrics system keeps every name a JVM ever registered, so a DataNode that gets the port
   * of one from an earlier test class registers as "DataNodeActivity-host-port-1", and looking
   * its name up finds the earlier DataNode's source (CI saw a sum off by one).
   */
  private static long hdfsTaskCount(DataNode dn) throws ReflectiveOperationException {
    Field registry = DataNodeMetrics.class.getDeclaredField("registry");
    registry.setAccessible(true);
    MutableCounterLong tasks = (MutableCounterLong) ((MetricsRegistry) registry.get(dn.getMetrics()))
        .get("EcReconstructionTasks");
    return tasks.value();
  }

  /**
   * xmits all given back; our JMX counters agree with the tasks we ran (none for RS); HDFS's
   * EC counters include them.
   */
  private static void assertAccounting(RepairCluster c, boolean ours) throws Exception {
    Jmx.eventually("xmits given back", () -> {
      for (DataNode dn : c.cluster.getDataNodes()) {
        if (dn.getXmitsInProgress() != 0) {
          return dn + " has " + dn.getXmitsInProgress() + " xmits in progress";
        }
      }
      return null;
    });
    Jmx.eventually("JMX counters", () -> {
      long ourTasks = 0;
      long stockTasks = 0;
      for (DataNode dn : c.cluster.getDataNodes()) {
        String source = EcRepairDataNodePlugin.metricsSourceName(dn);
        long tasks = Jmx.attribute(source, "Tasks");
        if (tasks != EcRepairDataNodePlugin.metrics(dn).get("Tasks")) {
          return source + " shows " + tasks + " tasks, the plugin counted " + EcRepairDataNodePlugin.metrics(dn);
        }
        if (Jmx.attribute(source, "HookInstalled") != 1) {
          return source + " says the hook is not installed";
        }
        ourTasks += tasks;
        stockTasks += hdfsTaskCount(dn);
      }
      if (!ours) {
        return ourTasks == 0 && stockTasks > 0 ? null : "HDFS ran " + stockTasks + " tasks, the plugin " + ourTasks;
      }
      if (ourTasks == 0) {
        return "no tasks over JMX";
      }
      return stockTasks == ourTasks ? null : "HDFS counted " + stockTasks + " EC tasks, the plugin " + ourTasks;
    });
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
      if (r.validated()) {
        bound += (long) k * coding; // the independent recomputation reads its own set
      }
      assertTrue(r.bytesRead() <= bound, "task " + r + " read " + r.bytesRead() + " bytes, more than " + blocks
          + " blocks of " + coding + " coding bytes (" + bound + ")");
      if (r.lost().length == 1 && blocks < k && coding >= CELL && !r.validated()) {
        assertTrue(r.bytesRead() < 0.9 * k * coding, "task " + r + " read about k blocks");
      }
    }
    assertTrue(succeeded > 0, "no successful task among " + reports);
  }
}
