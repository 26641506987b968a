package io.ecrepair.plan;

import io.ecrepair.codes.RepairableCode;
import io.ecrepair.codes.rs.ReedSolomonCode;
import io.ecrepair.ecdag.Ecdag;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * Computes repair plans: colors a code's repair graph with one of the strategies.
 *
 * <ul>
 *   <li>{@code centralized}: everything on the requestor (the code's graph as exported);
 *   <li>{@code pararc}: ParaRC's heuristic (FAST'23 section 4) from random starts;
 *   <li>{@code bruteforce}: every coloring, with branch and bound (small graphs only);
 *   <li>{@code fast}: our search ({@link FastSearch}): multilevel cluster annealing toward a
 *       load target; tries the exported graph and its {@code factor} transform;
 *   <li>{@code pipeline}: repair pipelining, a chain over the helpers (any code; for RS and
 *       LRC the ECPipe shape), in block order or by weighted path selection;
 *   <li>{@code pipeline-cyclic}: the cyclic variant (scalar codes).
 * </ul>
 *
 * The searching strategies pick the min-max repair load point (MLP): least max repair load,
 * then least bandwidth; every plan also lists the non-dominated points seen.
 */
public final class Planner {
  public static final List<String> STRATEGIES =
      List.of("centralized", "pararc", "bruteforce", "fast", "pipeline", "pipeline-cyclic");

  /** ECPipe's best slice size. */
  public static final int DEFAULT_SLICE = 32 * 1024;

  /**
   * How to plan. {@code transform} null picks the strategy's default; {@code moveBudget} and
   * {@code restarts} 0 pick defaults; {@code linkWeights} (node x node, optional) drive
   * weighted path selection for the pipelines.
   */
  public record Options(long seed, double timeLimitSeconds, String transform, int restarts, long moveBudget,
                        double[][] linkWeights, boolean outsideRequestor, int sliceBytes, int maxLoad,
                        int[] noCompute) {
    public Options {
      noCompute = noCompute == null ? new int[0] : IntStream.of(noCompute).sorted().distinct().toArray();
      if (timeLimitSeconds <= 0) {
        throw new IllegalArgumentException("time limit must be positive, got " + timeLimitSeconds);
      }
      if (restarts < 0 || moveBudget < 0) {
        throw new IllegalArgumentException("restarts and move budget must not be negative");
      }
      if (maxLoad < 0) {
        throw new IllegalArgumentException("max load cap must not be negative, got " + maxLoad);
      }
      if (sliceBytes < 1) {
        throw new IllegalArgumentException("slice size must be positive, got " + sliceBytes);
      }
      if (transform != null && !GraphTransforms.NAMES.contains(transform) && !transform.equals("auto")) {
        throw new IllegalArgumentException("unknown transform '" + transform + "' (known: auto, "
            + String.join(", ", GraphTransforms.NAMES) + ")");
      }
    }

    public static Options defaults() {
      return new Options(1, 60, null, 0, 0, null, false, DEFAULT_SLICE, 0, null);
    }

    public Options withSeed(long s) {
      return new Options(s, timeLimitSeconds, transform, restarts, moveBudget, linkWeights, outsideRequestor,
          sliceBytes, maxLoad, noCompute);
    }

    public Options withTimeLimit(double t) {
      return new Options(seed, t, transform, restarts, moveBudget, linkWeights, outsideRequestor, sliceBytes,
          maxLoad, noCompute);
    }

    public Options withTransform(String t) {
      return new Options(seed, timeLimitSeconds, t, restarts, moveBudget, linkWeights, outsideRequestor,
          sliceBytes, maxLoad, noCompute);
    }

    public Options withRestarts(int r) {
      return new Options(seed, timeLimitSeconds, transform, r, moveBudget, linkWeights, outsideRequestor,
          sliceBytes, maxLoad, noCompute);
    }

    public Options withMoveBudget(long b) {
      return new Options(seed, timeLimitSeconds, transform, restarts, b, linkWeights, outsideRequestor,
          sliceBytes, maxLoad, noCompute);
    }

    public Options withLinkWeights(double[][] w) {
      return new Options(seed, timeLimitSeconds, transform, restarts, moveBudget, w, outsideRequestor,
          sliceBytes, maxLoad, noCompute);
    }

    public Options withOutsideRequestor(boolean o) {
      return new Options(seed, timeLimitSeconds, transform, restarts, moveBudget, linkWeights, o, sliceBytes,
          maxLoad, noCompute);
    }

    /**
     * Searches minimize bandwidth among plans with max repair load at most {@code cap}
     * sub-chunks (0: minimize the max load first, the MLP).
     */
    public Options withMaxLoad(int cap) {
      return new Options(seed, timeLimitSeconds, transform, restarts, moveBudget, linkWeights, outsideRequestor, sliceBytes,
          cap, noCompute);
    }

    /**
     * Nodes that may only send their own sub-chunks, never compute a vertex (none by default):
     * plans for the same loss whose computing roles fall on other nodes, so a repair can spread
     * them over a busy cluster.
     */
    public Options withNoCompute(int... nodes) {
      return new Options(seed, timeLimitSeconds, transform, restarts, moveBudget, linkWeights, outsideRequestor,
          sliceBytes, maxLoad, nodes);
    }

    public Options withSliceBytes(int s) {
      return new Options(seed, timeLimitSeconds, transform, restarts, moveBudget, linkWeights, outsideRequestor, s,
          maxLoad, noCompute);
    }
  }

