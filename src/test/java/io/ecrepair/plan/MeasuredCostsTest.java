package io.ecrepair.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class MeasuredCostsTest {
  private static final long SECOND = 1_000_000_000L;
  private static final long MB = 1 << 20;

  private final AtomicLong clock = new AtomicLong();
  private final MeasuredCosts costs = new MeasuredCosts(clock::get, 60 * SECOND, 64 * 1024);

  /** Ten typical nodes reading 1 MiB in 10 ms each, {@code times} over. */
  private void typical(int times) {
    for (int t = 0; t < times; t++) {
      for (int i = 0; i < 10; i++) {
        costs.record("dn" + i, MB, 10_000_000L);
      }
    }
  }

  @Test
  void aNodeSlowReadAfterReadComesOutAsSlowAsItIs() {
    typical(20);
    for (int t = 0; t < 20; t++) {
      costs.record("slow", MB, 40_000_000L); // 4x the typical time per byte
    }
    assertEquals(4, costs.factor("slow"), 0.05);
    assertEquals(1, costs.factor("dn3"));
    assertEquals(java.util.Set.of("slow"), costs.slowNodes().keySet());
    assertEquals(4, costs.slowNodes().get("slow"), 0.05);
  }

  @Test
  void oneSlowReadOrOneFailureChangesNothing() {
    typical(5);
    costs.record("dn1", MB, 100 * 10_000_000L); // one read 100x slower
    assertEquals(1, costs.factor("dn1"));
    typical(3);
    costs.recordFailure("dn2");
    assertEquals(1, costs.factor("dn2"));
    costs.record("dn2", MB, 100 * 10_000_000L);
    costs.record("dn2", MB, 100 * 10_000_000L);
    assertTrue(costs.factor("dn2") > MeasuredCosts.GATE, "three bad reads in a row do count");
  }

  @Test
  void theFactorIsCappedAndFadesBackToOne() {
    typical(30);
    for (int t = 0; t < 200; t++) {
      costs.record("dead-slow", MB, 1000 * 10_000_000L);
    }
    assertEquals(MeasuredCosts.MAX_FACTOR, costs.factor("dead-slow"), 1e-9);
    clock.addAndGet(60 * SECOND); // one half-life: 16^(1/2)
    assertEquals(4, costs.factor("dead-slow"), 1e-9);
    clock.addAndGet(5 * 60 * SECOND);
    assertEquals(1, costs.factor("dead-slow"), "below the gate after six half-lives");
    costs.record("dead-slow", MB, 10_000_000L); // it is well again: its first read starts from the faded value
    assertEquals(1, costs.factor("dead-slow"));
    costs.record("dead-slow", MB, 10_000_000L);
    assertEquals(1, costs.factor("dead-slow"));
  }

  @Test
  void aColdFirstReadStartsFromTheTypicalNode() {
    typical(5);
    costs.record("new", MB, 100 * 10_000_000L); // its first read, 100x slower (a new connection, a cold JVM)
    costs.record("new", MB, 10_000_000L);
    assertEquals(1, costs.factor("new"));
  }

  @Test
  void fasterThanTypicalUnknownAndTinyReadsCountAsOne() {
    typical(10);
    for (int t = 0; t < 10; t++) {
      costs.record("fast", MB, 1_000_000L);
      costs.record("tiny", 4096, 10_000_000L); // latency, not throughput: ignored
    }
    costs.record("once", MB, 80_000_000L); // one read is not enough to judge
    assertEquals(1, costs.factor("fast"));
    assertEquals(1, costs.factor("tiny"));
    assertEquals(1, costs.factor("once"));
    assertEquals(1, costs.factor("never-read"));
    assertEquals(Map.of(), costs.slowNodes());
  }

  @Test
  void aSharedSlowDownlinkSlowsEveryNodeAlikeAndSoNoneStandsOut() {
    typical(10);
    for (int t = 0; t < 10; t++) {
      for (int i = 0; i < 10; i++) {
        costs.record("dn" + i, MB, 50_000_000L); // the reader's own link got 5x slower
      }
    }
    for (int i = 0; i < 10; i++) {
      assertEquals(1, costs.factor("dn" + i));
    }
  }
}
