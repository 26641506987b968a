package io.ecrepair.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.exec.NodePart;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class StoredPlanChoiceTest {
  private static final CodeSpec CLAY = new CodeSpec("clay", 6, 3);
  private static final int LOST = 2;

  private static List<Plan> stored() {
    CodeRepairs.searchParallelPlans(CLAY, new int[] {LOST});
    List<Plan> plans = CodeRepairs.parallelPlans(CLAY, LOST);
    assertFalse(plans.isEmpty(), "CLAY(6,3) ships parallel plans");
    return plans;
  }

  @Test
  void everyStoredPlanRunsWhenAllHelpersCanBeReached() {
    List<Plan> plans = stored();
    assertEquals(plans, StoredPlanChoice.runnable(plans, LOST, u -> true, false));
    assertTrue(StoredPlanChoice.runnable(plans, LOST + 1, u -> true, false).isEmpty(),
        "a plan runs only on its own requestor");
  }

  @Test
  void aPlanNeedingAnUnreachableHelperIsLeftOut() {
    List<Plan> plans = stored();
    int helper = CodeRepairs.parts(plans.get(0)).keySet().stream().filter(u -> u != LOST).findFirst().orElseThrow();
    List<Plan> runnable = StoredPlanChoice.runnable(plans, LOST, u -> u != helper, false);
    for (Plan p : runnable) {
      assertFalse(CodeRepairs.parts(p).containsKey(helper), "plan " + p + " uses unreachable " + helper);
    }
    assertFalse(runnable.contains(plans.get(0)));
    assertEquals(Optional.empty(), StoredPlanChoice.choose(plans, LOST, u -> false, false, r -> 0));
  }

  @Test
  void aReceiveOnlyRequestorGetsPlansWhosePartOnlyReceives() {
    List<Plan> plans = stored();
    List<Plan> receiving = StoredPlanChoice.runnable(plans, LOST, u -> true, true);
    for (Plan p : plans) {
      NodePart mine = CodeRepairs.parts(p).get(LOST);
      boolean onlyReceives = mine.leaves().length == 0 && mine.outbound().isEmpty();
      assertEquals(onlyReceives, receiving.contains(p), "plan " + p);
    }
  }

  @Test
  void aClientTakesThePlanThatLoadsItsDownlinkLeast() {
    List<Plan> plans = stored();
    Plan chosen = StoredPlanChoice.choose(plans, LOST, u -> true, false, StoredPlanChoice.leastIntoRequestor(LOST))
        .orElseThrow();
    int least = plans.stream().mapToInt(p -> p.traffic().in(LOST)).min().orElseThrow();
    assertEquals(least, chosen.traffic().in(LOST));
    assertEquals(plans.stream().filter(p -> p.traffic().in(LOST) == least).findFirst().orElseThrow(), chosen,
        "the first of equals");
    assertEquals(Optional.empty(), StoredPlanChoice.choose(plans, LOST, u -> true, false, r -> -1),
        "a weighing may take none");
    assertEquals(Optional.of(plans.get(plans.size() - 1)),
        StoredPlanChoice.choose(plans, LOST, u -> true, false, r -> r.size() - 1));
  }
}
