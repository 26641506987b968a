package io.ecrepair.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.codes.RepairableCode;
import io.ecrepair.plan.PlanCheck;
import io.ecrepair.gf.RegionCoders;
import io.ecrepair.layout.Policy;
import io.ecrepair.plan.Plan;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The parallel plans shipped in the jar (dev-support/make-plans), as the DataNodes find them:
 * one per lost index of every shipped Clay and Butterfly policy, each with its alternatives;
 * every one rebuilds its block across simulated nodes and moves what its table says, and the
 * alternatives of a lost index compute on nodes the earlier plans do not.
 */
class ShippedPlansTest {
  private static final List<String> SHIPPED = List.of("CLAY-6-3-1024k", "CLAY-10-4-1024k", "CLAY-D11-10-4-1024k",
      "CLAY-12-4-1024k", "BUTTERFLY-4-2-1024k", "BUTTERFLY-6-2-1024k", "BUTTERFLY-10-2-1024k");

  @Test
  void everyShippedPlanAndAlternativeRepairs() {
    int alternatives = 0;
    for (String policy : SHIPPED) {
      CodeSpec spec = Policy.parse(policy).code();
      RepairableCode code = spec.create(RegionCoders.best());
      for (int lost = 0; lost < spec.n(); lost++) {
        List<Plan> plans = RepairCatalog.parallelPlans(spec, lost);
        String where = policy + " lost " + lost;
        assertFalse(plans.isEmpty(), where + ": no plan ships");
        Set<Integer> computing = new HashSet<>();
        for (Plan p : plans) {
          assertEquals(lost, p.problem().requestor(), where);
          assertTrue(p.traffic().in(lost) < p.traffic().bandwidth(), where + ": the helpers compute: " + p);
          assertTrue(p.point().maxLoad() <= plans.get(0).point().maxLoad(), where + ": " + p);
          for (int node : p.computingNodes()) {
            assertTrue(computing.add(node), where + ": node " + node + " computes in two plans");
          }
          PlanCheck.Report r = PlanCheck.run(code, p, lost, 4, 1, 4 * p.graph().subchunkCount(), lost + 7,
              RegionCoders.best());
          assertTrue(r.ok(), where + ": " + p + " repaired " + r.repairedMatches() + ", traffic " + r.trafficMatches());
        }
        if (spec.codec().equals("clay")) {
          // Clay's minimum-load plans compute on a few helpers: there is room for another plan
          // (with d = 11, they compute on 6 to 8 of the 13 and none as light is left).
          assertTrue(plans.size() > 1, where + ": no alternative ships");
        }
        alternatives += plans.size() - 1;
      }
    }
    assertTrue(alternatives >= 9 + 2 * 14 + 2 * 16, "alternatives shipped: " + alternatives);
  }

  /**
   * A full-node recovery of CLAY-10-4 on 17 DataNodes, replayed through the plan choice: 20
   * groups placed at random, the tasks of the lost DataNode's blocks chosen one after another,
   * each seeing as backlog what earlier tasks send the DataNodes. With the shipped alternatives
   * the busiest DataNode receives less than when every task runs its lost index's first plan.
   */
  @Test
  void alternativesSpreadAFullNodeRecovery() {
    CodeSpec spec = Policy.parse("CLAY-10-4-1024k").code();
    int dataNodes = 17;
    int n = spec.n();
    java.util.Random rnd = new java.util.Random(7);
    long unit = 1 << 14;
    long[] chosen = new long[dataNodes];
    long[] firstOnly = new long[dataNodes];
    int tasks = 0;
    for (int group = 0; group < 20; group++) {
      List<Integer> shuffled = new java.util.ArrayList<>(java.util.stream.IntStream.range(0, dataNodes).boxed().toList());
      java.util.Collections.shuffle(shuffled, rnd);
      int[] holder = shuffled.stream().limit(n).mapToInt(Integer::intValue).toArray();
      int lost = shuffled.indexOf(0);
      if (lost < 0 || lost >= n) {
        continue; // DataNode 0, the lost one, holds no block of this group
      }
      holder[lost] = shuffled.get(n + rnd.nextInt(dataNodes - n)); // the target, outside the group
      List<Plan> plans = RepairCatalog.parallelPlans(spec, lost);
      assertEquals(3, plans.size(), "CLAY-10-4 lost " + lost);
      long[] backlog = new long[n];
      for (int node = 0; node < n; node++) {
        backlog[node] = chosen[holder[node]];
      }
      Plan pick = plans.get(io.ecrepair.plan.PlanChoice.soonest(plans.stream().map(Plan::traffic).toList(), backlog,
          unit, group));
      for (int node = 0; node < n; node++) {
        chosen[holder[node]] += pick.traffic().in(node) * unit;
        firstOnly[holder[node]] += plans.get(0).traffic().in(node) * unit;
      }
      tasks++;
    }
    assertTrue(tasks >= 10, "tasks " + tasks);
    long busiestChosen = java.util.Arrays.stream(chosen).max().orElseThrow();
    long busiestFirst = java.util.Arrays.stream(firstOnly).max().orElseThrow();
    // Alternatives cost at most 10% more bandwidth than the first plan.
    assertTrue(java.util.Arrays.stream(chosen).sum() <= 1.1 * java.util.Arrays.stream(firstOnly).sum(),
        "bytes in all");
    assertTrue(busiestChosen < busiestFirst, "busiest DataNode: " + busiestChosen + " bytes with the choice, "
        + busiestFirst + " with the first plans only");
  }
}
