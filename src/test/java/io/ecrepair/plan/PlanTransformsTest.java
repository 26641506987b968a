package io.ecrepair.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.RepairableCode;
import io.ecrepair.ecdag.Ecdag;
import io.ecrepair.plan.PlanCheck;
import io.ecrepair.gf.RegionCoders;
import io.ecrepair.layout.Policy;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Graph rewrites keep every repaired sub-chunk the same combination of the same leaves. */
class PlanTransformsTest {
  /** Repaired (block, sub-chunk) to its coefficients over leaves named (block, sub-chunk). */
  static Map<String, Map<String, Integer>> linearMap(Ecdag g) {
    Map<Integer, Map<Integer, Integer>> e = GraphTransforms.leafExpressions(g);
    Map<String, Map<String, Integer>> m = new HashMap<>();
    for (Ecdag.Vertex v : g.repaired()) {
      Map<String, Integer> row = new HashMap<>();
      e.get(v.id()).forEach((leaf, c) -> row.put(g.vertex(leaf).block() + "/" + g.vertex(leaf).subchunk(), c));
      m.put(v.block() + "/" + v.subchunk(), row);
    }
    return m;
  }

  @Test
  void transformsPreserveTheRepairForEveryCodeAndIndex() {
    for (String policy : new String[] {"CLAY-2-2-1024k", "CLAY-4-2-1024k", "CLAY-5-3-1024k", "CLAY-8-4-1024k",
        "BUTTERFLY-4-2-1024k", "BUTTERFLY-6-2-1024k", "RS-6-3-1024k", "LRC-L2-12-4-1024k"}) {
      RepairableCode c = Policy.parse(policy).code().create(RegionCoders.best());
      for (int lost = 0; lost < c.totalUnits(); lost++) {
        RepairProblem base = RepairProblem.forCode(c, lost, false);
        Map<String, Map<String, Integer>> expected = linearMap(base.graph());
        for (String t : GraphTransforms.NAMES) {
          Ecdag g = GraphTransforms.apply(t, base.graph());
          String where = policy + " lost " + lost + " " + t;
          assertEquals(expected, linearMap(g), where);
          assertEquals(base.graph().leaves().size(), g.leaves().size(), "same reads, " + where);
          for (Ecdag.Edge e : g.edges()) {
            assertTrue(e.from() < e.to(), "topological ids, " + where);
          }
          // And on real bytes, with a coloring that spreads the work.
          RepairProblem p = base.withGraph(g);
          int[] color = Pipelines.pathColoring(p);
          Plan plan = new Plan(p, color, "test", t, 0, null, null);
          assertTrue(PlanCheck.run(c, plan, lost, 8, 1, 8, lost, RegionCoders.best()).ok(), where);
        }
      }
    }
  }

  @Test
  void factorRecoversClayStructure() {
    RepairableCode c = Policy.parse("CLAY-10-4-1024k").code().create(RegionCoders.best());
    Ecdag flat = RepairProblem.forCode(c, 0, false).graph();
    assertEquals(0, flat.vertices().stream().filter(v -> v.kind() == Ecdag.Kind.INNER).count(),
        "the export folds the pairwise transforms and the decode into the repaired vertices");
    Ecdag f = GraphTransforms.factor(flat);
    long fanIn2 = f.vertices().stream().filter(v -> v.kind() == Ecdag.Kind.INNER && f.inputs(v.id()).size() == 2).count();
    assertTrue(fanIn2 >= 2 * 64, "pairwise reverse transforms, got " + fanIn2);
    long repairedFromPartial = f.repaired().stream().filter(v -> f.inputs(v.id()).size() == 2).count();
    assertTrue(repairedFromPartial >= 64, "pairwise forward transforms from a decode partial, got " + repairedFromPartial);
  }

  @Test
  void chainsFollowTheGivenOrder() {
    RepairableCode c = Policy.parse("RS-4-2-1024k").code().create(RegionCoders.best());
    Ecdag g = RepairProblem.forCode(c, 5, false).graph();
    Ecdag ch = GraphTransforms.chain(g, new int[] {3, 1, 0, 2});
    // Four chain steps: S1 on 3, then 1, 0, and the repaired vertex on 2.
    Ecdag.Vertex r = ch.repaired().get(0);
    assertEquals(2, ch.inputs(r.id()).size());
    assertEquals(4, ch.vertices().stream().filter(v -> v.kind() != Ecdag.Kind.LEAF && v.kind() != Ecdag.Kind.ROOT).count());
  }
}
