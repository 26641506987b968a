package io.ecrepair.hdfs.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.Socket;
import org.junit.jupiter.api.Test;

/** The agent's memory caps, its admission of connections, and the freshness of request proofs. */
class AgentLimitsTest {
  @Test
  void memoryIsReservedUnderBothCapsAndGivenBack() throws IOException {
    AgentMemory memory = new AgentMemory(100, 40);
    IOException tooBig = assertThrows(IOException.class, () -> memory.reserve(41, "a part"));
    assertTrue(tooBig.getMessage().contains("a part may hold"), tooBig.getMessage());
    AgentMemory.Grant a = memory.reserve(40, "a");
    AgentMemory.Grant b = memory.reserve(40, "b");
    IOException full = assertThrows(IOException.class, () -> memory.reserve(30, "c"));
    assertTrue(full.getMessage().contains("try again later"), full.getMessage());
    assertEquals(80, memory.inUse());
    a.close();
    a.close(); // once only
    assertEquals(40, memory.inUse());
    memory.reserve(30, "c").close();
    b.close();
    assertEquals(0, memory.inUse());
    assertEquals(2, memory.refused());
  }

  @Test
  void aNewConnectionCutsTheOneThatWaitedLongest() {
    Admission admission = new Admission(2, 1, 1);
    Socket first = new Socket();
    Socket second = new Socket();
    Socket third = new Socket();
    admission.arrive(first);
    admission.arrive(second);
    admission.arrive(third);
    assertTrue(first.isClosed(), "the longest-waiting connection was cut");
    assertFalse(second.isClosed() || third.isClosed());
    assertEquals(1, admission.cut());
    assertNull(admission.work(first, Admission.Slot.REQUEST), "a cut connection is not served");
    assertEquals(Admission.Slot.REQUEST, admission.work(second, Admission.Slot.REQUEST));
    assertNull(admission.work(third, Admission.Slot.REQUEST), "the one working slot is taken");
    Socket stream = new Socket();
    admission.arrive(stream);
    assertNotNull(admission.work(stream, Admission.Slot.STREAM), "streams have slots of their own");
    admission.leave(second, Admission.Slot.REQUEST);
    Socket fourth = new Socket();
    admission.arrive(fourth);
    assertEquals(Admission.Slot.REQUEST, admission.work(fourth, Admission.Slot.REQUEST), "a freed slot is taken again");
  }

  @Test
  void aRequestProofCountsOnceAndOnlyWhenFresh() {
    FreshProofs fresh = new FreshProofs();
    long now = 1_000_000_000L;
    byte[] proof = {1, 2, 3};
    assertTrue(fresh.take(proof, now - 1_000, now));
    assertFalse(fresh.take(proof.clone(), now - 1_000, now + 10), "a replay");
    assertFalse(fresh.take(new byte[] {4}, now - FreshProofs.WINDOW_MS - 1, now), "too old");
    assertFalse(fresh.take(new byte[] {5}, now + FreshProofs.WINDOW_MS + 1, now), "from the future");
    assertTrue(fresh.take(new byte[] {6}, now, now));
    // Long after, the first proof is forgotten, and could not be fresh anyway.
    long later = now + 3 * FreshProofs.WINDOW_MS;
    assertFalse(fresh.take(proof, now - 1_000, later));
  }
}
