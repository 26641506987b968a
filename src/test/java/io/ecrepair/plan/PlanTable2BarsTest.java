package io.ecrepair.plan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.RepairableCode;
import io.ecrepair.gf.RegionCoders;
import io.ecrepair.layout.Policy;
import org.junit.jupiter.api.Test;

/**
 * ParaRC's Table 2 (block 256 MiB, repairing B0; (max repair load, repair bandwidth) in MiB).
 * Centralized points must match exactly; our search must reach max load no higher and
 * bandwidth at most 10% higher, for every lost index where that is possible at all (where a
 * lower bound forbids it, the bound is checked and the plan must meet the bound). The two
 * largest Clay codes are checked for block 0 here (within 60 s, seeded); the CLI sweeps every
 * index (see the issue report).
 */
class PlanTable2BarsTest {
  static final double BLOCK_MIB = 256;

  record Bar(String policy, double centralLoad, double centralBw, double load, double bw) {}

  static final Bar[] TABLE2 = {
      new Bar("CLAY-2-2-1024k", 384, 384, 320, 448),
      new Bar("CLAY-8-4-1024k", 704, 704, 264, 1224),
      new Bar("CLAY-10-4-1024k", 832, 832, 271, 1609),
      new Bar("CLAY-12-4-1024k", 960, 960, 281, 1774),
      new Bar("BUTTERFLY-4-2-1024k", 640, 640, 256, 896),
      new Bar("BUTTERFLY-10-2-1024k", 1408, 1408, 297, 2216)};

  static RepairableCode code(String policy) {
    return Policy.parse(policy).code().create(RegionCoders.best());
  }

  static double mib(Plan p, int subchunks) {
    return subchunks * BLOCK_MIB / p.graph().subchunkCount();
  }

  static void assertMeetsBar(Bar bar, Plan p, String where) {
    double load = mib(p, p.point().maxLoad());
    double bw = mib(p, p.point().bandwidth());
    assertTrue(load <= bar.load() + 1e-9, where + ": max load " + load + " MiB > " + bar.load());
    assertTrue(bw <= 1.1 * bar.bw() + 1e-9, where + ": bandwidth " + bw + " MiB > 1.1 x " + bar.bw());
  }

  @Test
  void centralizedPointsAreExact() {
    for (Bar bar : TABLE2) {
      Plan p = Planner.plan(code(bar.policy()), 0, "centralized", Planner.Options.defaults());
      assertEquals(bar.centralLoad(), mib(p, p.point().maxLoad()), 1e-9, bar.policy());
      assertEquals(bar.centralBw(), mib(p, p.point().bandwidth()), 1e-9, bar.policy());
    }
  }

  @Test
  void clay42EveryIndex() {
    Bar bar = TABLE2[0];
    RepairableCode c = code(bar.policy());
    for (int lost = 0; lost < 4; lost++) {
      Plan p = Planner.plan(c, lost, "fast", Planner.Options.defaults());
      // The MLP is (256, 512) MiB: less load than the paper's heuristic point, as its brute force found.
      assertEquals(new Point(4, 8), p.point());
      // The paper's (320, 448) itself is on the front we return, and nothing with load <= 320 MiB beats it.
      assertTrue(p.front().contains(new Point(5, 7)), p.front().toString());
      // Asked for the least bandwidth within the paper's load, the search returns exactly its point.
      Planner.Options capped = Planner.Options.defaults().withMaxLoad(5);
      Plan q = Planner.plan(c, lost, "fast", capped);
      assertEquals(new Point(5, 7), q.point());
      assertMeetsBar(bar, q, bar.policy() + " lost " + lost + " within 320 MiB");
      assertEquals(new Point(5, 7), Planner.plan(RepairProblem.forCode(c, lost, false), "bruteforce", capped).point());
    }
  }

  @Test
  void butterfly64EveryIndex() {
    Bar bar = TABLE2[4];
    RepairableCode c = code(bar.policy());
    for (int lost = 0; lost < 6; lost++) {
      Plan p = Planner.plan(c, lost, "fast", Planner.Options.defaults());
      LowerBounds lb = LowerBounds.of(RepairProblem.forCode(c, lost, false).graph());
      if (lb.bandwidth() * BLOCK_MIB / 8 > 1.1 * bar.bw()) {
        // The second parity is rebuilt from 4 whole data blocks: 4 x 256 MiB must leave them.
        assertEquals(5, lost);
        assertEquals(new Point(lb.maxLoad(), lb.bandwidth()), p.point(), "meets the bound: optimal");
      } else {
        assertMeetsBar(bar, p, bar.policy() + " lost " + lost);
      }
    }
  }

  @Test
  void clay128EveryIndex() {
    Bar bar = TABLE2[1];
    RepairableCode c = code(bar.policy());
    for (int lost = 0; lost < 12; lost++) {
      assertMeetsBar(bar, Planner.plan(c, lost, "fast", Planner.Options.defaults()), bar.policy() + " lost " + lost);
    }
  }

  @Test
  void clay1410And1612WithinAMinuteReproducibly() {
    for (Bar bar : new Bar[] {TABLE2[2], TABLE2[3]}) {
      RepairableCode c = code(bar.policy());
      Planner.Options o = Planner.Options.defaults().withSeed(42).withTimeLimit(60);
      Plan p = Planner.plan(c, 0, "fast", o);
      assertMeetsBar(bar, p, bar.policy());
      assertTrue(p.searchSeconds() < 60, p.searchSeconds() + " s");
      assertEquals(false, p.details().get("timeLimited"));
      if (bar == TABLE2[2]) {
        assertArrayEquals(p.colors(), Planner.plan(c, 0, "fast", o).colors(), "same seed, same plan");
      }
    }
  }

  @Test
  void butterfly1210DataAndParityBound() {
    Bar bar = TABLE2[5];
    RepairableCode c = code(bar.policy());
    assertMeetsBar(bar, Planner.plan(c, 0, "fast", Planner.Options.defaults()), bar.policy() + " lost 0");
    // The second parity needs 10 whole blocks: 2560 MiB > 1.1 x 2216 MiB, whatever the plan.
    LowerBounds lb = LowerBounds.of(RepairProblem.forCode(c, 11, false).graph());
    assertEquals(5120, lb.bandwidth());
    assertTrue(lb.bandwidth() * BLOCK_MIB / 512 > 1.1 * bar.bw());
    assertEquals(new Point(512, 5120), Planner.plan(c, 11, "fast", Planner.Options.defaults()).point());
  }
}