  private Planner() {}

  /** Plans the repair of block {@code lost} of {@code code}. */
  public static Plan plan(RepairableCode code, int lost, String strategy, Options o) {
    return plan(code, new int[] {lost}, strategy, o);
  }

  /**
   * Plans the repair of blocks {@code lost} of {@code code} together (see
   * {@link RepairProblem#forCode(RepairableCode, int[], boolean)}); pipelines repair one block.
   */
  public static Plan plan(RepairableCode code, int[] lost, String strategy, Options o) {
    checkStrategy(strategy);
    RepairProblem base = RepairProblem.forCode(code, lost, o.outsideRequestor()).withoutCandidates(o.noCompute());
    if (strategy.startsWith("pipeline")) {
      if (lost.length != 1) {
        throw new IllegalArgumentException("a pipeline repairs one block; " + lost.length + " are lost");
      }
      if (o.noCompute().length > 0) {
        throw new IllegalArgumentException("a pipeline computes on every helper: it takes no nodes that may not compute");
      }
      return pipeline(code, base, strategy, o);
    }
    return plan(base, strategy, o);
  }

  /** Plans a given problem (any graph, e.g. a paper's example) with a searching strategy. */
  public static Plan plan(RepairProblem base, String strategy, Options o) {
    checkStrategy(strategy);
    long start = System.nanoTime();
    switch (strategy) {
      case "centralized": {
        String t = o.transform() == null || o.transform().equals("auto") ? "none" : o.transform();
        RepairProblem p = base.withGraph(GraphTransforms.apply(t, base.graph()));
        return new Plan(p, p.centralizedColoring(), strategy, t, seconds(start), null, Map.of());
      }
      case "pipeline":
      case "pipeline-cyclic": {
        int[] helpers = Pipelines.helpers(base.graph());
        int[] order = o.linkWeights() == null ? helpers
            : Pipelines.bestPath(o.linkWeights(), helpers, helpers.length, base.requestor());
        Plan pl = strategy.equals("pipeline") ? Pipelines.chain(base, order, strategy, o.sliceBytes())
            : Pipelines.cyclic(base, order, strategy, o.sliceBytes());
        return pl.withSearch(seconds(start), Map.of());
      }
      default:
        break;
    }
    if (strategy.equals("fast")) {
      return fast(base, o, start);
    }
    String t = o.transform() == null || o.transform().equals("auto") ? "factor" : o.transform();
    RepairProblem p = base.withGraph(GraphTransforms.apply(t, base.graph()));
    double left = Math.max(0.001, o.timeLimitSeconds() - seconds(start));
    Objective obj = Objective.of(o.maxLoad());
    SearchResult r = strategy.equals("pararc")
        ? new ParaRcSearch(p, o.seed(), o.restarts() > 0 ? o.restarts() : 10, left).run(obj)
        : new BruteForce(p, left).run(obj);
    Map<String, Object> d = new LinkedHashMap<>(r.details());
    d.put("seed", o.seed());
    if (obj.capped()) {
      d.put("maxLoadCap", o.maxLoad());
    }
    return new Plan(p, r.color(), strategy, t, seconds(start), r.front(), d);
  }

