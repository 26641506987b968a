package io.ecrepair.hdfs.datanode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.hdfs.agent.ReadFaults;
import io.ecrepair.hdfs.agent.LoadProbe;
import io.ecrepair.hdfs.task.DataNodeKeys;
import io.ecrepair.hdfs.task.ReconstructionLog;
import io.ecrepair.hdfs.task.TaskReport;
import io.ecrepair.testing.ClusterTest;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Repair pipelining on a MiniDFSCluster (ecrepair.datanode.agent.port-offset set): a lost LRC
 * or RS block is rebuilt along a chain of its helpers' repair agents (a chain plan run by the
 * same executor as every distributed repair), byte for byte; each
 * helper read only its own block, and the rebuilding DataNode received one block. A chain that
 * cannot form (an agent gone) or breaks mid-block (a fault after a few slices) costs time,
 * never data: the task finishes by reading the helpers itself, from the row the chain reached.
 */
@ClusterTest
class PipelinedRepairTest {
  private static final int CELL = 64 * 1024;
  private static final int CELLS_PER_BLOCK = 4;

  @TempDir
  Path tmp;

  @BeforeEach
  @AfterEach
  void clear() {
    ReconstructionLog.clear();
    ReadFaults.set(null);
  }

  private static Configuration chains(boolean tokens) {
    Configuration extra = new Configuration(false);
    extra.setInt(DataNodeKeys.AGENT_PORT_OFFSET_KEY, 7);
    // 4 KiB slices: 16 per cell, so an agent reuses its slice buffers within a block.
    extra.setInt(DataNodeKeys.PIPELINE_SLICE_KB_KEY, 4);
    extra.setBoolean(DataNodeKeys.REBUILD_RS_KEY, true);
    extra.setBoolean(DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY, tokens);
    return extra;
  }

