package io.ecrepair.plan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.RepairableCode;
import io.ecrepair.gf.RegionCoders;
import io.ecrepair.layout.Policy;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PlanSearchTest {
  static RepairableCode code(String policy) {
    return Policy.parse(policy).code().create(RegionCoders.best());
  }

  static Point pointOf(RepairProblem p, SearchResult r) {
    return Traffic.of(p.graph(), r.color(), p.nodeCount()).point();
  }

  /** ParaRC section 7.2: brute force on Clay (4,2) and Butterfly (6,4); our searches must find its MLP. */
  @Test
  void bruteForceEqualsTheSearchesOnClay42AndButterfly64() {
    for (String policy : new String[] {"CLAY-2-2-1024k", "BUTTERFLY-4-2-1024k"}) {
      RepairableCode c = code(policy);
      for (int lost = 0; lost < c.totalUnits(); lost++) {
        for (String t : new String[] {"none", "factor"}) {
          RepairProblem base = RepairProblem.forCode(c, lost, false);
          RepairProblem p = base.withGraph(GraphTransforms.apply(t, base.graph()));
          SearchResult brute = new BruteForce(p, 60).run();
          assertEquals(true, brute.details().get("exhaustive"));
          Point mlp = pointOf(p, brute);
          String where = policy + " lost " + lost + " graph " + t;
          assertEquals(mlp, pointOf(p, new FastSearch(p, 1, FastSearch.defaultBudget(p), 60).run()), "fast, " + where);
          assertEquals(mlp, pointOf(p, new ParaRcSearch(p, 1, 20, 60).run()), "pararc, " + where);
        }
      }
    }
  }

  @Test
  void bruteForceIsExactOnRandomSmallGraphs() {
    // Against plain enumeration of every coloring, on a graph small enough to enumerate.
    RepairProblem p = RepairProblem.forCode(code("CLAY-2-2-1024k"), 2, false);
    p = p.withGraph(GraphTransforms.factor(p.graph()));
    int[] free = p.freeVertices();
    int[] cand = p.candidates();
    int[] color = p.centralizedColoring();
    Point best = null;
    long total = (long) Math.pow(cand.length, free.length);
    for (long x = 0; x < total; x++) {
      long y = x;
      for (int v : free) {
        color[v] = cand[(int) (y % cand.length)];
        y /= cand.length;
      }
      Point q = Traffic.of(p.graph(), color, p.nodeCount()).point();
      if (best == null || q.compareTo(best) < 0) {
        best = q;
      }
    }
    assertEquals(best, pointOf(p, new BruteForce(p, 60).run()));
  }

  @Test
  void incrementalTrafficMatchesTheTable() {
    RepairProblem p = RepairProblem.forCode(code("BUTTERFLY-4-2-1024k"), 1, false);
    p = p.withGraph(GraphTransforms.chain(p.graph(), Pipelines.helpers(p.graph())));
    Random rnd = new Random(3);
    TrafficState st = new TrafficState(p.graph(), p.nodeCount(), p.centralizedColoring());
    int[] free = p.freeVertices();
    int[] cand = p.candidates();
    for (int i = 0; i < 2000; i++) {
      st.recolor(free[rnd.nextInt(free.length)], cand[rnd.nextInt(cand.length)]);
      if (i % 97 == 0) {
        assertEquals(Traffic.of(p.graph(), st.colors(), p.nodeCount()), st.traffic());
      }
    }
    assertEquals(Traffic.of(p.graph(), st.colors(), p.nodeCount()), st.traffic());
  }

  @Test
  void searchesAreReproducibleWithASeed() {
    RepairableCode c = code("CLAY-8-4-1024k");
    Planner.Options o = Planner.Options.defaults().withMoveBudget(600_000);
    Plan a = Planner.plan(c, 5, "fast", o.withSeed(7));
    Plan b = Planner.plan(c, 5, "fast", o.withSeed(7));
    assertArrayEquals(a.colors(), b.colors());
    assertEquals(a.transform(), b.transform());
    Plan r1 = Planner.plan(c, 5, "pararc", o.withSeed(3).withRestarts(2));
    Plan r2 = Planner.plan(c, 5, "pararc", o.withSeed(3).withRestarts(2));
    assertArrayEquals(r1.colors(), r2.colors());
  }

  @Test
  void centralizedIsTheCodesReadPattern() {
    for (String policy : new String[] {"CLAY-10-4-1024k", "BUTTERFLY-4-2-1024k", "RS-6-3-1024k", "LRC-L2-12-4-1024k"}) {
      RepairableCode c = code(policy);
      for (int lost = 0; lost < c.totalUnits(); lost++) {
        Plan p = Planner.plan(c, lost, "centralized", Planner.Options.defaults());
        int leaves = p.graph().leaves().size();
        assertEquals(new Point(leaves, leaves), p.point(), policy + " lost " + lost);
        assertEquals(leaves, p.traffic().in(lost));
      }
    }
  }

  @Test
  void lowerBoundsHold() {
    LowerBounds c42 = LowerBounds.of(RepairProblem.forCode(code("CLAY-2-2-1024k"), 0, false).graph());
    assertEquals(6, c42.bandwidth(), "3 helpers x beta = 2");
    assertEquals(4, c42.maxLoad(), "the requestor takes alpha = 4");
    // Butterfly (6,4) rebuilds its second parity from 4 whole data blocks: 32 sub-chunks at least.
    LowerBounds h = LowerBounds.of(RepairProblem.forCode(code("BUTTERFLY-4-2-1024k"), 5, false).graph());
    assertEquals(32, h.bandwidth());
    assertEquals(8, h.maxLoad());
    Plan best = Planner.plan(code("BUTTERFLY-4-2-1024k"), 5, "fast", Planner.Options.defaults());
    assertEquals(new Point(8, 32), best.point(), "meets both bounds: optimal");
  }

  @Test
  void badRequestsAreRefused() {
    RepairableCode c = code("CLAY-2-2-1024k");
    assertThrows(IllegalArgumentException.class, () -> Planner.plan(c, 4, "fast", Planner.Options.defaults()));
    assertThrows(IllegalArgumentException.class, () -> Planner.plan(c, 0, "magic", Planner.Options.defaults()));
    assertThrows(IllegalArgumentException.class, () -> Planner.Options.defaults().withTransform("twist"));
    assertThrows(IllegalArgumentException.class, () -> Planner.plan(c, 0, "pipeline-cyclic", Planner.Options.defaults()));
    RepairProblem p = RepairProblem.forCode(c, 0, false);
    int[] bad = p.centralizedColoring();
    bad[p.graph().leaves().get(0).id()] = 0;
    assertThrows(IllegalArgumentException.class, () -> new Plan(p, bad, "x", "none", 0, null, null));
    assertFalse(p.outsideRequestor());
    assertTrue(RepairProblem.forCode(c, 0, true).outsideRequestor());
  }
}
