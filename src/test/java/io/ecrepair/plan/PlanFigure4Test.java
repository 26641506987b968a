package io.ecrepair.plan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.RepairableCode;
import io.ecrepair.ecdag.Ecdag;
import io.ecrepair.exec.SimulatedCluster;
import io.ecrepair.gf.GF256;
import io.ecrepair.gf.RegionCoders;
import io.ecrepair.layout.Policy;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** ParaRC's Figure 4: the pECDAG of Clay (4,2) repairing B0 and its traffic table. */
class PlanFigure4Test {
  /** Paper vertex name (v0..v19) to our id, and the coloring of Figure 4(a). */
  private static final class Figure4 {
    final Map<String, Integer> id = new HashMap<>();
    Ecdag graph;
    int[] color;

    Figure4() {
      Ecdag.Builder b = Ecdag.builder(4);
      // Leaves: v4, v5 = b(1,0), b(1,1); v8, v9 = b(2,0), b(2,1); v12, v13 = b(3,0), b(3,1).
      id.put("v4", b.leaf(1, 0));
      id.put("v5", b.leaf(1, 1));
      id.put("v8", b.leaf(2, 0));
      id.put("v9", b.leaf(2, 1));
      id.put("v12", b.leaf(3, 0));
      id.put("v13", b.leaf(3, 1));
      // PRT: c0 = v16, c1 = v17 from b(2,1), b(3,0).
      id.put("v16", b.combine(in("v9", "v12"), new int[] {2, 3}));
      id.put("v17", b.combine(in("v9", "v12"), new int[] {3, 2}));
      // MDS decoding: b(0,0) = v0 and c2 = v18 from v8, v16; b(0,1) = v1 and c3 = v19 from v13, v17.
      id.put("v0", b.repaired(0, 0, in("v8", "v16"), new int[] {5, 7}));
      id.put("v18", b.combine(in("v8", "v16"), new int[] {7, 5}));
      id.put("v1", b.repaired(0, 1, in("v13", "v17"), new int[] {9, 11}));
      id.put("v19", b.combine(in("v13", "v17"), new int[] {11, 9}));
      // PFT: b(0,2) = v2 from v4, v18; b(0,3) = v3 from v5, v19.
      id.put("v2", b.repaired(0, 2, in("v4", "v18"), new int[] {4, 6}));
      id.put("v3", b.repaired(0, 3, in("v5", "v19"), new int[] {6, 4}));
      graph = b.build();
      color = new int[graph.vertices().size()];
      Map<String, Integer> node = Map.ofEntries(Map.entry("v4", 1), Map.entry("v5", 1), Map.entry("v8", 2),
          Map.entry("v9", 2), Map.entry("v12", 3), Map.entry("v13", 3),
          // N2 (yellow): c0, c1, b(0,0), c2; N0 (red): b(0,1), c3, b(0,3); N1 (green): b(0,2).
          Map.entry("v16", 2), Map.entry("v17", 2), Map.entry("v0", 2), Map.entry("v18", 2),
          Map.entry("v1", 0), Map.entry("v19", 0), Map.entry("v3", 0), Map.entry("v2", 1));
      node.forEach((name, n) -> color[id.get(name)] = n);
      color[graph.root().id()] = 0;
    }

    int[] in(String... names) {
      int[] r = new int[names.length];
      for (int i = 0; i < r.length; i++) {
        r[i] = id.get(names[i]);
      }
      return r;
    }
  }

