package io.ecrepair.hdfs.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.exec.NodePart;
import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.hdfs.datanode.EcRepairDataNodePlugin;
import io.ecrepair.hdfs.datanode.RepairCluster;
import io.ecrepair.hdfs.task.DataNodeKeys;
import io.ecrepair.hdfs.task.ReconstructionLog;
import io.ecrepair.hdfs.task.TaskReport;
import io.ecrepair.testing.ClusterTest;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.security.UserGroupInformation;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Requests that a holder of an ordinary client's READ token may send a live agent (block tokens
 * on), asking more than any repair of the block group can need: they are refused before the
 * agent allocates anything for them, the DataNode's memory stays within bounds, and repairs
 * through the agents work afterwards.
 */
@ClusterTest
class AgentAttackTest {
  private static final int CELL = 64 * 1024;
  private static final long MAX_GROWTH = 256L << 20;

  @TempDir
  Path tmp;

  @BeforeEach
  @AfterEach
  void clear() {
    ReconstructionLog.clear();
  }

  private static Configuration agentsAndTokens() {
    Configuration c = new Configuration(false);
    c.setInt(DataNodeKeys.AGENT_PORT_OFFSET_KEY, 7);
    // Every task weighs the plans (none runs centrally as its DataNode's share), so parallel repairs run.
    c.setBoolean(DataNodeKeys.CENTRAL_SHARE_KEY, false);
    c.setBoolean(DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY, true);
    return c;
  }

  /** A part for node {@code node} that reads its one sub-chunk and sends it to node {@code to}, with alpha 1. */
  private static NodePart oneLeafPart(int node, int to) {
    return new NodePart(node, 1, new int[][] {{0, 0}}, List.of(), List.of(new NodePart.Group(to, 0, new int[] {0})),
        List.of(), List.of());
  }

  private static final org.apache.hadoop.util.DataChecksum CRC32C =
      org.apache.hadoop.util.DataChecksum.newDataChecksum(org.apache.hadoop.util.DataChecksum.Type.CRC32C, 512);

