package io.ecrepair.hdfs.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.exec.NodePart;
import io.ecrepair.gf.GFMatrix;
import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.plan.Plan;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.security.token.Token;
import org.junit.jupiter.api.Test;

/**
 * A part of a distributed repair on the wire: it reads back whole, its header comes before its
 * body, a cut request is an IOException, and a part that names a value twice (in a group, a
 * step's inputs or its leaves) is refused before anything is built from it.
 */
class PlanPartRequestTest {
  private static final ExtendedBlock BLOCK = new ExtendedBlock("bp", 5, 4L * 256 * 1024, 7);

  private static NodePart clayPart() {
    Plan plan = RepairCatalog.parallelPlan(new CodeSpec("clay", 10, 4), 0).orElseThrow();
    return RepairCatalog.parts(plan).get(2);
  }

  private static Map<Integer, PlanPartRequest.Peer> peersOf(NodePart part) {
    Map<Integer, PlanPartRequest.Peer> peers = new TreeMap<>();
    part.outbound().forEach(g -> peers.put(g.peer(), new PlanPartRequest.Peer("127.0.0.1", 1000 + g.peer(),
        "dn-" + g.peer())));
    part.inbound().forEach(g -> peers.put(g.peer(), new PlanPartRequest.Peer("127.0.0.1", 1000 + g.peer(),
        "dn-" + g.peer())));
    return peers;
  }

  private static byte[] bytes(PlanPartRequest req) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    req.write(new DataOutputStream(bytes), AgentProof.Challenge.of(new Token<>()), "dn-agent");
    return bytes.toByteArray();
  }

  private static PlanPartRequest parse(byte[] all) throws IOException {
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(all));
    assertEquals(PlanPartRequest.MAGIC, in.readInt());
    PlanPartRequest.Header header = PlanPartRequest.readHeader(in);
    byte[] body = new byte[header.bodyLength()];
    in.readFully(body);
    return PlanPartRequest.readBody(header, body);
  }

  @Test
  void partRequestsRoundTrip() throws Exception {
    NodePart part = clayPart();
    Map<Integer, PlanPartRequest.Peer> peers = peersOf(part);
    PlanPartRequest req = new PlanPartRequest(1, 2, BLOCK, new Token<>(), 3L << 18, 256 * 1024, 1024, 0, 4, 1024, part,
        peers, true);
    byte[] all = bytes(req);
    PlanPartRequest back = parse(all);
    assertEquals(part.valuesIn(), back.part().valuesIn());
    assertEquals(part.valuesOut(), back.part().valuesOut());
    assertEquals(part.steps().size(), back.part().steps().size());
    assertArrayEquals(part.leafSubchunks(), back.part().leafSubchunks());
    assertEquals(peers, back.peers());
    assertEquals(3L << 18, back.readLimit());
    assertEquals(true, back.forClient());

    // The header stands alone: the agent checks it (and the body's length) before reading the body.
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(all));
    in.readInt();
    PlanPartRequest.Header header = PlanPartRequest.readHeader(in);
    assertEquals(BLOCK, header.block());
    assertEquals(0, header.proof().length, "a client's challenge makes no requester proof");
    assertEquals(header.bodyLength(), in.available(), "only the body is left");

    // Truncated anywhere: an IOException, never another error.
    for (int cut = 4; cut < all.length; cut += Math.max(1, all.length / 200)) {
      byte[] shorter = java.util.Arrays.copyOf(all, cut);
      assertThrows(IOException.class, () -> parse(shorter));
    }
  }

  @Test
  void aBodyLongerThanAPartCanBeIsRefusedBeforeItIsRead() throws IOException {
    byte[] all = bytes(new PlanPartRequest(1, 2, BLOCK, new Token<>(), 1024, 256 * 1024, 1024, 0, 4, 1024, clayPart(),
        peersOf(clayPart()), false));
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(all));
    in.readInt();
    int bodyAt = all.length - PlanPartRequest.readHeader(in).bodyLength() - 4;
    java.nio.ByteBuffer.wrap(all).putInt(bodyAt, PlanPartRequest.MAX_BODY + 1);
    IOException e = assertThrows(IOException.class, () -> parse(all));
    assertTrue(e.getMessage().contains("allowed"), e.getMessage());
  }

  /** Each of these would make a part hold or compute more than its plan needs. */
  @Test
  void aValueNamedTwiceIsRefused() throws IOException {
    GFMatrix one = new GFMatrix(1, 2, new byte[] {1, 1});
    assertThrows(IllegalArgumentException.class, () -> new NodePart.Group(3, 1, new int[] {7, 7}));
    assertThrows(IllegalArgumentException.class, () -> new NodePart.Group(3, 1, new int[] {8, 7}));
    assertThrows(IllegalArgumentException.class, () -> new NodePart.Step(1, new int[] {4, 4}, new int[] {9}, one));
    assertThrows(IllegalArgumentException.class, () -> new NodePart(0, 4, new int[][] {{1, 2}, {3, 2}}, List.of(),
        List.of(), List.of(), List.of()));
    // The same checks when the values come from the wire: an IOException.
    NodePart part = clayPart();
    NodePart.Group g = part.outbound().get(0);
    int[] repeated = new int[g.vertices().length + 1];
    System.arraycopy(g.vertices(), 0, repeated, 0, g.vertices().length);
    repeated[repeated.length - 1] = g.vertices()[g.vertices().length - 1];
    byte[] honest = assertDoesNotThrowBytes(part);
    byte[] forged = HostileRequests.withGroup(honest, g, repeated);
    IOException e = assertThrows(IOException.class, () -> parse(forged));
    assertTrue(e.getMessage().contains("ascending"), e.getMessage());
  }

  private static byte[] assertDoesNotThrowBytes(NodePart part) {
    try {
      return bytes(new PlanPartRequest(1, 2, BLOCK, new Token<>(), 1024, 256 * 1024, 1024, 0, 4, 1024, part,
          peersOf(part), false));
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }
}
