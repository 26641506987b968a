package io.ecrepair.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.CodeSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a recovery's plans allow on its layout, link-bound. */
class PlanBoundTest {
  // Lost unit 0 of a three-unit code: central (the target receives 2 blocks), or one of two
  // parallel plans (the target receives 1, one helper 1.5).
  private static final Map<Integer, List<double[]>> PLANS = Map.of(0, List.of(
      new double[] {2.0, 0, 0}, new double[] {1.0, 1.5, 0}, new double[] {1.0, 0, 1.5}));

  @Test
  void aTargetOfTwoBlocksGetsPlansThatLoadDifferentHelpers() {
    List<PlanBound.Task> tasks = List.of(new PlanBound.Task(new String[] {"x", "y", "z"}, 0),
        new PlanBound.Task(new String[] {"x", "y", "z"}, 0));
    PlanBound.Busiest b = PlanBound.of(tasks, PLANS, 3);
    assertEquals(4.0, b.central(), 1e-9); // x rebuilds both blocks centrally
    assertEquals(2.0, b.best(), 1e-9); // one plan per helper: x 2, y 1.5, z 1.5 (one plan for both: y 3)
    assertEquals(2.0, b.gain(), 1e-9);
    assertEquals(2.0 / (5.0 / 3), b.bestBalance(), 1e-9); // 5 blocks over 3 live DataNodes
    // A live DataNode that receives nothing lowers the mean.
    assertEquals(2.0 / (5.0 / 4), PlanBound.of(tasks, PLANS, 4).bestBalance(), 1e-9);
    assertThrows(IllegalArgumentException.class, () -> PlanBound.of(tasks, PLANS, 2));
  }

  @Test
  void centralWinsWhereTheHelpersAreTheBottleneck() {
    Map<Integer, List<double[]>> plans = Map.of(0, List.of(new double[] {1.2, 0, 0}, new double[] {1.0, 1.5, 0}));
    PlanBound.Busiest b = PlanBound.of(List.of(new PlanBound.Task(new String[] {"x", "y", "z"}, 0)), plans, 3);
    assertEquals(1.2, b.best(), 1e-9);
    assertEquals(1.0, b.gain(), 1e-9);
  }

  @Test
  void laterChoicesRevisitEarlierOnes() {
    // Task 1 alone prefers helper y; task 2's only helper is y, so the best is task 1 on z.
    Map<Integer, List<double[]>> plans = Map.of(
        0, List.of(new double[] {3.0, 0, 0}, new double[] {1.0, 1.0, 0}, new double[] {1.0, 0, 1.2}),
        1, List.of(new double[] {0, 3.0, 0}, new double[] {1.0, 1.0, 0}));
    List<PlanBound.Task> tasks = new ArrayList<>(List.of(new PlanBound.Task(new String[] {"a", "y", "z"}, 0),
        new PlanBound.Task(new String[] {"y", "b", "c"}, 1)));
    PlanBound.Busiest b = PlanBound.of(tasks, plans, 5);
    assertEquals(1.2, b.best(), 1e-9);
  }

  @Test
  void aUnitThatReceivesNeedsADataNode() {
    assertThrows(IllegalArgumentException.class,
        () -> PlanBound.of(List.of(new PlanBound.Task(new String[] {"x", null, "z"}, 0)), PLANS, 3));
  }

  @Test
  void storedPlansOfAClayCodeBoundARecoveryAndAScalarCodeHasNone() {
    CodeSpec clay = new CodeSpec("clay", 10, 4);
    List<PlanBound.Task> tasks = new ArrayList<>();
    for (int g = 0; g < 4; g++) {
      String[] node = new String[14];
      for (int u = 0; u < 14; u++) {
        node[u] = "dn" + ((u + g) % 15);
      }
      tasks.add(new PlanBound.Task(node, g));
    }
    PlanBound.Busiest b = PlanBound.of(clay, tasks, 15);
    assertEquals(3.25, b.central(), 1e-9); // four targets, one block each
    assertTrue(b.best() < b.central(), b.toString());
    assertNull(PlanBound.of(new CodeSpec("rs", 6, 3), tasks.subList(0, 1), 15));
  }
}
