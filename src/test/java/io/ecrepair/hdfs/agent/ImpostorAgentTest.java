package io.ecrepair.hdfs.agent;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.hdfs.datanode.EcRepairDataNodePlugin;
import io.ecrepair.hdfs.datanode.RepairCluster;
import io.ecrepair.hdfs.task.DataNodeKeys;
import io.ecrepair.hdfs.task.ReconstructionLog;
import io.ecrepair.testing.ClusterTest;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.util.DataChecksum;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An impostor on a helper's agent port (the agent went away and something else took the port)
 * answers range requests with bytes of its own, with valid checksums for them, and a proof as
 * good as it can make: keyed by the password of the access token the request carried, in the
 * helper's name. It still cannot prove it holds the cluster's block keys (the challenge is a
 * token the requester minted and never sent the password of): the rebuilding DataNode leaves it out, reads that
 * helper through HDFS instead, and every rebuilt block equals the original. Without the proof
 * the impostor's bytes would be rebuilt into the block.
 */
@ClusterTest
class ImpostorAgentTest {
  private static final int CELL = 64 * 1024;

  @TempDir
  Path tmp;

  @ParameterizedTest(name = "parallel={0}")
  @ValueSource(booleans = {false, true})
  void anImpostorOnAnAgentPortIsLeftOut(boolean parallel) throws Exception {
    ReconstructionLog.clear();
    Configuration extra = new Configuration(false);
    extra.setInt(DataNodeKeys.AGENT_PORT_OFFSET_KEY, 7);
    extra.setBoolean(DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY, true);
    // Central repair reads the helpers' ranges through their agents; parallel repair sends them parts.
    extra.setBoolean(DataNodeKeys.PARALLEL_KEY, parallel);
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), 8, "clay", 4, 2, CELL, 4, extra)) {
      org.apache.hadoop.fs.Path file = c.write("f", 4 * 4 * CELL, 9);
      c.awaitHealthy();
      DataNode helper = c.dataNode(c.holder(file, 0, 1));
      int port = EcRepairDataNodePlugin.agentPort(helper);
      EcRepairDataNodePlugin.stopAgent(helper);
      AtomicInteger served = new AtomicInteger();
      try (ServerSocket impostor = new ServerSocket()) {
        impostor.setReuseAddress(true);
        impostor.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        String helperId = helper.getDatanodeUuid();
        Thread t = new Thread(() -> serveBogus(impostor, served, helperId), "impostor");
        t.setDaemon(true);
        t.start();
        c.loseAndVerify(c.holder(file, 0, 0)); // every internal block and the file, byte for byte
      }
      assertTrue(served.get() > 0, "the repair asked the impostor (else this test shows nothing)");
    }
  }

  /**
   * Answers every range request with 0x77 bytes and their true CRC32C checksums, and every part
   * request with readiness, each behind the best proof it can compute.
   */
  private static void serveBogus(ServerSocket server, AtomicInteger served, String helperId) {
    while (!server.isClosed()) {
      try (Socket s = server.accept()) {
        s.setSoTimeout(5000);
        DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
        DataOutputStream out = new DataOutputStream(new BufferedOutputStream(s.getOutputStream()));
        int magic = in.readInt();
        if (magic == PlanPartRequest.MAGIC) {
          PlanPartRequest.Header part = PlanPartRequest.readHeader(in);
          in.readFully(new byte[part.bodyLength()]);
          served.incrementAndGet();
          bestProof(out, part.token().getPassword(), helperId, part.challenge());
          out.writeInt(PlanPartRequest.READY);
          out.flush();
          in.readInt(); // GO, or the requester hanging up
          continue;
        }
        if (magic != RangeRequest.MAGIC) {
          continue;
        }
        RangeRequest.Header header = RangeRequest.readHeader(in);
        RangeRequest req = RangeRequest.readRanges(header, in);
        served.incrementAndGet();
        bestProof(out, req.token().getPassword(), helperId, header.challenge());
        out.writeInt(RangeRequest.OK);
        DataChecksum cs = DataChecksum.newDataChecksum(DataChecksum.Type.CRC32C, 512);
        out.writeByte(cs.getChecksumType().id);
        out.writeInt(512);
        for (long[] span : RangeRequest.chunkSpans(req.ranges(), req.block().getNumBytes(), 512)) {
          byte[] bytes = new byte[(int) span[1]];
          Arrays.fill(bytes, (byte) 0x77);
          ByteBuffer sums = ByteBuffer.allocate((bytes.length + 511) / 512 * cs.getChecksumSize());
          cs.calculateChunkedSums(ByteBuffer.wrap(bytes), sums);
          out.writeInt(bytes.length);
          out.writeLong(span[0]);
          out.write(sums.array());
          out.write(bytes);
        }
        out.writeInt(RangeRequest.END);
        out.flush();
      } catch (IOException e) {
        // a requester that hung up, or the test closing the socket
      }
    }
  }

  /** The proof an impostor can make: the request's access-token password as the key, the helper's id. */
  private static void bestProof(DataOutputStream out, byte[] accessPassword, String helperId,
                                AgentProof.Received challenge) throws IOException {
    byte[] mac = AgentProof.mac(accessPassword, AgentProof.Purpose.SERVE, helperId, challenge.nonce());
    out.writeInt(mac.length);
    out.write(mac);
    out.writeUTF(helperId);
  }
}
