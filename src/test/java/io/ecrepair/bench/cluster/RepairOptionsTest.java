package io.ecrepair.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.layout.Policy;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The ways each strategy can rebuild one lost unit, as bytes in and out of each unit's DataNode. */
class RepairOptionsTest {
  private static final CodeSpec RS = new CodeSpec("rs", 10, 4);

  private static double sum(double[] v) {
    return Arrays.stream(v).sum();
  }

  @Test
  void hdfsReadsKWholeBlocksFromAnyKSurvivors() {
    List<PlanBound.Option> o = RepairOptions.of("stock", RS, 3);
    assertEquals(286, o.size(), "13 choose 10");
    for (PlanBound.Option x : o) {
      assertEquals(10.0, x.in()[3], 1e-12);
      assertEquals(10.0, sum(x.in()), 1e-12, "only the rebuilding DataNode receives");
      assertEquals(10.0, sum(x.out()), 1e-12);
      assertEquals(0.0, x.out()[3], 1e-12, "the lost unit sends nothing");
      assertTrue(Arrays.stream(x.out()).allMatch(v -> v == 0 || v == 1));
    }
  }

  @Test
  void aChainCarriesOneBlockOnEveryLink() {
    List<PlanBound.Option> o = RepairOptions.of("pipeline", RS, 0);
    assertEquals(286 * 10, o.size(), "any 10 survivors, any of them first");
    for (PlanBound.Option x : o) {
      assertEquals(1.0, x.in()[0], 1e-12);
      assertEquals(10.0, sum(x.in()), 1e-12, "nine helpers after the head and the rebuilding DataNode");
      assertEquals(10.0, sum(x.out()), 1e-12);
      assertTrue(Arrays.stream(x.in()).allMatch(v -> v <= 1) && Arrays.stream(x.out()).allMatch(v -> v <= 1));
    }
    // LRC(12,2,2) rebuilds a data block from its local group: six helpers.
    CodeSpec lrc = Policy.parse("LRC-L2-12-4-1024k").code();
    List<PlanBound.Option> local = RepairOptions.of("pipeline", lrc, 0);
    assertEquals(6, local.size(), "one helper set, each helper heading once");
    assertEquals(6.0, sum(local.get(0).out()), 1e-12);
    assertEquals(6.0, sum(local.get(0).in()), 1e-12);
  }

  @Test
  void anLrcChainCanGoAroundAnotherRack() {
    CodeSpec lrc = Policy.parse("LRC-L2-12-4-1024k").code();
    // Without unit 1 the local group cannot rebuild unit 0: the code decodes from 12 others.
    List<PlanBound.Option> around = RepairOptions.chainsAvoiding(lrc, 0, java.util.Set.of(1));
    assertEquals(12, around.size());
    assertEquals(12.0, sum(around.get(0).out()), 1e-12);
    assertEquals(0.0, around.get(0).out()[1], 1e-12);
    // Without its local group and its local parity only 9 units are left: no way.
    assertTrue(RepairOptions.chainsAvoiding(lrc, 0, java.util.Set.of(1, 2, 3, 4, 5, 12)).isEmpty());
  }

  @Test
  void clayIsCentralOrAStoredParallelPlan() {
    CodeSpec clay = new CodeSpec("clay", 10, 4);
    List<PlanBound.Option> central = RepairOptions.of("central", clay, 0);
    assertEquals(1, central.size());
    assertEquals(3.25, central.get(0).in()[0], 1e-9, "13 helpers, a quarter block each");
    assertEquals(3.25, sum(central.get(0).out()), 1e-9);
    List<PlanBound.Option> pararc = RepairOptions.of("pararc", clay, 0);
    assertTrue(pararc.size() > 1, "central and the stored parallel plans");
    assertEquals(3.25, pararc.get(0).in()[0], 1e-9, "central first");
    assertTrue(pararc.get(1).in()[0] < 3.25, "a parallel plan takes load off the rebuilding DataNode");
    assertThrows(IllegalArgumentException.class, () -> RepairOptions.of("magic", clay, 0));
  }

  @Test
  void subsets() {
    assertEquals(List.of("[1, 2]", "[1, 3]", "[2, 3]"),
        RepairOptions.subsets(new int[] {1, 2, 3}, 2).stream().map(Arrays::toString).toList());
  }
}
