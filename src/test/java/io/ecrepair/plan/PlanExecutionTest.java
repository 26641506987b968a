package io.ecrepair.plan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.codes.RepairableCode;
import io.ecrepair.plan.PlanCheck;
import io.ecrepair.gf.RegionCoders;
import io.ecrepair.layout.Policy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every stored plan, run across simulated nodes on random data, rebuilds the lost block and moves what its table says. */
class PlanExecutionTest {
  @TempDir
  Path tmp;

  private static final Map<String, List<String>> STRATEGIES = Map.of(
      "CLAY-2-2-1024k", List.of("centralized", "fast", "pararc", "bruteforce", "pipeline"),
      "CLAY-4-2-1024k", List.of("centralized", "fast", "pararc", "pipeline"),
      "CLAY-5-3-1024k", List.of("centralized", "fast", "pipeline"),
      "CLAY-8-4-1024k", List.of("fast"),
      "BUTTERFLY-4-2-1024k", List.of("centralized", "fast", "pararc", "pipeline"),
      "RS-6-3-1024k", List.of("centralized", "fast", "pipeline", "pipeline-cyclic"),
      "LRC-L2-12-4-1024k", List.of("centralized", "fast", "pipeline", "pipeline-cyclic"));

  @Test
  void everyStoredPlanExecutesCorrectly() {
    Planner.Options o = Planner.Options.defaults().withMoveBudget(300_000).withRestarts(2).withTimeLimit(20)
        .withSliceBytes(8);
    int checked = 0;
    for (Map.Entry<String, List<String>> e : STRATEGIES.entrySet()) {
      CodeSpec spec = Policy.parse(e.getKey()).code();
      RepairableCode code = spec.create(RegionCoders.best());
      for (String strategy : e.getValue()) {
        Path dir = tmp.resolve(strategy);
        PlanStore store = new PlanStore(dir, strategy, o);
        assertEquals(spec.n(), store.precompute(spec));
        assertEquals(0, store.precompute(spec), "stored plans are not computed again");
        PlanStore reopened = new PlanStore(dir, strategy, o);
        for (int lost = 0; lost < spec.n(); lost++) {
          Plan p = store.lookup(spec, lost).orElseThrow();
          Plan back = reopened.lookup(spec, lost).orElseThrow();
          assertArrayEquals(p.colors(), back.colors(), "stored plan reloads");
          assertEquals(p.graph().edges(), back.graph().edges());
          assertEquals(p.point(), back.point());
          String where = e.getKey() + " " + strategy + " lost " + lost;
          PlanCheck.Report r = PlanCheck.run(code, back, lost, 16, 2, o.sliceBytes(), lost + 1, RegionCoders.best());
          assertTrue(r.repairedMatches(), "repaired bytes, " + where);
          assertTrue(r.trafficMatches(), "bytes moved = traffic table, " + where);
          assertEquals(r.expectedBytes(), r.bytesMoved());
          checked++;
        }
        assertTrue(Files.isDirectory(dir));
      }
    }
    assertTrue(checked > 150, "checked " + checked);
  }

  @Test
  void alternativesComputeOnOtherNodesAndExecute() {
    Planner.Options o = Planner.Options.defaults().withMoveBudget(300_000).withTimeLimit(20).withSliceBytes(8);
    CodeSpec spec = Policy.parse("CLAY-6-3-1024k").code();
    RepairableCode code = spec.create(RegionCoders.best());
    Path dir = tmp.resolve("alternatives");
    PlanStore store = new PlanStore(dir, "fast", o, 2);
    assertTrue(store.precompute(spec) > spec.n(), "alternatives were searched");
    PlanStore reopened = new PlanStore(dir, "fast", o, 2);
    int alternatives = 0;
    for (int lost = 0; lost < spec.n(); lost++) {
      List<Plan> all = reopened.lookupAll(spec, lost);
      assertEquals(store.lookupAll(spec, lost).size(), all.size(), "alternatives reload, lost " + lost);
      java.util.Set<Integer> taken = new java.util.HashSet<>();
      for (Plan p : all) {
        for (int node : p.computingNodes()) {
          assertTrue(taken.add(node), "lost " + lost + ": node " + node + " computes in two of its plans");
        }
        assertTrue(PlanStore.asGoodAs(p, all.get(0)), p + " vs " + all.get(0));
        assertTrue(PlanCheck.run(code, p, lost, 16, 2, o.sliceBytes(), lost + 1, RegionCoders.best()).ok(),
            "lost " + lost + " " + p);
      }
      alternatives += all.size() - 1;
    }
    assertTrue(alternatives >= spec.n(), "every lost index of CLAY-6-3 has another plan: " + alternatives);
    // A plan may not compute on a node it was told to spare.
    Plan spared = Planner.plan(code, 0, "fast", o.withNoCompute(3, 4, 5));
    for (int node : spared.computingNodes()) {
      assertTrue(node < 3 || node > 5, "node " + node + " computes: " + spared);
    }
  }