  /**
   * Our search. Candidates, in order: repair pipelining's chain (no search: kept if it meets
   * both lower bounds, see {@link LowerBounds}, as for a parity that a code repairs from k
   * whole blocks); {@link FastSearch} on the code's graph and on its {@code factor} transform;
   * then on the chain graph from the pipeline coloring, when the others missed the load bound
   * or the chain graph is small (partial sums along the chain then trim a little bandwidth).
   * Stops early at a plan that meets both bounds.
   */
  private static Plan fast(RepairProblem base, Options o, long start) {
    LowerBounds lb = LowerBounds.of(base.graph());
    Point goal = new Point(lb.maxLoad(), lb.bandwidth());
    Objective obj = Objective.of(o.maxLoad());
    boolean auto = o.transform() == null || o.transform().equals("auto");
    List<String> transforms = auto ? List.of("none", "factor", "chain") : List.of(o.transform());
    Front merged = new Front();
    Plan best = null;
    Map<String, Object> tried = new LinkedHashMap<>();
    RepairProblem chained = null;
    int[] pipeColor = null;
    if (transforms.contains("chain")) {
      chained = base.withGraph(GraphTransforms.apply("chain", base.graph()));
      pipeColor = Pipelines.pathColoring(chained);
      if (!chained.admits(pipeColor)) {
        chained = null; // the chain would compute on a node that may not: no pipeline start
        transforms = transforms.stream().filter(t -> !t.equals("chain")).toList();
      }
    }
    if (chained != null) {
      Point pipe = Traffic.of(chained.graph(), pipeColor, chained.nodeCount()).point();
      merged.offer(pipe, new int[0]);
      tried.put("pipeline", Map.of("maxLoad", pipe.maxLoad(), "bandwidth", pipe.bandwidth()));
      if (pipe.compareTo(goal) <= 0 && obj.within(pipe)) {
        best = new Plan(chained, pipeColor, "fast", "chain", 0, List.of(pipe), Map.of("optimal", true));
      }
    }
    for (String t : transforms) {
      if (best != null && best.point().compareTo(goal) <= 0) {
        break;
      }
      RepairProblem p;
      int[] init = null;
      if (t.equals("chain")) {
        boolean loadMissed = best == null || best.point().maxLoad() > goal.maxLoad();
        if (auto && !loadMissed && chained.freeView().length > 300) {
          continue;
        }
        p = chained;
        init = pipeColor;
      } else {
        Ecdag g = GraphTransforms.apply(t, base.graph());
        if (auto && !t.equals("none") && g.vertices().size() == base.graph().vertices().size()) {
          continue; // the transform found nothing to rewrite
        }
        p = base.withGraph(g);
      }
      double left = Math.max(0.001, o.timeLimitSeconds() - seconds(start));
      long budget = o.moveBudget() > 0 ? o.moveBudget() / transforms.size() : FastSearch.defaultBudget(p);
      SearchResult r = new FastSearch(p, o.seed(), budget, left, init).stopAt(goal).capAt(o.maxLoad()).run();
      for (Point pt : r.front()) {
        merged.offer(pt, new int[0]);
      }
      Plan plan = new Plan(p, r.color(), "fast", t, r.seconds(), r.front(), r.details());
      tried.put(t, Map.of("maxLoad", plan.point().maxLoad(), "bandwidth", plan.point().bandwidth(),
          "seconds", r.seconds()));
      if (best == null || obj.better(plan.point(), best.point())) {
        best = plan;
      }
    }
    Map<String, Object> d = new LinkedHashMap<>(best.details());
    d.put("seed", o.seed());
    if (obj.capped()) {
      d.put("maxLoadCap", o.maxLoad());
    }
    d.put("transformsTried", tried);
    d.put("lowerBound", Map.of("maxLoad", lb.maxLoad(), "bandwidth", lb.bandwidth()));
    return new Plan(best.problem(), best.colors(), "fast", best.transform(), seconds(start), merged.points(), d);
  }

  /** Pipelines: the code's helpers in block order, or chosen by weighted path selection. */
  private static Plan pipeline(RepairableCode code, RepairProblem base, String strategy, Options o) {
    long start = System.nanoTime();
    RepairProblem p = base;
    int[] helpers = Pipelines.helpers(base.graph());
    int[] order = helpers;
    if (o.linkWeights() != null) {
      int lostBlock = lostIndexOf(base);
      int[] pool = helpers;
      if (code instanceof ReedSolomonCode) {
        // RS may use any k survivors: choose them with the path.
        pool = IntStream.range(0, code.totalUnits()).filter(i -> i != lostBlock).toArray();
      }
      order = Pipelines.bestPath(o.linkWeights(), pool, helpers.length, base.requestor());
      if (code instanceof ReedSolomonCode) {
        int[] chosen = order.clone();
        Arrays.sort(chosen);
        Ecdag g = code.repairGraph(new int[] {lostBlock}, chosen);
        p = base.withGraph(g);
      }
    }
    Plan pl = strategy.equals("pipeline") ? Pipelines.chain(p, order, strategy, o.sliceBytes())
        : Pipelines.cyclic(p, order, strategy, o.sliceBytes());
    Map<String, Object> d = new LinkedHashMap<>();
    if (o.linkWeights() != null) {
      d.put("maxLinkWeight", maxLinkWeight(o.linkWeights(), order, base.requestor()));
    }
    return pl.withSearch(seconds(start), d);
  }

  /** The lost block of a single-block problem (its repaired vertices' block). */
  static int lostIndexOf(RepairProblem p) {
    return p.graph().repaired().get(0).block();
  }

  static double maxLinkWeight(double[][] w, int[] order, int requestor) {
    double m = 0;
    for (int i = 0; i < order.length; i++) {
      int next = i + 1 < order.length ? order[i + 1] : requestor;
      m = Math.max(m, w[order[i]][next]);
    }
    return m;
  }

  private static void checkStrategy(String strategy) {
    if (!STRATEGIES.contains(strategy)) {
      throw new IllegalArgumentException("unknown --strategy '" + strategy + "' (available: "
          + String.join(", ", STRATEGIES) + ")");
    }
  }

  private static double seconds(long start) {
    return (System.nanoTime() - start) / 1e9;
  }

  /** All lost indices of a code, for stores and reports. */
  public static List<Integer> indices(RepairableCode code) {
    List<Integer> l = new ArrayList<>();
    for (int i = 0; i < code.totalUnits(); i++) {
      l.add(i);
    }
    return l;
  }
}
