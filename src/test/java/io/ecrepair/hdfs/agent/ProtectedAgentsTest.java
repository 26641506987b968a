package io.ecrepair.hdfs.agent;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.hdfs.datanode.EcRepairDataNodePlugin;
import io.ecrepair.hdfs.datanode.RepairCluster;
import io.ecrepair.hdfs.task.DataNodeKeys;
import io.ecrepair.hdfs.task.ReconstructionLog;
import io.ecrepair.hdfs.task.TaskReport;
import io.ecrepair.testing.ClusterTest;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.util.StripedBlockUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * On a cluster that encrypts data transfer ({@code dfs.encrypt.data.transfer}, block tokens on),
 * the repair agents start and do their work over the same encrypted handshake as the DataNodes'
 * own transfers: a parallel Clay repair (parts, value streams, load probes) and a central
 * repair reading its helpers through their agents both rebuild every block byte for byte. A
 * request sent in the clear, with a genuine token, gets no bytes.
 */
@ClusterTest
class ProtectedAgentsTest {
  private static final int CELL = 64 * 1024;

  @TempDir
  Path tmp;

  @BeforeEach
  @AfterEach
  void clear() {
    ReconstructionLog.clear();
  }

  private static Configuration encrypted(boolean parallel) {
    Configuration c = new Configuration(false);
    c.setInt(DataNodeKeys.AGENT_PORT_OFFSET_KEY, 7);
    c.setBoolean(DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY, true);
    c.setBoolean(DFSConfigKeys.DFS_ENCRYPT_DATA_TRANSFER_KEY, true);
    c.setBoolean(DataNodeKeys.PARALLEL_KEY, parallel);
    // Every task weighs the plans (none runs centrally as its DataNode's share), so parallel repairs run.
    c.setBoolean(DataNodeKeys.CENTRAL_SHARE_KEY, false);
    // No parts for clients: the DataNodes' own repairs, whose tokens are the DataNodes', are not limited by it.
    c.setInt(DataNodeKeys.AGENT_CLIENT_PARTS_KEY, 0);
    return c;
  }

  @Test
  void aParallelRepairRunsOverEncryptedAgentConnections() throws Exception {
    RepairCatalog.searchParallelPlans(new CodeSpec("clay", 4, 2));
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), 8, "clay", 4, 2, CELL, 4, encrypted(true))) {
      org.apache.hadoop.fs.Path file = c.write("f", 4 * 4 * CELL, 1);
      c.awaitHealthy();
      List<TaskReport> reports = c.loseAndVerify(c.holder(file, 0, 0));
      assertTrue(reports.stream().anyMatch(r -> r.route().equals("parallel")), "a parallel repair ran: " + reports);
      refusesPlainRequests(c, file);
    }
  }

  @Test
  void helperReadsThroughEncryptedAgents() throws Exception {
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), 8, "clay", 4, 2, CELL, 4, encrypted(false))) {
      org.apache.hadoop.fs.Path file = c.write("f", 4 * 4 * CELL, 2);
      c.awaitHealthy();
      c.loseAndVerify(c.holder(file, 0, 0));
      long served = 0;
      for (DataNode dn : c.cluster.getDataNodes()) {
        served += EcRepairDataNodePlugin.rangeRequestsServed(dn);
      }
      assertTrue(served > 0, "the helpers' agents served the central repair's reads");
    }
  }

  /** A range request in the clear, though with a genuine token, is not answered with the block's bytes. */
  static void refusesPlainRequests(RepairCluster c, org.apache.hadoop.fs.Path file) throws Exception {
    LocatedStripedBlock group = (LocatedStripedBlock) c.fs.getClient()
        .getLocatedBlocks(file.toString(), 0, Long.MAX_VALUE).get(0);
    LocatedBlock[] internal = StripedBlockUtil.parseStripedBlockGroup(group, CELL, 4, 2);
    LocatedBlock b = internal[2];
    DataNode dn = c.dataNode(b.getLocations()[0]);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    new RangeRequest(b.getBlock(), b.getBlockToken(), List.of(new long[] {0, 4096})).write(new DataOutputStream(bytes),
        AgentProof.Challenge.of(b.getBlockToken()));
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", EcRepairDataNodePlugin.agentPort(dn)), 2000);
      s.setSoTimeout(5000);
      s.getOutputStream().write(bytes.toByteArray());
      s.getOutputStream().flush();
      DataInputStream in = new DataInputStream(s.getInputStream());
      int status;
      try {
        status = in.readInt();
      } catch (IOException closed) {
        return; // the agent dropped the connection: no bytes
      }
      assertNotEquals(RangeRequest.OK, status, "a plain request was answered");
    }
  }
}
