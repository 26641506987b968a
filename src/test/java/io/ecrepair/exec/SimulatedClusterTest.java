package io.ecrepair.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.RepairableCode;
import io.ecrepair.ecdag.Ecdag;
import io.ecrepair.gf.RegionCoders;
import io.ecrepair.layout.Policy;
import io.ecrepair.plan.Plan;
import io.ecrepair.plan.PlanCheck;
import io.ecrepair.plan.Planner;
import io.ecrepair.plan.Traffic;
import java.nio.ByteBuffer;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SimulatedClusterTest {
  static RepairableCode code(String policy) {
    return Policy.parse(policy).code().create(RegionCoders.best());
  }

  @Test
  void slicesOfAnySizeGiveTheSameBytesAndTheTablesTraffic() {
    RepairableCode c = code("CLAY-4-2-1024k");
    Plan p = Planner.plan(c, 3, "fast", Planner.Options.defaults().withMoveBudget(200_000));
    for (int slice : new int[] {1, 7, 16, 50, 1000}) {
      PlanCheck.Report r = PlanCheck.run(c, p, 3, 50, 3, slice, 11, RegionCoders.best());
      assertTrue(r.ok(), "slice " + slice);
      // Java coder, same bytes.
      assertTrue(PlanCheck.run(c, p, 3, 50, 1, slice, 11, RegionCoders.java()).ok(), "java coder, slice " + slice);
    }
  }

  @Test
  void eachValueCrossesOncePerDestinationAndSlice() {
    RepairableCode c = code("BUTTERFLY-4-2-1024k");
    Plan p = Planner.plan(c, 1, "fast", Planner.Options.defaults().withMoveBudget(200_000));
    int s = 40;
    int slice = 16; // 3 slices per sub-chunk
    ByteBuffer[] blocks = new ByteBuffer[p.problem().nodeCount()];
    for (int b = 0; b < c.totalUnits(); b++) {
      if (b != 1) {
        blocks[b] = ByteBuffer.allocate(2 * p.graph().subchunkCount() * s);
      }
    }
    SimulatedCluster.Result r = new SimulatedCluster(RegionCoders.best()).run(p.graph(), p.colors(),
        p.problem().nodeCount(), blocks, s, slice);
    Traffic t = p.traffic();
    assertEquals((long) t.bandwidth() * 3 * 2, r.transfers(), "transfers = table x slices x rows");
    assertEquals((long) t.bandwidth() * s * 2, r.totalBytes());
  }

  @Test
  void nodeProgramsCoLocateOperationsWithTheSameInputs() {
    // A node computing two vertices from the same inputs at one level runs one two-row step.
    Ecdag.Builder b = Ecdag.builder(2);
    int x = b.leaf(1, 0);
    int y = b.leaf(2, 0);
    b.repaired(0, 0, new int[] {x, y}, new int[] {1, 2});
    b.repaired(0, 1, new int[] {x, y}, new int[] {3, 4});
    Ecdag g = b.build();
    int[] color = {1, 2, 2, 2, 0};
    Map<Integer, NodeProgram> progs = NodeProgram.compile(g, color);
    assertEquals(1, progs.get(2).steps().size());
    assertEquals(2, progs.get(2).steps().get(0).outputs().length);
    assertEquals(1, progs.get(1).sends().size(), "x goes to node 2 once, for both uses");
    assertEquals(2, progs.get(0).receives().size());
    assertEquals(0, progs.get(0).steps().size());
  }

  @Test
  void missingBlocksAndBadSizesAreRefused() {
    RepairableCode c = code("RS-4-2-1024k");
    Plan p = Planner.plan(c, 0, "centralized", Planner.Options.defaults());
    ByteBuffer[] blocks = new ByteBuffer[p.problem().nodeCount()];
    SimulatedCluster sc = new SimulatedCluster(RegionCoders.best());
    assertThrows(IllegalArgumentException.class, () -> sc.run(p.graph(), p.colors(), 7, blocks, 16, 16));
    for (int i = 1; i < 6; i++) {
      blocks[i] = ByteBuffer.allocate(30);
    }
    assertThrows(IllegalArgumentException.class, () -> sc.run(p.graph(), p.colors(), 7, blocks, 16, 16));
    assertThrows(IllegalArgumentException.class, () -> sc.run(p.graph(), p.colors(), 7, blocks, 0, 16));
  }
}
