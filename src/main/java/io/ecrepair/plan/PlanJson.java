package io.ecrepair.plan;

import io.ecrepair.ecdag.Ecdag;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code plan} JSON of docs/architecture.md#command-line-contract, as plain maps and lists (Jackson writes them):
 * {@code policy, lost, strategy, subchunkCount, vertices [{id, kind, node, block, subchunk}],
 * edges [[from, to, coef]], traffic {node: {in, out}}, repairBandwidth {subchunks, blocks},
 * maxRepairLoad {subchunks, blocks}, searchSeconds}, plus what a reader needs to rebuild the
 * plan ({@code n}, {@code requestor}, {@code candidates}, {@code transform}) and what the search
 * saw ({@code front}, {@code details}). Nodes are internal block indices, "R" for a requestor
 * outside the group; every non-leaf vertex is the GF(2^8) (0x11D) sum of coef x input over
 * its in-edges; the root collects the repaired vertices with coef 1.
 */
public final class PlanJson {
  private PlanJson() {}

  public static Map<String, Object> toJson(Plan plan, String policy, int lost) {
    return toJson(plan, policy, new int[] {lost});
  }

  /** {@code lost} is written as one index, or as a list when several blocks are rebuilt together. */
  public static Map<String, Object> toJson(Plan plan, String policy, int[] lost) {
    RepairProblem p = plan.problem();
    Ecdag g = plan.graph();
    int alpha = g.subchunkCount();
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("policy", policy);
    j.put("lost", lost.length == 1 ? (Object) lost[0] : java.util.Arrays.stream(lost).boxed().toList());
    j.put("strategy", plan.strategy());
    j.put("subchunkCount", alpha);
    j.put("n", p.blockCount());
    j.put("requestor", node(p, p.requestor()));
    j.put("transform", plan.transform());
    List<Map<String, Object>> vs = new ArrayList<>();
    for (Ecdag.Vertex v : g.vertices()) {
      Map<String, Object> x = new LinkedHashMap<>();
      x.put("id", v.id());
      x.put("kind", v.kind().name().toLowerCase(Locale.ROOT));
      x.put("node", node(p, plan.color(v.id())));
      if (v.kind() == Ecdag.Kind.LEAF || v.kind() == Ecdag.Kind.REPAIRED) {
        x.put("block", v.block());
        x.put("subchunk", v.subchunk());
      }
      vs.add(x);
    }
    j.put("vertices", vs);
    List<int[]> es = new ArrayList<>();
    for (Ecdag.Edge e : g.edges()) {
      es.add(new int[] {e.from(), e.to(), e.coef()});
    }
    j.put("edges", es);
    Traffic t = plan.traffic();
    Map<String, Object> traffic = new LinkedHashMap<>();
    for (int n = 0; n < t.nodeCount(); n++) {
      if (t.in(n) > 0 || t.out(n) > 0 || n == p.requestor()) {
        traffic.put(p.nodeName(n), Map.of("in", t.in(n), "out", t.out(n)));
      }
    }
    j.put("traffic", traffic);
    j.put("repairBandwidth", amount(t.bandwidth(), alpha));
    j.put("maxRepairLoad", amount(t.maxLoad(), alpha));
    j.put("searchSeconds", plan.searchSeconds());
    j.put("candidates", java.util.Arrays.stream(p.candidates()).mapToObj(c -> node(p, c)).toList());
    List<Map<String, Object>> front = new ArrayList<>();
    for (Point pt : plan.front()) {
      front.add(Map.of("maxRepairLoad", pt.maxLoad(), "repairBandwidth", pt.bandwidth()));
    }
    j.put("front", front);
    j.put("details", plan.details());
    return j;
  }

  private static Map<String, Object> amount(int subchunks, int alpha) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("subchunks", subchunks);
    m.put("blocks", (double) subchunks / alpha);
    return m;
  }

  private static Object node(RepairProblem p, int n) {
    return n == p.blockCount() ? "R" : (Object) n;
  }

  private static int nodeOf(Object o, int n) {
    if (o instanceof Number x) {
      return x.intValue();
    }
    if ("R".equals(o)) {
      return n;
    }
    return Integer.parseInt(o.toString());
  }

  /** Rebuilds a plan from its JSON (as Jackson reads it into maps and lists). */
  @SuppressWarnings("unchecked")
  public static Plan fromJson(Map<String, Object> j) {
    int alpha = ((Number) j.get("subchunkCount")).intValue();
    int n = ((Number) j.get("n")).intValue();
    List<Map<String, Object>> vs = (List<Map<String, Object>>) j.get("vertices");
    List<List<Number>> es = (List<List<Number>>) j.get("edges");
    List<List<int[]>> in = new ArrayList<>();
    for (int i = 0; i < vs.size(); i++) {
      in.add(new ArrayList<>());
    }
    for (List<Number> e : es) {
      in.get(e.get(1).intValue()).add(new int[] {e.get(0).intValue(), e.get(2).intValue()});
    }
    Ecdag.Builder b = Ecdag.builder(alpha);
    int[] color = new int[vs.size()];
    for (int i = 0; i < vs.size(); i++) {
      Map<String, Object> v = vs.get(i);
      if (((Number) v.get("id")).intValue() != i) {
        throw new IllegalArgumentException("plan vertices must be listed by id");
      }
      color[i] = nodeOf(v.get("node"), n);
      int[] ins = in.get(i).stream().mapToInt(x -> x[0]).toArray();
      int[] cos = in.get(i).stream().mapToInt(x -> x[1]).toArray();
      String kind = (String) v.get("kind");
      int id = switch (kind) {
        case "leaf" -> b.leaf(((Number) v.get("block")).intValue(), ((Number) v.get("subchunk")).intValue());
        case "inner" -> b.combine(ins, cos);
        case "repaired" -> b.repaired(((Number) v.get("block")).intValue(), ((Number) v.get("subchunk")).intValue(),
            ins, cos);
        case "root" -> i;
        default -> throw new IllegalArgumentException("unknown vertex kind '" + kind + "'");
      };
      if (id != i) {
        throw new IllegalArgumentException("vertex " + i + " does not rebuild in order (got " + id + ")");
      }
    }
    Ecdag g = b.build();
    int requestor = nodeOf(j.get("requestor"), n);
    int[] cand = ((List<Object>) j.get("candidates")).stream().mapToInt(o -> nodeOf(o, n)).toArray();
    RepairProblem p = new RepairProblem(g, n, requestor, cand);
    List<Point> front = new ArrayList<>();
    for (Map<String, Object> f : (List<Map<String, Object>>) j.getOrDefault("front", List.of())) {
      front.add(new Point(((Number) f.get("maxRepairLoad")).intValue(), ((Number) f.get("repairBandwidth")).intValue()));
    }
    Map<String, Object> details = (Map<String, Object>) j.getOrDefault("details", Map.of());
    return new Plan(p, color, (String) j.get("strategy"), (String) j.getOrDefault("transform", "none"),
        ((Number) j.get("searchSeconds")).doubleValue(), front.isEmpty() ? null : front, details);
  }
}
