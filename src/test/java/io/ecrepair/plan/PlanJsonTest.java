package io.ecrepair.plan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.ecrepair.codes.RepairableCode;
import io.ecrepair.gf.RegionCoders;
import io.ecrepair.layout.Policy;
import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PlanJsonTest {
  @Test
  @SuppressWarnings("unchecked")
  void jsonHasTheContractFieldsAndRoundTrips() throws Exception {
    RepairableCode c = Policy.parse("CLAY-4-2-1024k").code().create(RegionCoders.best());
    for (boolean outside : new boolean[] {false, true}) {
      Plan plan = Planner.plan(c, 2, "fast", Planner.Options.defaults().withMoveBudget(200_000).withOutsideRequestor(outside));
      ObjectMapper m = new ObjectMapper();
      String text = m.writeValueAsString(PlanJson.toJson(plan, "CLAY-4-2-1024k", 2));
      Map<String, Object> j = m.readValue(text, Map.class);
      assertTrue(j.keySet().containsAll(Set.of("policy", "lost", "strategy", "subchunkCount", "vertices", "edges", "traffic",
          "repairBandwidth", "maxRepairLoad", "searchSeconds")));
      assertEquals(8, j.get("subchunkCount"));
      for (Map<String, Object> v : (List<Map<String, Object>>) j.get("vertices")) {
        String kind = (String) v.get("kind");
        assertTrue(Set.of("leaf", "inner", "repaired", "root").contains(kind));
        assertTrue(v.containsKey("node"));
        assertEquals(kind.equals("leaf") || kind.equals("repaired"), v.containsKey("block"));
        assertEquals(kind.equals("leaf") || kind.equals("repaired"), v.containsKey("subchunk"));
        if (kind.equals("root")) {
          assertEquals(outside ? "R" : 2, v.get("node"));
        }
      }
      for (List<Object> e : (List<List<Object>>) j.get("edges")) {
        assertEquals(3, e.size());
      }
      Map<String, Object> bw = (Map<String, Object>) j.get("repairBandwidth");
      assertEquals(plan.point().bandwidth(), bw.get("subchunks"));
      assertEquals(plan.point().bandwidth() / 8.0, ((Number) bw.get("blocks")).doubleValue(), 1e-12);
      Map<String, Map<String, Object>> traffic = (Map<String, Map<String, Object>>) j.get("traffic");
      int in = 0;
      int out = 0;
      for (Map<String, Object> t : traffic.values()) {
        in += (Integer) t.get("in");
        out += (Integer) t.get("out");
      }
      assertEquals(plan.point().bandwidth(), in);
      assertEquals(plan.point().bandwidth(), out);
      assertEquals(outside, traffic.containsKey("R"));
      Plan back = PlanJson.fromJson(j);
      assertArrayEquals(plan.colors(), back.colors());
      assertEquals(plan.graph().edges(), back.graph().edges());
      assertEquals(plan.graph().vertices(), back.graph().vertices());
      assertEquals(plan.traffic(), back.traffic());
      assertEquals(plan.front(), back.front());
    }
  }

  @Test
  void picturesRender() throws Exception {
    RepairableCode c = Policy.parse("BUTTERFLY-4-2-1024k").code().create(RegionCoders.best());
    Plan plan = Planner.plan(c, 0, "fast", Planner.Options.defaults().withMoveBudget(200_000));
    String dot = PlanRenderer.dot(plan, "test");
    assertTrue(dot.startsWith("digraph plan {"));
    assertTrue(dot.contains("traffic [shape=plaintext"));
    assertEquals(plan.graph().edges().size(), dot.split(" -> ", -1).length - 1);
    ByteArrayOutputStream png = new ByteArrayOutputStream();
    PlanRenderer.png(plan, "test", png);
    byte[] b = png.toByteArray();
    assertTrue(b.length > 1000);
    assertArrayEquals(new byte[] {(byte) 0x89, 'P', 'N', 'G'}, java.util.Arrays.copyOf(b, 4));
    // A big graph still draws (rows wrap, no labels).
    Plan big = Planner.plan(Policy.parse("CLAY-10-4-1024k").code().create(RegionCoders.best()), 0, "centralized",
        Planner.Options.defaults());
    ByteArrayOutputStream png2 = new ByteArrayOutputStream();
    PlanRenderer.png(big, "big", png2);
    assertFalse(png2.size() == 0);
  }
}
