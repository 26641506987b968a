package io.ecrepair.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.CodeSpec;
import java.util.Arrays;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class CostAwareReadsTest {
  private static final int CELL = 1 << 20;

  private static int[] without(int n, int... lost) {
    return IntStream.range(0, n).filter(u -> Arrays.stream(lost).noneMatch(l -> l == u)).toArray();
  }

  /** With one lost unit, EG keeps an option of least time: the optimum, for every code and cost. */
  @Test
  void oneLostUnitIsOptimal() {
    Random random = new Random(7);
    for (CodeSpec spec : new CodeSpec[] {new CodeSpec("rs", 6, 3), new CodeSpec("lrc-l2", 12, 4),
        new CodeSpec("clay", 4, 2), new CodeSpec("butterfly", 4, 2)}) {
      CodeReadSets code = CodeReadSets.of(spec);
      for (int lost = 0; lost < spec.k(); lost++) {
        int[] healthy = IntStream.range(0, Math.min(4, spec.k())).filter(u -> u != 0).toArray();
        int l = lost;
        healthy = Arrays.stream(healthy).filter(u -> u != l).toArray();
        for (int t = 0; t < 5; t++) {
          double[] cost = random.doubles(spec.n(), 1, 8).toArray();
          CostAwareReads search = new CostAwareReads(code, cost, healthy, new int[] {lost}, without(spec.n(), lost),
              spec.n() - 1, CELL);
          double eg = search.enumeratedGreedy().time();
          assertEquals(search.exhaustive().time(), eg, 1e-6, spec + " lost " + lost);
          assertTrue(eg <= CostAwareReads.basic(code, cost, healthy, new int[] {lost}, without(spec.n(), lost), CELL)
              .time() + 1e-6, "never worse than the code's own choice");
        }
      }
    }
  }

  /** Several lost units: EG close to the optimum (FastDR reports within a few percent), never worse than half. */
  @Test
  void multiBlockReadsAreNearOptimal() {
    Random random = new Random(11);
    CodeSpec spec = new CodeSpec("rs", 6, 3);
    CodeReadSets code = CodeReadSets.of(spec);
    double sum = 0;
    int trials = 40;
    for (int t = 0; t < trials; t++) {
      double[] cost = new double[spec.n()];
      for (int u = 0; u < cost.length; u++) {
        cost[u] = new double[] {1, 2, 4}[random.nextInt(3)];
      }
      CostAwareReads search = new CostAwareReads(code, cost, new int[] {1, 3}, new int[] {0, 2},
          without(spec.n(), 0, 2), spec.n() - 2, CELL);
      double ratio = search.enumeratedGreedy().time() / search.exhaustive().time();
      assertTrue(ratio >= 1 - 1e-9 && ratio < 2, "EG / optimum " + ratio);
      sum += ratio;
    }
    assertTrue(sum / trials < 1.1, "EG within 10% of the optimum on average: " + sum / trials);
  }

  /** A slow node that the code's own repair reads is left out when another read set exists. */
  @Test
  void aSlowHelperIsAvoided() {
    CodeSpec spec = new CodeSpec("rs", 6, 3);
    CodeReadSets code = CodeReadSets.of(spec);
    int[] survivors = without(9, 0);
    int[] healthy = {1, 2};
    CostAwareReads.Solution basic = CostAwareReads.basic(code, uniform(9), healthy, new int[] {0}, survivors, CELL);
    int slow = Arrays.stream(basic.options().get(0).helpers()).filter(u -> u > 2).findFirst().orElseThrow();
    double[] cost = uniform(9);
    cost[slow] = 10;
    CostAwareReads search = new CostAwareReads(code, cost, healthy, new int[] {0}, survivors, 8, CELL);
    CostAwareReads.Solution eg = search.enumeratedGreedy();
    assertFalse(Arrays.stream(eg.options().get(0).helpers()).anyMatch(u -> u == slow),
        "EG reads around unit " + slow + ": " + Arrays.toString(eg.options().get(0).helpers()));
    assertEquals(CELL, eg.time(), 1e-6, "every node read at cost 1 for one cell");
    assertEquals(10.0 * CELL, CostAwareReads.basic(code, cost, healthy, new int[] {0}, survivors, CELL).time(), 1e-6);
    // With equal costs nothing changes the time: the code's own choice is as good.
    assertEquals(basic.time(), new CostAwareReads(code, uniform(9), healthy, new int[] {0}, survivors, 8, CELL)
        .enumeratedGreedy().time(), 1e-6);
  }

  /** Clay: its sub-chunk repair (d = n - 1 helpers, half of each) unless a helper is slow enough. */
  @Test
  void claySubChunkRepairAgainstAWholeCellDecode() {
    CodeSpec spec = new CodeSpec("clay", 4, 2);
    CodeReadSets code = CodeReadSets.of(spec);
    int[] survivors = without(6, 0);
    CostAwareReads.Solution even = new CostAwareReads(code, uniform(6), new int[0], new int[] {0}, survivors, 5, CELL)
        .enumeratedGreedy();
    assertEquals(5, even.options().get(0).helpers().length, "the sub-chunk repair reads all 5 helpers");
    assertEquals(CELL / 2.0, even.time(), 1e-6, "half a cell from each (alpha 8, q 2)");
    double[] cost = uniform(6);
    cost[5] = 4; // half a cell at cost 4 takes twice as long as a whole cell at cost 1
    CostAwareReads.Solution around = new CostAwareReads(code, cost, new int[0], new int[] {0}, survivors, 5, CELL)
        .enumeratedGreedy();
    assertEquals(4, around.options().get(0).helpers().length, "a whole-cell decode from the 4 others");
    assertEquals(CELL, around.time(), 1e-6);
  }

  private static double[] uniform(int n) {
    double[] c = new double[n];
    Arrays.fill(c, 1);
    return c;
  }
}
