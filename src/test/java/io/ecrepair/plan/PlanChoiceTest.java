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

  @Test
  void equalPlansGoWhereTheHelpersAreIdleOrInTurn() {
    Planner.Options o = Planner.Options.defaults().withTimeLimit(20);
    Plan first = Planner.plan(CLAY, 0, "fast", o);
    Plan other = Planner.plan(CLAY, 0, "fast", o.withNoCompute(first.computingNodes()));
    assertEquals(first.point(), other.point(), "an alternative as good as the first");
    List<Traffic> both = List.of(first.traffic(), other.traffic());
    // Idle: a full tie, decided by the preference, so simultaneous tasks spread.
    assertEquals(0, PlanChoice.soonest(both, new long[14], 4096, 0));
    assertEquals(1, PlanChoice.soonest(both, new long[14], 4096, 1));
    assertEquals(0, PlanChoice.soonest(both, new long[14], 4096, 2));
    // The requestor is the busiest node of both plans; the next busiest decides: one computing
    // helper of the first plan is busy, so the other plan is taken whatever the preference.
    long[] backlog = new long[14];
    backlog[0] = 100L << 20;
    backlog[first.computingNodes()[0]] = 8L << 20;
    assertEquals(1, PlanChoice.soonest(both, backlog, 4096, 0));
    assertEquals(1, PlanChoice.soonest(both, backlog, 4096, 1));
  }
}
