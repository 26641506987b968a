package io.ecrepair.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.CodeSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a recovery's layout forces through the links, with the best choice of each block's repair. */
class PlanBoundTest {
  /** An option in which only the DataNodes' downlinks carry anything. */
  private static PlanBound.Option rx(double... in) {
    return new PlanBound.Option(in, new double[in.length]);
  }

  // Lost unit 0 of a three-unit code: central (the target receives 2 blocks), or one of two
  // parallel plans (the target receives 1, one helper 1.5).
  private static final Map<Integer, List<PlanBound.Option>> PLANS = Map.of(0, List.of(
      rx(2.0, 0, 0), rx(1.0, 1.5, 0), rx(1.0, 0, 1.5)));

  private static PlanBound.Busiest of(List<PlanBound.Task> tasks, Map<Integer, List<PlanBound.Option>> options,
                                      int live) {
    return of(tasks, options, live, PlanBound.Links.FLAT);
  }

  /** The tasks, each given the options of its lost unit. */
  private static PlanBound.Busiest of(List<PlanBound.Task> tasks, Map<Integer, List<PlanBound.Option>> options,
                                      int live, PlanBound.Links links) {
    return PlanBound.of(tasks.stream().map(t -> new PlanBound.Task(t.nodeOfUnit(), t.lost(), options.get(t.lost())))
        .toList(), live, links);
  }

  private static PlanBound.Task task(int lost, String... nodes) {
    return new PlanBound.Task(nodes, lost, List.of(rx(0)));
  }

  @Test
  void aTargetOfTwoBlocksGetsPlansThatLoadDifferentHelpers() {
    List<PlanBound.Task> tasks = List.of(task(0, "x", "y", "z"),
        task(0, "x", "y", "z"));
    PlanBound.Busiest b = of(tasks, PLANS, 3);
    assertEquals(4.0, b.central(), 1e-9); // x rebuilds both blocks centrally
    assertEquals(2.0, b.best(), 1e-9); // one plan per helper: x 2, y 1.5, z 1.5 (one plan for both: y 3)
    assertEquals("x in", b.link());
    assertEquals(2.0, b.gain(), 1e-9);
    assertEquals(2.0 / (5.0 / 3), b.bestBalance(), 1e-9); // 5 blocks over 3 live DataNodes
    // A live DataNode that receives nothing lowers the mean.
    assertEquals(2.0 / (5.0 / 4), of(tasks, PLANS, 4).bestBalance(), 1e-9);
    assertThrows(IllegalArgumentException.class, () -> of(tasks, PLANS, 2));
  }

  @Test
  void centralWinsWhereTheHelpersAreTheBottleneck() {
    Map<Integer, List<PlanBound.Option>> plans = Map.of(0, List.of(rx(1.2, 0, 0), rx(1.0, 1.5, 0)));
    PlanBound.Busiest b = of(List.of(task(0, "x", "y", "z")), plans, 3);
    assertEquals(1.2, b.best(), 1e-9);
    assertEquals(1.0, b.gain(), 1e-9);
  }

  @Test
  void laterChoicesRevisitEarlierOnes() {
    // Task 1 alone prefers helper y; task 2's only helper is y, so the best is task 1 on z.
    Map<Integer, List<PlanBound.Option>> plans = Map.of(
        0, List.of(rx(3.0, 0, 0), rx(1.0, 1.0, 0), rx(1.0, 0, 1.2)),
        1, List.of(rx(0, 3.0, 0), rx(1.0, 1.0, 0)));
    List<PlanBound.Task> tasks = new ArrayList<>(List.of(task(0, "a", "y", "z"),
        task(1, "y", "b", "c")));
    assertEquals(1.2, of(tasks, plans, 5).best(), 1e-9);
  }

  @Test
  void uplinksCountToo() {
    // Three blocks rebuilt on three DataNodes, each from the one helper "h": its uplink carries all three.
    Map<Integer, List<PlanBound.Option>> copy = Map.of(0, List.of(
        new PlanBound.Option(new double[] {1, 0}, new double[] {0, 1})));
    List<PlanBound.Task> tasks = List.of(task(0, "a", "h"),
        task(0, "b", "h"), task(0, "c", "h"));
    PlanBound.Busiest b = of(tasks, copy, 4);
    assertEquals(3.0, b.best(), 1e-9);
    assertEquals("h out", b.link());
  }

  @Test
  void slowDataNodesAndRackGatewaysWeighByTheirRate() {
    Map<Integer, List<PlanBound.Option>> copy = Map.of(0, List.of(
        new PlanBound.Option(new double[] {1, 0}, new double[] {0, 1})));
    List<PlanBound.Task> tasks = List.of(task(0, "a", "h"),
        task(0, "b", "h"));
    // h at a quarter of the rate: its two blocks take as long as eight at the base rate.
    assertEquals(8.0, of(tasks, copy, 3, new PlanBound.Links(Map.of("h", 4.0), Map.of(), 1)).best(), 1e-9);
    // a and b in rack r1, h in r0 behind gateways at half the rate: two blocks leave r0, four at the base rate.
    PlanBound.Busiest racked = of(tasks, copy, 3,
        new PlanBound.Links(Map.of(), Map.of("a", "r1", "b", "r1", "h", "r0"), 2));
    assertEquals(4.0, racked.best(), 1e-9);
    assertTrue(racked.link().equals("r0 out") || racked.link().equals("r1 in"), racked.link());
    // Within one rack nothing crosses a gateway.
    assertEquals(2.0, of(tasks, copy, 3,
        new PlanBound.Links(Map.of(), Map.of("a", "r0", "b", "r0", "h", "r0"), 2)).best(), 1e-9);
  }

  @Test
  void aUnitThatTakesPartNeedsADataNode() {
    assertThrows(IllegalArgumentException.class,
        () -> of(List.of(task(0, "x", null, "z")), PLANS, 3));
  }

  @Test
  void storedPlansOfAClayCodeBoundARecovery() {
    CodeSpec clay = new CodeSpec("clay", 10, 4);
    List<PlanBound.Task> tasks = new ArrayList<>();
    for (int g = 0; g < 4; g++) {
      String[] node = new String[14];
      for (int u = 0; u < 14; u++) {
        node[u] = "dn" + ((u + g) % 15);
      }
      tasks.add(task(g, node));
    }
    Map<Integer, List<PlanBound.Option>> options = new java.util.HashMap<>();
    tasks.forEach(t -> options.computeIfAbsent(t.lost(), u -> RepairOptions.of("pararc", clay, u)));
    assertThrows(IllegalArgumentException.class, () -> new PlanBound.Task(new String[] {"x"}, 0, List.of()));
    PlanBound.Busiest b = of(tasks, options, 15);
    assertEquals(3.25, b.central(), 1e-9); // four targets, one block each
    assertTrue(b.best() < b.central(), b.toString());
  }
}
