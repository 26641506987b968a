package io.ecrepair.hdfs.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.hdfs.datanode.EcRepairDataNodePlugin;
import io.ecrepair.hdfs.datanode.RepairCluster;
import io.ecrepair.hdfs.task.DataNodeKeys;
import io.ecrepair.testing.ClusterTest;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A live agent asked in a version or a request kind it does not speak (a requester of another
 * release) answers with what it speaks, read by the requesters' own code, and goes on serving
 * requests it does speak.
 */
@ClusterTest
class MixedVersionsTest {
  private static final int CELL = 64 * 1024;
  private static final int OFFSET = 7;

  @TempDir
  Path tmp;

  @Test
  void anAgentNamesWhatItSpeaksAndServesOn() throws Exception {
    CodeSpec spec = new CodeSpec("clay", 4, 2);
    RepairCatalog.searchParallelPlans(spec);
    Configuration extra = new Configuration(false);
    extra.setInt(DataNodeKeys.AGENT_PORT_OFFSET_KEY, OFFSET);
    extra.setBoolean(DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY, true);
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), 6, "clay", 4, 2, CELL, 4, extra)) {
      org.apache.hadoop.fs.Path file = c.write("f", 4 * 4 * CELL, 1);
      c.awaitHealthy();
      DatanodeInfo holder = c.holder(file, 0, 1);
      DataNode dn = c.dataNode(holder);
      InetSocketAddress agent = new InetSocketAddress("127.0.0.1", dn.getXferPort() + OFFSET);
      LocatedStripedBlock group = HostileRequests.firstGroup(c, file);
      LocatedBlock internal = AgentFuzzTest.internalBlock(group, 1, c.k(), c.cell());

      byte[] part = AgentFuzzTest.partRequest(spec, internal, agent);
      byte[] laterPart = withVersion(part, PlanPartRequest.VERSION + 1);
      byte[] laterRange = withVersion(range(internal, AgentFuzzTest.challenge(internal)), RangeRequest.VERSION + 1);
      byte[] laterStream = ByteBuffer.allocate(64).putInt(PlanFrames.STREAM_MAGIC).putInt(PlanFrames.VERSION + 1)
          .putLong(1).putLong(2).putInt(1).array();
      byte[] newKind = ByteBuffer.allocate(64).putInt(0x45435048).putInt(1).array();
      // Nothing past the version is read: a body announced as the largest, then garbage, changes nothing.
      byte[] laterPartThenGarbage = ByteBuffer.allocate(1 << 16).putInt(PlanPartRequest.MAGIC)
          .putInt(PlanPartRequest.VERSION + 1).putInt(Integer.MAX_VALUE).array();
      long streamsRefused = EcRepairDataNodePlugin.streamsRefused(dn);
      for (byte[] request : List.of(laterPart, laterRange, laterStream, newKind, laterPartThenGarbage)) {
        AgentVersions.Refused r = assertThrows(AgentVersions.Refused.class,
            () -> firstAnswer(agent, request, AgentFuzzTest.challenge(internal)));
        assertEquals(AgentVersions.SPOKEN, r.spoken(), r.getMessage());
        assertTrue(r.getMessage().contains("plan parts " + PlanPartRequest.VERSION), r.getMessage());
      }

      // A stream of another release is not a sender that failed to prove itself.
      assertEquals(streamsRefused, EcRepairDataNodePlugin.streamsRefused(dn), "AgentStreamsRefused counted it");

      // A request it speaks is served as before: the agent proves itself and sends the ranges.
      AgentProof.Challenge challenge = AgentFuzzTest.challenge(internal);
      try (Socket s = new Socket()) {
        DataInputStream in = send(s, agent, range(internal, challenge));
        challenge.expect(in, dn.getDatanodeUuid(), "the agent", RangeRequest.ERROR, AgentProof.Purpose.SERVE);
        assertEquals(RangeRequest.OK, in.readInt());
      }
    }
  }

  /** The first answer to {@code request}, read as every requester reads it (a refusal thrown). */
  private static void firstAnswer(InetSocketAddress agent, byte[] request, AgentProof.Challenge challenge)
      throws IOException {
    try (Socket s = new Socket()) {
      challenge.expect(send(s, agent, request), null, "the agent at " + agent, -1, AgentProof.Purpose.SERVE);
    }
  }

  private static DataInputStream send(Socket s, InetSocketAddress agent, byte[] request) throws IOException {
    s.connect(agent, 5000);
    s.setSoTimeout(10_000);
    s.getOutputStream().write(request);
    s.getOutputStream().flush();
    return new DataInputStream(new BufferedInputStream(s.getInputStream()));
  }

  private static byte[] range(LocatedBlock internal, AgentProof.Challenge challenge) throws IOException {
    RangeRequest req = new RangeRequest(internal.getBlock(), internal.getBlockToken(), List.of(new long[] {0, 4096}));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    req.write(new DataOutputStream(bytes), challenge);
    return bytes.toByteArray();
  }

  /** The request with its version (the int after the magic) set to {@code version}. */
  private static byte[] withVersion(byte[] request, int version) {
    byte[] b = request.clone();
    ByteBuffer.wrap(b).putInt(4, version);
    return b;
  }
}
