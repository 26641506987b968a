package io.ecrepair.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.RepairableCode;
import io.ecrepair.gf.RegionCoders;
import io.ecrepair.layout.Policy;
import java.util.List;
import org.junit.jupiter.api.Test;

class PlanChoiceTest {
  private static final RepairableCode CLAY = Policy.parse("CLAY-10-4-1024k").code().create(RegionCoders.best());

  @Test
  void anIdleClusterTakesTheMinimumLoadPlan() {
    Plan parallel = Planner.plan(CLAY, 0, "fast", Planner.Options.defaults().withTimeLimit(20));
    Plan central = Planner.plan(CLAY, 0, "centralized", Planner.Options.defaults());
    assertTrue(parallel.traffic().maxLoad() < central.traffic().maxLoad(), parallel + " vs " + central);
    List<Traffic> both = List.of(parallel.traffic(), central.traffic());
    assertEquals(0, PlanChoice.soonest(both, new long[14], 4096));
    // The requestor already receives a lot for another repair: parallel still sends it the least.
    long[] busyRequestor = new long[14];
    busyRequestor[0] = 100L << 20;
    assertEquals(0, PlanChoice.soonest(both, busyRequestor, 4096));
    // The helpers that compute in the parallel plan are swamped; the central plan spares their downlinks.
    long[] busyHelpers = new long[14];
    for (int node = 1; node < 14; node++) {
      if (parallel.traffic().in(node) > 0) {
        busyHelpers[node] = 100L << 20;
      }
    }
    assertEquals(1, PlanChoice.soonest(both, busyHelpers, 4096));
    // A backlog on a node neither plan sends to decides nothing.
    long[] elsewhere = new long[14];
    elsewhere[1] = parallel.traffic().in(1) == 0 ? 1L << 40 : 0;
    assertEquals(0, PlanChoice.soonest(both, elsewhere, 4096));
  }
}
