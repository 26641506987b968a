package io.ecrepair.hdfs.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.hdfs.datanode.RepairCluster;
import io.ecrepair.hdfs.task.DataNodeKeys;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.io.WritableUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A part request (with a genuine block token, so it passes every check) whose hop points at
 * something that is not a DataNode's repair agent: the agent connects there but sends no value,
 * because the other end cannot prove it holds the cluster's block keys. Without that proof a
 * holder of one block token could have a DataNode stream repair values to any address.
 */
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
      DataNode dn = c.dataNode(c.holder(file, 0, 1));
      InetSocketAddress agent = new InetSocketAddress("127.0.0.1", dn.getXferPort() + 7);
      LocatedStripedBlock group = (LocatedStripedBlock) c.fs.getClient()
          .getLocatedBlocks(file.toString(), 0, Long.MAX_VALUE).get(0);
      LocatedBlock internal = AgentFuzzTest.internalBlock(group, 1, c.k(), c.cell());

      AtomicLong valueBytes = new AtomicLong(-1);
      CountDownLatch streamEnded = new CountDownLatch(1);
      Thread t = new Thread(() -> answerWithoutKeys(elsewhere, valueBytes, streamEnded), "not-an-agent");
      t.setDaemon(true);
      t.start();

      InetSocketAddress notAnAgent = new InetSocketAddress("127.0.0.1", elsewhere.getLocalPort());
      try (Socket s = new Socket()) {
        s.connect(agent, 5000);
        s.setSoTimeout(30_000);
        s.getOutputStream().write(AgentFuzzTest.partRequest(spec, internal, notAnAgent));
        s.getOutputStream().flush();
        DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
        int proof = in.readInt();
        assertTrue(proof > 0, "the genuine agent proves itself (" + proof + ")");
        in.readFully(new byte[proof]);
        assertEquals(PlanPartRequest.READY, in.readInt());
        DataOutputStream out = new DataOutputStream(s.getOutputStream());
        out.writeInt(PlanPartRequest.GO);
        out.flush();
        assertTrue(streamEnded.await(60, TimeUnit.SECONDS), "the agent opened a stream to the hop");
      }
      assertEquals(0, valueBytes.get(), "bytes the agent sent past its receiver's failed proof");
    }
    // Addresses that cannot be a DataNode's agent are refused before any connection.
    assertThrows(IOException.class, () -> new PlanPartRequest.Peer("0.0.0.0", 1234).address());
    assertThrows(IOException.class, () -> new PlanPartRequest.Peer("224.0.0.1", 1234).address());
    assertThrows(IOException.class, () -> new PlanPartRequest.Peer("127.0.0.1", 0).address());
  }

  /**
   * Reads a value stream's opening (header, token identifier, challenge), answers with a proof
   * it cannot compute, and counts every byte the sender sends after that until it hangs up.
   */
  private static void answerWithoutKeys(ServerSocket server, AtomicLong valueBytes, CountDownLatch ended) {
    try (Socket s = server.accept()) {
      s.setSoTimeout(20_000);
      DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
      in.readInt(); // magic
      in.readInt(); // version
      in.readLong();
      in.readLong();
      in.readInt(); // sending node
      in.readFully(new byte[WritableUtils.readVInt(in)]);
      in.readFully(new byte[AgentProof.NONCE_BYTES]);
      DataOutputStream out = new DataOutputStream(s.getOutputStream());
      out.writeInt(32);
      out.write(new byte[32]);
      out.flush();
      long after = 0;
      InputStream raw = in;
      byte[] buf = new byte[8192];
      try {
        for (int got; (got = raw.read(buf)) >= 0; ) {
          after += got;
        }
      } catch (IOException e) {
        // a reset when the agent gives up: what came before still counts
      }
      valueBytes.set(after);
    } catch (IOException e) {
      valueBytes.set(-2);
    } finally {
      ended.countDown();
    }
  }
}