  /** The body length a part request's header announces. */
  private static int bodyLength(byte[] request) throws java.io.IOException {
    DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(request));
    in.readInt();
    return PlanPartRequest.readHeader(in).bodyLength();
  }

  @Test
  void partsAskingMoreThanTheirGroupCanNeedAreRefusedBeforeAnythingIsAllocated() throws Exception {
    CodeSpec spec = new CodeSpec("clay", 4, 2);
    RepairCatalog.searchParallelPlans(spec);
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), 8, "clay", 4, 2, CELL, 4,
        agentsAndTokens())) {
      org.apache.hadoop.fs.Path file = c.write("f", 4 * 4 * CELL, 7);
      c.awaitHealthy();
      DataNode dn = c.dataNode(c.holder(file, 0, 1));
      InetSocketAddress agent = HostileRequests.agentOf(dn);
      LocatedStripedBlock group = HostileRequests.firstGroup(c, file);
      LocatedBlock internal = AgentFuzzTest.internalBlock(group, 1, c.k(), c.cell());
      AgentProof.Challenge challenge = AgentProof.Challenge.of(internal.getBlockToken());
      Map<Integer, PlanPartRequest.Peer> genuine = HostileRequests.peers(c, file, 6);
      Map<Integer, NodePart> parts = RepairCatalog.parts(RepairCatalog.parallelPlan(spec, 0).orElseThrow());
      Map<Integer, PlanPartRequest.Peer> toNode2 = new TreeMap<>(Map.of(2, genuine.get(2)));

      // A sub-chunk of 512 MiB (cells of 1 GiB): three row buffers of it were 1.5 GiB of direct memory.
      byte[] hugeSubchunk = HostileRequests.bytes(new PlanPartRequest(1, 2, internal.getBlock(),
          internal.getBlockToken(), internal.getBlockSize(), 1 << 30, 1 << 29, 0, 1, PlanPartRequest.MAX_PIECE,
          oneLeafPart(1, 2), toNode2, false), challenge, dn.getDatanodeUuid());
      // Node 1's genuine part, its first outbound group naming one value 65535 times: frames of 65535 values.
      NodePart.Group g = parts.get(1).outbound().get(0);
      int[] repeated = new int[65535];
      Arrays.fill(repeated, g.vertices()[0]);
      byte[] repeatedVertex = HostileRequests.withGroup(HostileRequests.clientPart(c, group, 1, 2, parts.get(1),
          genuine), g, repeated);

      System.gc();
      long before = HostileRequests.memoryInUse();
      List<Socket> held = new ArrayList<>();
      // The nodes node 1 sends to wait for its values in session 1:2, so a part of node 1 that ran
      // would stream to them (else it would fail at its first hop before it allocated anything).
      java.util.Set<Integer> receivers = new java.util.TreeSet<>();
      parts.get(1).outbound().forEach(out -> receivers.add(out.peer()));
      for (int r : receivers) {
        held.add(HostileRequests.ready(new InetSocketAddress("127.0.0.1", genuine.get(r).port()),
            HostileRequests.clientPart(c, group, 1, 2, parts.get(r), genuine)));
      }
      int ready = 0;
      int refusedForMemory = 0;
      long perPart = 0;
      long peak;
      try (HostileRequests.PeakMemory memory = new HostileRequests.PeakMemory()) {
        for (int i = 0; i < 4; i++) {
          HostileRequests.Answer a = HostileRequests.ask(agent, hugeSubchunk, true);
          assertFalse(a.ready(), "a part of 1 GiB cells ran");
          assertTrue(a.refusal().contains("multiples of 1024 up to"), a.refusal());
          a = HostileRequests.ask(agent, repeatedVertex, true);
          assertFalse(a.ready(), "a part naming a value 65535 times ran");
          assertTrue(a.refusal().contains("not strictly ascending"), a.refusal());
        }
        for (int i = 0; i < 12; i++) {
          Socket s = new Socket();
          held.add(s);
          s.connect(agent, 5000);
          s.setSoTimeout(30_000);
          // A part of the largest cells HDFS allows (4 MiB), reserving 30 MiB or so, held at READY.
          PlanPartRequest largest = new PlanPartRequest(3 + i, 4, internal.getBlock(), internal.getBlockToken(),
              internal.getBlockSize(), 4 << 20, 4 << 20, 0, 1, 4 << 20, oneLeafPart(1, 2), toNode2, false);
          byte[] request = HostileRequests.bytes(largest, challenge, dn.getDatanodeUuid());
          perPart = PartBounds.bytesHeld(largest, new LocalRangeServer.Replica(internal.getBlockSize(), CRC32C))
              + (long) bodyLength(request) * (1 + PartService.PARSED_PER_BODY_BYTE);
          s.getOutputStream().write(request);
          DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
          int proof = in.readInt();
          if (proof == PlanPartRequest.ERROR) {
            String why = in.readUTF();
            assertTrue(why.contains("of memory"), why);
            refusedForMemory++;
          } else {
            in.readFully(new byte[proof]);
            in.readUTF();
            assertEquals(PlanPartRequest.READY, in.readInt());
            ready++;
          }
        }
        peak = memory.peak();
      } finally {
        for (Socket s : held) {
          s.close();
        }
      }
      long limit = 192L << 20;
      assertEquals(limit / perPart, ready, "as many parts of " + (perPart >> 20) + " MiB as fit in the agent's "
          + (limit >> 20) + " MiB ran");
      assertEquals(12 - ready, refusedForMemory);
      assertEquals(2, receivers.size(), "node 1 sends to two nodes, which waited for its values");
      System.out.printf("heap and direct memory in use grew by %d MiB under the attack; %d parts of %d MiB ran, %d "
          + "were refused%n", (peak - before) >> 20, ready, perPart >> 20, refusedForMemory);
      assertTrue(peak - before < MAX_GROWTH, "memory in use grew by " + ((peak - before) >> 20) + " MiB");

      // And repairs through the agents still work, with every block compared.
      List<TaskReport> reports = c.loseAndVerify(c.holder(file, 0, 0));
      assertTrue(reports.stream().allMatch(TaskReport::succeeded), reports.toString());
      assertTrue(reports.stream().anyMatch(r -> r.route().equals("parallel")), reports.toString());
    }
  }

  /**
   * A client that runs as the DataNodes' own user (as on a cluster whose jobs run as hdfs) is a
   * client all the same: it cannot prove it holds the block keys, so its parts count against
   * the limit of clients' parts. The DataNodes' own repairs, which prove it, are not limited.
   */
  @Test
  void partsOfAClientRunningAsTheDataNodesUserAreLimited() throws Exception {
    CodeSpec spec = new CodeSpec("clay", 4, 2);
    RepairCatalog.searchParallelPlans(spec);
    Configuration conf = agentsAndTokens();
    conf.setInt(DataNodeKeys.AGENT_CLIENT_PARTS_KEY, 0);
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), 8, "clay", 4, 2, CELL, 4, conf)) {
      org.apache.hadoop.fs.Path file = c.write("f", 4 * 4 * CELL, 8);
      c.awaitHealthy();
      DataNode dn = c.dataNode(c.holder(file, 0, 1));
      InetSocketAddress agent = HostileRequests.agentOf(dn);
      LocatedStripedBlock group = HostileRequests.firstGroup(c, file);
      LocatedBlock internal = AgentFuzzTest.internalBlock(group, 1, c.k(), c.cell());
      BlockTokenIdentifier id = internal.getBlockToken().decodeIdentifier();
      assertEquals(UserGroupInformation.getLoginUser().getShortUserName(), id.getUserId(),
          "the client's token names the DataNodes' own user");

      // A genuine part that says it is not a client's: refused at the limit all the same.
      HostileRequests.Answer a = HostileRequests.ask(agent, AgentFuzzTest.partRequest(spec, internal, agent, 1), false);
      assertFalse(a.ready(), "a client's part ran past a limit of 0");
      assertTrue(a.refusal().contains("clients' reads"), a.refusal());
      assertTrue(EcRepairDataNodePlugin.clientPartsRefused(dn) > 0);

      List<TaskReport> reports = c.loseAndVerify(c.holder(file, 0, 0));
      assertTrue(reports.stream().anyMatch(r -> r.route().equals("parallel")),
          "the DataNodes' own parts are not limited: " + reports);
    }
  }
}
