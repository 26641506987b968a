package io.ecrepair.hdfs.agent;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.exec.NodePart;
import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.hdfs.datanode.RepairCluster;
import io.ecrepair.hdfs.task.DataNodeKeys;
import io.ecrepair.testing.ClusterTest;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A listener that relays a value stream to a genuine agent: a READ-token holder sets up a
 * session on the receiving DataNode (a part request for its block) and points the sender's hop
 * at its relay, in the receiving DataNode's name. The genuine agent's proof comes back through
 * the relay, but it is bound to the address that agent accepted the stream on, not the relay's,
 * so the sender sends no value; a proof that only named a DataNode would let the relay read
 * them.
 */
@ClusterTest
class RelayedProofTest {
  private static final int CELL = 64 * 1024;

  @TempDir
  Path tmp;

  @Test
  void aRelayedReceiverProofGetsNoValues() throws Exception {
    CodeSpec spec = new CodeSpec("clay", 4, 2);
    RepairCatalog.searchParallelPlans(spec);
    Configuration conf = new Configuration(false);
    conf.setInt(DataNodeKeys.AGENT_PORT_OFFSET_KEY, 7);
    conf.setBoolean(DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY, true);
    Map<Integer, NodePart> parts = RepairCatalog.parts(RepairCatalog.parallelPlan(spec, 0).orElseThrow());
    // A helper that reads its own sub-chunks and sends them to two others, which compute.
    int sender = parts.entrySet().stream().filter(e -> e.getKey() != 0 && e.getValue().inbound().isEmpty())
        .mapToInt(Map.Entry::getKey).findFirst().orElseThrow();
    List<Integer> receivers = new ArrayList<>();
    parts.get(sender).outbound().forEach(g -> {
      if (!receivers.contains(g.peer())) {
        receivers.add(g.peer());
      }
    });
    int relayed = receivers.get(0);
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), 8, "clay", 4, 2, CELL, 4, conf);
         ServerSocket relay = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
      org.apache.hadoop.fs.Path file = c.write("f", 4 * 4 * CELL, 17);
      c.awaitHealthy();
      LocatedStripedBlock group = HostileRequests.firstGroup(c, file);
      Map<Integer, PlanPartRequest.Peer> genuine = HostileRequests.peers(c, file, 6);
      AtomicLong fromSender = new AtomicLong();
      AtomicLong fromAgent = new AtomicLong();
      InetSocketAddress target = new InetSocketAddress("127.0.0.1", genuine.get(relayed).port());
      Thread t = new Thread(() -> relay(relay, target, fromSender, fromAgent), "relay");
      t.setDaemon(true);
      t.start();

      // The receivers' sessions, as the genuine requests would set them up; they wait for GO.
      List<Socket> waiting = new ArrayList<>();
      try {
        for (int r : receivers) {
          waiting.add(HostileRequests.ready(agentOf(genuine, r), HostileRequests.clientPart(c, group, 7, 8,
              parts.get(r), genuine)));
        }
        // The sender's part, its hop to the first receiver pointed at the relay in that receiver's name.
        Map<Integer, PlanPartRequest.Peer> rigged = new TreeMap<>(genuine);
        rigged.put(relayed, new PlanPartRequest.Peer("127.0.0.1", relay.getLocalPort(), genuine.get(relayed).datanodeId()));
        HostileRequests.Answer a = HostileRequests.ask(agentOf(genuine, sender), HostileRequests.clientPart(c, group,
            7, 8, parts.get(sender), rigged), true);
        assertFalse(a.ready(), "the sender's part ran to its end");
      } finally {
        for (Socket s : waiting) {
          s.close();
        }
      }
      Thread.sleep(500); // the relay counts what arrived before the sender hung up
      assertTrue(fromAgent.get() > 0, "the genuine agent's proof went back through the relay");
      assertTrue(fromSender.get() < 1024, fromSender.get() + " bytes of the sender went through the relay: "
          + "more than its stream's opening");
    }
  }

  private static InetSocketAddress agentOf(Map<Integer, PlanPartRequest.Peer> peers, int unit) {
    return new InetSocketAddress("127.0.0.1", peers.get(unit).port());
  }

  /** Relays every connection to {@code target}, counting the bytes each way. */
  private static void relay(ServerSocket server, InetSocketAddress target, AtomicLong fromSender, AtomicLong fromAgent) {
    while (!server.isClosed()) {
      try {
        Socket in = server.accept();
        Socket out = new Socket();
        out.connect(target, 5000);
        pipe(in, out, fromSender);
        pipe(out, in, fromAgent);
      } catch (IOException e) {
        return;
      }
    }
  }

  private static void pipe(Socket from, Socket to, AtomicLong count) {
    Thread t = new Thread(() -> {
      byte[] buf = new byte[8192];
      try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
        for (int n; (n = in.read(buf)) >= 0; ) {
          count.addAndGet(n);
          out.write(buf, 0, n);
          out.flush();
        }
      } catch (IOException e) {
        // one end hung up
      } finally {
        try {
          from.close();
          to.close();
        } catch (IOException ignored) {
          // closing
        }
      }
    }, "relay-pipe");
    t.setDaemon(true);
    t.start();
  }
}