  @Test
  void trafficTableOfFigure4() {
    Figure4 f = new Figure4();
    RepairProblem p = new RepairProblem(f.graph, 4, 0);
    Plan plan = new Plan(p, f.color, "figure-4", "none", 0, null, null);
    Traffic t = plan.traffic();
    assertEquals(7, t.bandwidth(), "Figure 4(b): repair bandwidth 7 sub-blocks");
    assertEquals(5, t.maxLoad(), "Figure 4(b): max repair load 5 sub-blocks");
    // N0 receives b(0,0), b(0,2), b(1,1), b(3,1) and c1; N2 gets b(3,0); N1 gets c2.
    assertArrayEquals(new int[] {5, 1, 1, 0}, new int[] {t.in(0), t.in(1), t.in(2), t.in(3)});
    assertArrayEquals(new int[] {0, 2, 3, 2}, new int[] {t.out(0), t.out(1), t.out(2), t.out(3)});
    // The counting rule: v8 feeds v0 and v18 on its own node (free); v17 feeds v1 and v19 on N0 (once).
    assertEquals(t, Traffic.of(f.graph, f.color, p.nodeCount()), "tables are deterministic");
  }

  @Test
  void figure4RunsAcrossSimulatedNodesAsItsTableSays() {
    Figure4 f = new Figure4();
    int s = 48;
    Random rnd = new Random(4);
    ByteBuffer[] blocks = new ByteBuffer[5];
    for (int b = 1; b <= 3; b++) {
      byte[] x = new byte[4 * s];
      rnd.nextBytes(x);
      blocks[b] = ByteBuffer.wrap(x);
    }
    SimulatedCluster.Result r = new SimulatedCluster(RegionCoders.best()).run(f.graph, f.color, 5, blocks, s, 16);
    // Expected bytes straight from the graph's definition, one byte at a time.
    Map<Integer, byte[]> value = new HashMap<>();
    for (Ecdag.Vertex v : f.graph.vertices()) {
      byte[] x = new byte[s];
      if (v.kind() == Ecdag.Kind.LEAF) {
        blocks[v.block()].get(v.subchunk() * s, x);
      } else if (v.kind() != Ecdag.Kind.ROOT) {
        for (Ecdag.Edge e : f.graph.inputs(v.id())) {
          byte[] u = value.get(e.from());
          for (int i = 0; i < s; i++) {
            x[i] ^= (byte) GF256.mul(e.coef(), u[i] & 0xFF);
          }
        }
      }
      value.put(v.id(), x);
    }
    for (Ecdag.Vertex v : f.graph.repaired()) {
      byte[] got = new byte[s];
      r.repaired(0).get(v.subchunk() * s, got);
      assertArrayEquals(value.get(v.id()), got, "sub-chunk " + v.subchunk());
    }
    Traffic t = Traffic.of(f.graph, f.color, 5);
    for (int n = 0; n < 5; n++) {
      assertEquals(t.in(n) * (long) s, r.bytesIn()[n], "bytes into node " + n);
      assertEquals(t.out(n) * (long) s, r.bytesOut()[n], "bytes out of node " + n);
    }
  }

  @Test
  void ourClay42GraphFactorsIntoFigure4sShapeAndReachesItsPoint() {
    RepairableCode code = Policy.parse("CLAY-2-2-1024k").code().create(RegionCoders.best());
    RepairProblem base = RepairProblem.forCode(code, 0, false);
    Ecdag g = GraphTransforms.factor(base.graph());
    // Two pairwise-reverse-transform vertices, two decode partial sums, four repaired sub-chunks.
    assertEquals(4, g.vertices().stream().filter(v -> v.kind() == Ecdag.Kind.INNER).count());
    assertEquals(4, g.repaired().size());
    assertEquals(6, g.leaves().size());
    Plan plan = Planner.plan(base, "bruteforce", Planner.Options.defaults());
    assertEquals(new Point(4, 8), plan.point(), "the MLP, as ParaRC's brute force finds (section 3.3)");
    Plan fast = Planner.plan(code, 0, "fast", Planner.Options.defaults());
    assertEquals(new Point(4, 8), fast.point());
    assertTrue(fast.front().contains(new Point(5, 7)), "Figure 2(a)'s (320 MiB, 448 MiB) is on our front: " + fast.front());
    assertTrue(fast.front().contains(new Point(6, 6)), "and centralized repair: " + fast.front());
    assertEquals(List.of(new Point(4, 8), new Point(5, 7), new Point(6, 6)), fast.front());
  }
}
