package io.ecrepair.hdfs.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
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
    AgentVersions.Unspoken u = assertThrows(AgentVersions.Unspoken.class,
        () -> AgentVersions.check(PlanPartRequest.MAGIC, PlanPartRequest.VERSION + 1));
    assertEquals("version " + (PlanPartRequest.VERSION + 1) + " of plan parts is not spoken here", u.getMessage());
    for (int kind : new int[] {PlanPartRequest.MAGIC, RangeRequest.MAGIC, PlanFrames.STREAM_MAGIC}) {
      assertThrows(AgentVersions.Unspoken.class, () -> AgentVersions.check(kind, Integer.MIN_VALUE));
    }
  }

  /** A requester reads the refusal where it reads its first answer, and learns every (kind, version) the agent speaks. */
  @Test
  void aRequesterLearnsWhatTheAgentSpeaks() throws IOException {
    AgentVersions.Refused read = assertThrows(AgentVersions.Refused.class,
        () -> firstAnswer(told(AgentVersions.unknownKind(0x45435048)), "the agent at x"));
    assertEquals(AgentVersions.SPOKEN, read.spoken());
    assertTrue(read.getMessage().startsWith("the agent at x refused the request: not a repair agent request (kind "
        + "45435048); it speaks plan parts " + PlanPartRequest.VERSION + ", range requests " + RangeRequest.VERSION
        + ", value streams " + PlanFrames.VERSION + ", load probes 0"), read.getMessage());
  }

  @Test
  void aRefusalsCountIsBoundedBeforeItIsRead() {
    for (int count : new int[] {0, -1, AgentVersions.MAX_SPOKEN + 1, Integer.MAX_VALUE}) {
      byte[] b = ByteBuffer.allocate(8).putInt(AgentVersions.REFUSED).putInt(count).array();
      IOException e = assertThrows(IOException.class, () -> firstAnswer(b, "the agent"));
      assertFalse(e instanceof AgentVersions.Refused, "count " + count + " taken: " + e);
      assertTrue(e.getMessage().contains("naming " + count + " versions"), e.getMessage());
    }
  }

  @Test
  void aRefusalCutShortIsNoRefusal() throws IOException {
    byte[] whole = told(AgentVersions.unknownKind(1));
    for (int cut : new int[] {4, 8, 12, whole.length - 1}) {
      byte[] b = Arrays.copyOf(whole, cut);
      assertThrows(EOFException.class, () -> firstAnswer(b, "the agent"), "cut at " + cut);
    }
  }

  private static byte[] told(AgentVersions.Unspoken why) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    AgentVersions.tell(new DataOutputStream(bytes), why);
    return bytes.toByteArray();
  }

  /** The first answer read as every requester reads it. */
  private static void firstAnswer(byte[] answer, String agent) throws IOException {
    AgentProof.Challenge.of(new Token<>()).expect(new DataInputStream(new ByteArrayInputStream(answer)), null, agent,
        -1, SERVE);
  }
}