  /**
   * Plans that rebuild two blocks together: every pair of CLAY-4-2 and BUTTERFLY-4-2 and some of
   * CLAY-6-3, stored, reloaded and run; the requestor (the lower lost index) receives both
   * blocks, the other lost node takes no part, and the helpers compute part of the repair.
   */
  @Test
  void doubleLossPlansStoreAndExecute() {
    Planner.Options o = Planner.Options.defaults().withMoveBudget(200_000).withTimeLimit(20).withSliceBytes(8);
    int parallel = 0;
    for (String policy : new String[] {"CLAY-4-2-1024k", "BUTTERFLY-4-2-1024k", "CLAY-6-3-1024k"}) {
      CodeSpec spec = Policy.parse(policy).code();
      RepairableCode code = spec.create(RegionCoders.best());
      Path dir = tmp.resolve("double-" + policy);
      PlanStore store = new PlanStore(dir, "fast", o, 1);
      for (int a = 0; a < spec.n(); a++) {
        for (int b = a + 1; b < spec.n(); b += spec.n() > 6 ? 4 : 1) {
          int[] lost = {b, a};
          assertTrue(store.precompute(spec, lost) >= 1);
          assertEquals(0, store.precompute(spec, a, b), "stored under the sorted pair");
          List<Plan> all = new PlanStore(dir, "fast", o, 1).lookupAll(spec, a, b);
          assertEquals(store.lookupAll(spec, lost).size(), all.size());
          for (Plan p : all) {
            String where = policy + " lost " + a + "," + b + " " + p;
            assertEquals(a, p.problem().requestor(), where);
            assertArrayEquals(new int[] {a, b}, p.problem().lostBlocks(), where);
            assertEquals(0, p.traffic().in(b) + p.traffic().out(b), "the other lost node takes no part, " + where);
            assertTrue(PlanCheck.run(code, p, lost, 16, 2, o.sliceBytes(), a * 31 + b, RegionCoders.best()).ok(),
                where);
            if (p.traffic().in(a) < p.traffic().bandwidth()) {
              parallel++;
            }
          }
        }
      }
    }
    assertTrue(parallel > 20, "most double-loss plans compute on helpers: " + parallel);
  }

  @Test
  void outsideRequestorPlansExecuteToo() {
    Planner.Options o = Planner.Options.defaults().withMoveBudget(300_000).withOutsideRequestor(true);
    for (String policy : new String[] {"CLAY-4-2-1024k", "RS-6-3-1024k"}) {
      RepairableCode code = Policy.parse(policy).code().create(RegionCoders.best());
      for (String strategy : new String[] {"centralized", "fast", "pipeline"}) {
        Plan p = Planner.plan(code, 1, strategy, o);
        assertEquals(code.totalUnits(), p.problem().requestor(), "node R");
        assertEquals(0, p.traffic().in(1) + p.traffic().out(1), "the lost node takes no part");
        assertTrue(PlanCheck.run(code, p, 1, 16, 1, 16, 5, RegionCoders.best()).ok(), policy + " " + strategy);
      }
    }
  }

  @Test
  void aStoreWithoutAPlanFallsBackToCentralizedWithoutSearching() {
    CodeSpec spec = Policy.parse("CLAY-8-4-1024k").code();
    PlanStore store = new PlanStore(tmp.resolve("empty"), "fast", Planner.Options.defaults());
    assertTrue(store.lookup(spec, 3).isEmpty());
    Plan p = store.planFor(spec, 3);
    assertEquals("centralized", p.strategy());
    assertEquals(0, store.size());
  }
}
