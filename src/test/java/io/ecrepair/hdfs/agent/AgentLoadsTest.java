package io.ecrepair.hdfs.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class AgentLoadsTest {

  @Test
  void aRoundOfSilentProbesEndsAtOneDeadline() {
    List<Future<Long>> asked = new ArrayList<>();
    for (int i = 0; i < 13; i++) {
      asked.add(new CompletableFuture<>());
    }
    long start = System.nanoTime();
    long[] loads = AgentLoads.answersWithin(asked, 200);
    long tookMs = (System.nanoTime() - start) / 1_000_000;
    long[] unknown = new long[13];
    java.util.Arrays.fill(unknown, -1);
    assertArrayEquals(unknown, loads);
    // A wait per probe would have taken 13 x 200 ms.
    assertTrue(tookMs < 1_300, "13 silent probes held the round " + tookMs + " ms");
    assertTrue(asked.stream().allMatch(Future::isCancelled), "a probe past the deadline is cancelled");
  }

  @Test
  void answersAreKeptAndFailuresAreUnknown() {
    List<Future<Long>> asked = new ArrayList<>();
    asked.add(CompletableFuture.completedFuture(42L));
    asked.add(CompletableFuture.failedFuture(new java.io.IOException("refused")));
    asked.add(new CompletableFuture<>());
    asked.add(CompletableFuture.completedFuture(0L));
    assertArrayEquals(new long[] {42, -1, -1, 0}, AgentLoads.answersWithin(asked, 50),
        "answers that came stay answers even after the deadline passed on another probe");
  }
}
