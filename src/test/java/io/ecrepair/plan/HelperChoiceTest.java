package io.ecrepair.plan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.exec.CellRowRepair;
import java.util.Arrays;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** FastDR's EG helper choice: the code's cheapest repair with equal costs, cheaper DataNodes when they differ. */
class HelperChoiceTest {
  private static final int CELL = 1 << 20;

  private static int[] allBut(int n, int... lost) {
    return IntStream.range(0, n).filter(u -> Arrays.stream(lost).noneMatch(l -> l == u)).toArray();
  }

  private static double[] costs(int n, double base) {
    double[] c = new double[n];
    Arrays.fill(c, base);
    return c;
  }

  /** {parallel read time, bytes} of a row of the repair: helpers are read at once. */
  private static double[] score(CellRowRepair repair, double[] cost, int codingLength) {
    double time = 0;
    double bytes = 0;
    for (int u : repair.helpers()) {
      long b = 0;
      for (int[] r : repair.ranges(u, codingLength)) {
        b += r[1];
      }
      b = cost[u] == 0 ? 0 : b;
      time = Math.max(time, b * cost[u]);
      bytes += b;
    }
    return new double[] {time, bytes};
  }

  @Test
  void equalCostsKeepTheCodesChoice() {
    CodeSpec lrc = new CodeSpec("lrc-l2", 12, 4);
    CellRowRepair r = HelperChoice.choose(lrc, new int[] {0}, allBut(16, 0), costs(16, 1), new int[0], 1);
    // The local group of block 0: data 1..5 and its local parity 12.
    assertArrayEquals(new int[] {1, 2, 3, 4, 5, 12}, r.helpers());
    CodeSpec clay = new CodeSpec("clay", 10, 4);
    CellRowRepair c = HelperChoice.choose(clay, new int[] {0}, allBut(14, 0), costs(14, 1), new int[0], 1);
    assertEquals(13, c.helpers().length);
    assertEquals(13L * CELL / 4, c.bytesPerRow(CELL), "sub-chunk repair: d/q cells");
  }

  @Test
  void aFarHelperIsAvoidedWhenAnotherSetReadsInParallelFaster() {
    // Two lost blocks of CLAY-10-4: a decode from any 10 of the other 12; blocks 2 and 3 sit far away.
    CodeSpec clay = new CodeSpec("clay", 10, 4);
    double[] cost = costs(14, 1);
    cost[2] = 3;
    cost[3] = 3;
    CellRowRepair code = CodeRepairs.plan(clay, new int[] {0, 1}, allBut(14, 0, 1));
    CellRowRepair r = HelperChoice.choose(clay, new int[] {0, 1}, allBut(14, 0, 1), cost, new int[0], 0);
    assertFalse(Arrays.stream(r.helpers()).anyMatch(u -> u == 2 || u == 3), Arrays.toString(r.helpers()));
    assertTrue(score(r, cost, CELL)[0] < score(code, cost, CELL)[0],
        "parallel read time below the code's own choice over every unit");
  }

  @Test
  void theReadersOwnLinkKeepsTheSubchunkRepairUntilAHelperReallyIsTheBottleneck() {
    // CLAY-10-4: the sub-chunk repair reads a quarter cell from each of 13 (3.25 cells into the
    // reader); a decode reads 10 whole cells. One helper 5x slower takes 1.25 cell-times for its
    // quarter cell, against 1 for any helper of the decode.
    CodeSpec clay = new CodeSpec("clay", 10, 4);
    double[] cost = costs(14, 1);
    cost[5] = 5;
    assertEquals(10, HelperChoice.choose(clay, new int[] {0}, allBut(14, 0), cost, new int[0], 0).helpers().length,
        "helpers' links only (FastDR's model): the decode from 10 spares the slow helper");
    assertEquals(13, HelperChoice.choose(clay, new int[] {0}, allBut(14, 0), cost, new int[0], 1).helpers().length,
        "with the reader's downlink: 3.25 cell-times against 10, the sub-chunk repair stays");
    cost[5] = 60; // now its quarter cell takes 15 cell-times
    CellRowRepair r = HelperChoice.choose(clay, new int[] {0}, allBut(14, 0), cost, new int[0], 1);
    assertEquals(10, r.helpers().length);
    assertFalse(Arrays.stream(r.helpers()).anyMatch(u -> u == 5));
  }

  @Test
  void zeroCostUnitsHoldNoBytesAndNeverCount() {
    CodeSpec lrc = new CodeSpec("lrc-l2", 12, 4);
    double[] cost = costs(16, 1);
    cost[5] = 0; // an empty data block of a short group: zeros, never read
    CellRowRepair r = HelperChoice.choose(lrc, new int[] {0}, allBut(16, 0), cost, new int[0], 1);
    assertTrue(score(r, cost, CELL)[1] <= 5.0 * CELL, "an empty unit costs nothing");
  }
}
