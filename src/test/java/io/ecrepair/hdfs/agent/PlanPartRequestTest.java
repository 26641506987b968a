package io.ecrepair.hdfs.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.plan.Plan;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** A part of a distributed repair on the wire: it reads back whole, and a cut request is an IOException. */
class PlanPartRequestTest {
  @Test
  void partRequestsRoundTrip() throws Exception {
    Plan plan = RepairCatalog.parallelPlan(new CodeSpec("clay", 10, 4), 0).orElseThrow();
    var parts = RepairCatalog.parts(plan);
    var part = parts.get(2);
    var block = new org.apache.hadoop.hdfs.protocol.ExtendedBlock("bp", 5, 4L * 256 * 1024, 7);
    var peers = new java.util.TreeMap<Integer, PlanPartRequest.Peer>();
    part.outbound().forEach(g -> peers.put(g.peer(), new PlanPartRequest.Peer("127.0.0.1", 1000 + g.peer())));
    PlanPartRequest req = new PlanPartRequest(1, 2, block, new org.apache.hadoop.security.token.Token<>(), 3L << 18,
        256 * 1024,
        1024, 0, 4, 512, part, peers, true);
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    req.write(new java.io.DataOutputStream(bytes));
    java.io.DataInputStream in = new java.io.DataInputStream(new java.io.ByteArrayInputStream(bytes.toByteArray()));
    assertEquals(PlanPartRequest.MAGIC, in.readInt());
    PlanPartRequest back = PlanPartRequest.readAfterMagic(in);
    assertEquals(part.valuesIn(), back.part().valuesIn());
    assertEquals(part.valuesOut(), back.part().valuesOut());
    assertEquals(part.steps().size(), back.part().steps().size());
    assertArrayEquals(part.leafSubchunks(), back.part().leafSubchunks());
    assertEquals(peers, back.peers());
    assertEquals(3L << 18, back.readLimit());
    assertEquals(true, back.forClient());
    // Truncated anywhere: an IOException, never another error.
    byte[] all = bytes.toByteArray();
    for (int cut = 4; cut < all.length; cut += Math.max(1, all.length / 200)) {
      java.io.DataInputStream t = new java.io.DataInputStream(new java.io.ByteArrayInputStream(all, 4, cut - 4));
      org.junit.jupiter.api.Assertions.assertThrows(IOException.class, () -> PlanPartRequest.readAfterMagic(t));
    }
  }
}
