package io.ecrepair.hdfs.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.hadoop.security.token.Token;
import org.junit.jupiter.api.Test;

/** The refusal that names what an agent speaks: what it accepts, its wire form, and its bounds on the requester's side. */
class AgentVersionsTest {
  private static final AgentProof.Purpose SERVE = AgentProof.Purpose.SERVE;

  @Test
  void theVersionsThisAgentSendsAreTheOnesItSpeaks() throws IOException {
    AgentVersions.check(PlanPartRequest.MAGIC, PlanPartRequest.VERSION);
    AgentVersions.check(RangeRequest.MAGIC, RangeRequest.VERSION);
    AgentVersions.check(PlanFrames.STREAM_MAGIC, PlanFrames.VERSION);
    AgentVersions.Refused r = assertThrows(AgentVersions.Refused.class,
        () -> AgentVersions.check(PlanPartRequest.MAGIC, PlanPartRequest.VERSION + 1));
    assertTrue(r.getMessage().contains("version " + (PlanPartRequest.VERSION + 1) + " of plan parts"), r.getMessage());
    assertTrue(r.getMessage().contains("plan parts " + PlanPartRequest.VERSION), r.getMessage());
    assertThrows(AgentVersions.Refused.class, () -> AgentVersions.check(RangeRequest.MAGIC, PlanPartRequest.VERSION));
  }

  /** A requester reads the refusal where it reads its first answer, and learns every (kind, version) the agent speaks. */
  @Test
  void aRequesterLearnsWhatTheAgentSpeaks() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    AgentVersions.tell(new DataOutputStream(bytes), AgentVersions.unknownKind(0x45435048));
    AgentProof.Challenge challenge = AgentProof.Challenge.of(new Token<>());
    AgentVersions.Refused read = assertThrows(AgentVersions.Refused.class, () -> challenge.expect(
        new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())), null, "the agent at x", -1, SERVE));
    assertEquals(AgentVersions.SPOKEN, read.spoken());
    assertTrue(read.speaks(RangeRequest.MAGIC, RangeRequest.VERSION));
    assertFalse(read.speaks(RangeRequest.MAGIC, RangeRequest.VERSION + 1));
    assertTrue(read.getMessage().startsWith("the agent at x refused the request: not a repair agent request (kind "
        + "45435048)"), read.getMessage());
  }

  @Test
  void aRefusalsCountIsBoundedBeforeItIsRead() {
    for (int count : new int[] {0, -1, AgentVersions.MAX_SPOKEN + 1, Integer.MAX_VALUE}) {
      byte[] b = ByteBuffer.allocate(8).putInt(AgentVersions.REFUSED).putInt(count).array();
      IOException e = assertThrows(IOException.class, () -> AgentProof.Challenge.of(new Token<>())
          .expect(new DataInputStream(new ByteArrayInputStream(b)), null, "the agent", -1, SERVE));
      assertFalse(e instanceof AgentVersions.Refused, "count " + count + " taken: " + e);
      assertTrue(e.getMessage().contains("naming " + count + " versions"), e.getMessage());
    }
  }
}
