package io.ecrepair.hdfs.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.hdfs.datanode.RepairCluster;
import io.ecrepair.hdfs.task.DataNodeKeys;
import io.ecrepair.testing.ClusterTest;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A part request (with a genuine block token, so it passes every check) whose hop points at
 * something that is not a DataNode's repair agent, run by the requester: the agent connects there
 * but sends no value, because the other end cannot prove it holds the cluster's block keys, not
 * even with the password of the token the requester sent (the sender mints its own challenge). Without that proof a
 * holder of one block token could have a DataNode stream repair values to any address.
 */
@ClusterTest
class HopTargetTest {
  private static final int CELL = 64 * 1024;

  @TempDir
  Path tmp;

  @Test
  void aHopToANonAgentGetsNoValues() throws Exception {
    CodeSpec spec = new CodeSpec("clay", 4, 2);
    RepairCatalog.searchParallelPlans(spec);
    Configuration extra = new Configuration(false);
    extra.setInt(DataNodeKeys.AGENT_PORT_OFFSET_KEY, 7);
    extra.setBoolean(DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY, true);
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), 8, "clay", 4, 2, CELL, 4, extra);
         ServerSocket elsewhere = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
      org.apache.hadoop.fs.Path file = c.write("f", 4 * 4 * CELL, 3);
      c.awaitHealthy();
      // A helper whose part sends values computed from its own sub-chunks alone: it sends at once.
      var parts = RepairCatalog.parts(RepairCatalog.parallelPlan(spec, 0).orElseThrow());
      int node = parts.entrySet().stream()
          .filter(e -> e.getKey() != 0 && e.getValue().inbound().isEmpty() && !e.getValue().outbound().isEmpty())
          .mapToInt(java.util.Map.Entry::getKey).findFirst().orElseThrow();
      DataNode dn = c.dataNode(c.holder(file, 0, node));
      InetSocketAddress agent = new InetSocketAddress("127.0.0.1", dn.getXferPort() + 7);
      LocatedStripedBlock group = (LocatedStripedBlock) c.fs.getClient()
          .getLocatedBlocks(file.toString(), 0, Long.MAX_VALUE).get(0);
      LocatedBlock internal = AgentFuzzTest.internalBlock(group, node, c.k(), c.cell());

      AtomicLong valueBytes = new AtomicLong();
      AtomicLong streams = new AtomicLong();
      byte[] requesterPassword = internal.getBlockToken().getPassword();
      Thread t = new Thread(() -> answerWithoutKeys(elsewhere, valueBytes, streams, requesterPassword),
          "not-an-agent");
      t.setDaemon(true);
      t.start();

      InetSocketAddress notAnAgent = new InetSocketAddress("127.0.0.1", elsewhere.getLocalPort());
      try (Socket s = new Socket()) {
        s.connect(agent, 5000);
        s.setSoTimeout(60_000);
        // The plan names the listener as DataNode "not-an-agent", the name it answers in: only its proof can fail.
        s.getOutputStream().write(AgentFuzzTest.partRequest(spec, internal, notAnAgent, node, "not-an-agent"));
        s.getOutputStream().flush();
        DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
        int proof = in.readInt();
        assertTrue(proof > 0, "the genuine agent proves itself (" + proof + ")");
        in.readFully(new byte[proof]);
        assertEquals(dn.getDatanodeUuid(), in.readUTF(), "in its DataNode's name");
        assertEquals(PlanPartRequest.READY, in.readInt());
        in.readByte(); // its replica's checksum type
        in.readInt(); // and chunk size
        DataOutputStream out = new DataOutputStream(s.getOutputStream());
        out.writeInt(PlanPartRequest.GO);
        out.flush();
        // The part ends: DONE if it could send (then the hop got values), else an error.
        int end = in.readInt();
        assertEquals(PlanPartRequest.ERROR, end, "the part could not run: its hop is no agent");
      }
      assertTrue(streams.get() > 0, "the agent opened a stream to the hop");
      Thread.sleep(500); // the listener's readers count what arrived before the agent hung up
      assertEquals(0, valueBytes.get(), "bytes the agent sent past its receiver's failed proof");
    }
  }

  /**
   * For every stream the agent opens: reads its opening (header, challenge), answers with the
   * best proof the requester can make (keyed by the password of the token it sent with the
   * part), and counts every byte the sender sends after that until it hangs up.
   */
  private static void answerWithoutKeys(ServerSocket server, AtomicLong valueBytes, AtomicLong streams,
                                        byte[] requesterPassword) {
    while (!server.isClosed()) {
      Socket s;
      try {
        s = server.accept();
      } catch (IOException closed) {
        return;
      }
      streams.incrementAndGet();
      Thread reader = new Thread(() -> answerOne(s, valueBytes, requesterPassword), "not-an-agent-stream");
      reader.setDaemon(true);
      reader.start();
    }
  }

  private static void answerOne(Socket socket, AtomicLong valueBytes, byte[] requesterPassword) {
    try (Socket s = socket) {
      s.setSoTimeout(20_000);
      DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
      in.readInt(); // magic
      in.readInt(); // version
      in.readLong();
      in.readLong();
      in.readInt(); // sending node
      AgentProof.Received challenge = AgentProof.Received.read(in);
      DataOutputStream out = new DataOutputStream(s.getOutputStream());
      byte[] mac = AgentProof.mac(requesterPassword, AgentProof.Purpose.RECEIVE, "not-an-agent", challenge.nonce());
      out.writeInt(mac.length);
      out.write(mac);
      out.writeUTF("not-an-agent");
      out.flush();
      byte[] buf = new byte[8192];
      for (int got; (got = in.read(buf)) >= 0; ) {
        valueBytes.addAndGet(got);
      }
    } catch (IOException e) {
      // a reset when the agent gives up: what came before is counted
    }
  }
}