  @Test
  void lrcAlongChainsWithBlockTokens() throws Exception {
    // LRC(12,2,2): a lost block of a local group is the sum of the 6 other blocks of its group.
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), 17, "lrc-l2", 12, 4, CELL, CELLS_PER_BLOCK,
        chains(true))) {
      c.writeMixedFiles();
      // Three full rows, then a whole cell of block 0 and 100 bytes of block 1: rebuilding block 0
      // adds block 1's last, partly filled slice (a reused buffer) where block 0 still has bytes.
      org.apache.hadoop.fs.Path ragged = c.write("ragged", 12 * 3 * CELL + CELL + 100, 4);
      c.awaitHealthy(); // a write's leftover repair (a failed streamer) counts in the metric before the loss
      long chainedBefore = chainedTasks(c);
      List<TaskReport> reports = c.loseAndVerify(c.holder(ragged, 0, 0));
      for (TaskReport r : reports) {
        // A block whose helpers hold no bytes (a parity of empty cells) is zeros, with nothing to chain.
        assertTrue(r.succeeded() && (r.route().equals("chain") || r.bytesRead() == 0), "rebuilt along a chain: " + r);
        int expectedHelpers = r.lost()[0] < 14 ? 6 : 12;
        assertTrue(r.helperBytes().size() <= expectedHelpers, "read only the repair's helpers: " + r);
        for (long b : r.helperBytes().values()) {
          assertTrue(b <= r.lostBytes(), "a helper read at most one block's worth: " + r);
        }
      }
      long chained = reports.stream().filter(r -> r.route().equals("chain")).count();
      assertTrue(chained > 0 && partsServed(c) >= chained, "the agents served the chains' hops");
      assertEquals(chained, chainedTasks(c) - chainedBefore, "ChainedTasks metric");
      // Every agent's inbound backlog went back to zero with its chains, and a load probe says so
      // once the chains' own probes' intents have lapsed (2 s).
      Thread.sleep(2_100);
      // A probe carries a token for a block of the probed DataNode, as every agent request does.
      DataNode prober = c.cluster.getDataNodes().get(c.cluster.getDataNodes().size() - 1);
      org.apache.hadoop.hdfs.protocol.LocatedBlock someOther = null;
      int probed = 0;
      for (org.apache.hadoop.hdfs.protocol.LocatedBlock b : c.fs.getClient()
          .getLocatedBlocks(ragged.toString(), 0, Long.MAX_VALUE).getLocatedBlocks()) {
        org.apache.hadoop.hdfs.protocol.LocatedBlock[] internal = org.apache.hadoop.hdfs.util.StripedBlockUtil
            .parseStripedBlockGroup((org.apache.hadoop.hdfs.protocol.LocatedStripedBlock) b, CELL, 12, 4);
        for (org.apache.hadoop.hdfs.protocol.LocatedBlock ib : internal) {
          if (ib == null) {
            continue;
          }
          DataNode dn = c.dataNode(ib.getLocations()[0]);
          assertEquals(0, LoadProbe.inboundLoad(prober, agentOf(dn), dn.getDatanodeUuid(), ib.getBlock(), ib.getBlockToken(), 2000),
              "inbound backlog of " + dn);
          probed++;
          if (someOther != null && someOther.getLocations()[0].getXferPort() != dn.getXferPort()) {
            // Another DataNode's block and token: refused, the probe gets no answer.
            assertEquals(-1, LoadProbe.inboundLoad(prober, agentOf(dn), dn.getDatanodeUuid(), someOther.getBlock(),
                someOther.getBlockToken(), 2000), "a probe with a token for another DataNode's block");
          }
          someOther = ib;
        }
      }
      assertTrue(probed >= 12, "probed the agents of the file's blocks");
      DataNode any = c.dataNode(someOther.getLocations()[0]);
      // A probe announcing what its repair would add is counted for the probes right after it.
      assertEquals(0, LoadProbe.inboundLoad(prober, agentOf(any), any.getDatanodeUuid(), someOther.getBlock(),
          someOther.getBlockToken(), 2000, 12345));
      assertEquals(12345, LoadProbe.inboundLoad(prober, agentOf(any), any.getDatanodeUuid(), someOther.getBlock(),
          someOther.getBlockToken(), 2000), "another probe's intent");
      Thread.sleep(2_100);
      assertEquals(0, LoadProbe.inboundLoad(prober, agentOf(any), any.getDatanodeUuid(), someOther.getBlock(),
          someOther.getBlockToken(), 2000), "an intent lapses");
      assertEquals(-1, LoadProbe.inboundLoad(prober, agentOf(any), any.getDatanodeUuid(), someOther.getBlock(),
          someOther.getBlockToken(), 2000, -5), "a negative intent is refused");
      assertEquals(-1, LoadProbe.inboundLoad(prober, agentOf(any), any.getDatanodeUuid(), someOther.getBlock(),
          new org.apache.hadoop.security.token.Token<>(), 2000), "a probe without a token");
      EcRepairDataNodePlugin.stopAgent(any);
      assertEquals(-1, LoadProbe.inboundLoad(prober, agentOf(any), any.getDatanodeUuid(), someOther.getBlock(),
          someOther.getBlockToken(), 2000),
          "a probe of a stopped agent");
    }
  }

  @Test
  void rsAlongChains() throws Exception {
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), 10, "rs", 6, 3, CELL, CELLS_PER_BLOCK,
        chains(false))) {
      org.apache.hadoop.fs.Path big = c.writeMixedFiles();
      List<TaskReport> reports = c.loseAndVerify(c.holder(big, 1, 2));
      assertTrue(reports.stream().allMatch(r -> r.succeeded() && (r.route().equals("chain") || r.bytesRead() == 0)),
          reports.toString());
      assertTrue(reports.stream().anyMatch(r -> r.route().equals("chain")), reports.toString());
    }
  }

  /**
   * RS may rebuild from any 6 of its 8 survivors: a helper whose agent is down answers no load
   * probe, so weighted path selection leaves it out and the chain still forms.
   */
  @Test
  void rsChainsGoAroundAHelperWhoseAgentIsDown() throws Exception {
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), 10, "rs", 6, 3, CELL, CELLS_PER_BLOCK,
        chains(false))) {
      org.apache.hadoop.fs.Path big = c.writeMixedFiles();
      long group0 = c.groups(big).get(0).getBlock().getBlockId();
      EcRepairDataNodePlugin.stopAgent(c.dataNode(c.holder(big, 0, 1)));
      List<TaskReport> reports = c.loseAndVerify(c.holder(big, 0, 0));
      TaskReport first = reports.stream().filter(r -> r.blockGroupId() == group0 && r.lost()[0] == 0).findFirst()
          .orElseThrow(() -> new AssertionError("no task rebuilt block 0 of group 0: " + reports));
      assertEquals("chain", first.route(), "the chain formed without block 1: " + first);
      assertTrue(!first.helperBytes().containsKey(1), "block 1 was not read: " + first);
      assertEquals(6, first.helperBytes().size(), "six helpers: " + first);
    }
  }

  @Test
  void chainThatCannotFormIsDoneCentrally() throws Exception {
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), 17, "lrc-l2", 12, 4, CELL, CELLS_PER_BLOCK,
        chains(false))) {
      org.apache.hadoop.fs.Path big = c.writeMixedFiles();
      long group0 = c.groups(big).get(0).getBlock().getBlockId();
      // Group 0 loses block 0: its chain runs through blocks 1..5 and 12, and block 3's agent is gone.
      EcRepairDataNodePlugin.stopAgent(c.dataNode(c.holder(big, 0, 3)));
      List<TaskReport> reports = c.loseAndVerify(c.holder(big, 0, 0));
      assertTrue(reports.stream().allMatch(TaskReport::succeeded), reports.toString());
      assertTrue(reports.stream().anyMatch(r -> r.route().equals("chain+central") && r.lost()[0] == 0
          && r.blockGroupId() == group0), "group 0's chain could not form and its task read the helpers: " + reports);
    }
  }

  @Test
  void chainThatBreaksMidBlockIsFinishedCentrally() throws Exception {
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), 17, "lrc-l2", 12, 4, CELL, CELLS_PER_BLOCK,
        chains(false))) {
      org.apache.hadoop.fs.Path big = c.writeMixedFiles();
      // Settled first: a write's leftover repair must not meet the fault meant for the loss's chains.
      c.awaitHealthy();
      // The first agent to send its 24th slice (a row and a half, 4 KiB slices of 64 KiB cells) fails there.
      AtomicBoolean failed = new AtomicBoolean();
      ReadFaults.set(new ReadFaults.Hook() {
        @Override
        public void beforeFrameSent(String datanode, int node, int frames, byte[] frame, int length)
            throws IOException {
          if (frames == 24 && failed.compareAndSet(false, true)) {
            throw new IOException("test: agent fails after 23 slices");
          }
        }
      });
      List<TaskReport> reports = c.loseAndVerify(c.holder(big, 0, 0));
      assertTrue(failed.get(), "the fault was injected");
      assertTrue(reports.stream().allMatch(TaskReport::succeeded), reports.toString());
      assertTrue(reports.stream().anyMatch(r -> r.route().equals("chain+central")),
          "the chain that broke was finished centrally: " + reports);
    }
  }



  /** Where {@code dn}'s agent listens. */
  private static java.net.InetSocketAddress agentOf(DataNode dn) {
    return new java.net.InetSocketAddress("127.0.0.1", dn.getXferPort() + 7);
  }

  private static long chainedTasks(RepairCluster c) {
    long counted = 0;
    for (DataNode dn : c.cluster.getDataNodes()) {
      counted += EcRepairDataNodePlugin.metrics(dn).getOrDefault("ChainedTasks", 0L);
    }
    return counted;
  }

  private static long partsServed(RepairCluster c) {
    long hops = 0;
    for (DataNode dn : c.cluster.getDataNodes()) {
      hops += EcRepairDataNodePlugin.partsServed(dn);
    }
    return hops;
  }
}
