package io.ecrepair.cli;

import io.ecrepair.codes.RepairableCode;
import io.ecrepair.plan.PlanCheck;
import io.ecrepair.gf.RegionCoders;
import io.ecrepair.layout.Policy;
import io.ecrepair.plan.Plan;
import io.ecrepair.plan.PlanJson;
import io.ecrepair.plan.PlanRenderer;
import io.ecrepair.plan.PlanStore;
import io.ecrepair.plan.Planner;
import io.ecrepair.plan.Point;
import io.ecrepair.plan.Traffic;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

@Command(name = "plan", mixinStandardHelpOptions = true,
    description = {"Plan the repair of internal block I (or of blocks I,J,... together): the repair graph, which node computes each vertex, the traffic "
        + "table, repair bandwidth and max repair load (in sub-chunks and in blocks), and the search time.",
        "Strategies: centralized (all on the requestor), pararc (ParaRC's heuristic, FAST'23), bruteforce (exhaustive, "
            + "small graphs), fast (our search), pipeline (repair pipelining, ECPipe), pipeline-cyclic (its cyclic "
            + "variant, scalar codes).",
        "--lost all plans every index (with --store DIR, plans are kept there for repairs to use).",
        "--lost I,J plans the repair of several blocks together: the requestor replaces the lowest and receives them "
            + "all (a DataNode rebuilding a group's lost blocks)."})
final class PlanCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--policy", required = true, description = "Policy name, e.g. CLAY-10-4-1024k.")
  String policyName;

  @Option(names = "--lost", required = true, description = "The internal block index to repair, several (I,J), "
      + "or 'all'.")
  String lost;

  @Option(names = "--strategy", defaultValue = "fast", description = "Planning strategy (default ${DEFAULT-VALUE}).")
  String strategy;

  @Option(names = "--seed", defaultValue = "1", description = "Seed of the searches (default ${DEFAULT-VALUE}).")
  long seed;

  @Option(names = "--time-limit", defaultValue = "60", description = "Longest search, seconds (default ${DEFAULT-VALUE}).")
  double timeLimit;

  @Option(names = "--format", defaultValue = "text", description = "text, json, dot or png (default ${DEFAULT-VALUE}).")
  String format;

  @Option(names = "--output", description = "Write the dot or png picture here (png needs it).")
  Path output;

  @Option(names = "--transform", description = "Graph transform: auto, none, flatten, factor, partials, factor+partials, "
      + "chain (default: the strategy's).")
  String transform;

  @Option(names = "--restarts", defaultValue = "0", description = "pararc: random starts (default 10).")
  int restarts;

  @Option(names = "--moves", defaultValue = "0", description = "fast: move budget (default: by graph size).")
  long moves;

  @Option(names = "--max-load", defaultValue = "0", description = "Searches: least bandwidth among plans with max repair "
      + "load at most this many sub-chunks (default: the min-max repair load point, least load then least bandwidth).")
  int maxLoad;

  @Option(names = "--link-weights", description = "pipeline: a file of per-link weights, one row per node (n rows, "
      + "or n+1 with the outside requestor last), e.g. 1 / bandwidth; the path minimizes the largest weight.")
  Path linkWeights;

  @Option(names = "--no-compute", split = ",", paramLabel = "NODE",
      description = "Searches: these helpers only send their own sub-chunks, never compute (e.g. 2,3,4,5): a plan "
          + "whose computing roles fall elsewhere.")
  int[] noCompute;

  @Option(names = "--outside-requestor", description = "The requestor holds no block of the group (node \"R\").")
  boolean outside;

  @Option(names = "--slice", defaultValue = "32768",
      description = "Pipelining slice size in bytes (default ${DEFAULT-VALUE}).")
  int slice;

  @Option(names = "--verify", description = "Run the plan on random data across simulated nodes and check the bytes "
      + "and the traffic.")
  boolean verify;

  @Option(names = "--store", description = "Keep plans in this directory (see --lost all).")
  Path store;

  @Option(names = "--alternatives", defaultValue = "0", description = "With --lost all: also search up to this many "
      + "plans per lost index whose computing nodes differ from the earlier ones' (kept when as light on the busiest "
      + "node and at most 10%% more bandwidth), so a busy cluster can spread the computing roles (default "
      + "${DEFAULT-VALUE}).")
  int alternatives;

  @Mixin
  JsonOption json;

  @Override
  public Integer call() throws Exception {
    Policy policy = Policy.parse(policyName);
    String fmt = format.toLowerCase(Locale.ROOT);
    if (!List.of("text", "json", "dot", "png").contains(fmt)) {
      throw new IllegalArgumentException("unknown --format '" + format + "' (available: text, json, dot, png)");
    }
    if (fmt.equals("png") && output == null) {
      throw new IllegalArgumentException("--format png needs --output FILE");
    }
    if (!Planner.STRATEGIES.contains(strategy)) {
      throw new IllegalArgumentException("unknown --strategy '" + strategy + "' (available: "
          + String.join(", ", Planner.STRATEGIES) + ")");
    }
    if (timeLimit <= 0) {
      throw new IllegalArgumentException("--time-limit must be positive");
    }
    RepairableCode code = policy.code().create(RegionCoders.best());
    Planner.Options o = Planner.Options.defaults().withSeed(seed).withTimeLimit(timeLimit).withTransform(transform)
        .withRestarts(restarts).withMoveBudget(moves).withOutsideRequestor(outside).withSliceBytes(slice)
        .withMaxLoad(maxLoad).withNoCompute(noCompute);
    if (linkWeights != null) {
      o = o.withLinkWeights(readWeights(linkWeights, code.totalUnits()));
    }
    PrintWriter out = spec.commandLine().getOut();
    if (lost.equalsIgnoreCase("all")) {
      return all(policy, code, o, out, fmt);
    }
    int[] index = parseIndices(lost, code.totalUnits());
    Plan plan;
    if (store != null) {
      PlanStore ps = new PlanStore(store, strategy, o);
      plan = ps.lookup(policy.code(), index).orElse(null);
      if (plan == null) {
        if (index.length == 1) {
          ps.precompute(policy.code());
        } else {
          ps.precompute(policy.code(), index);
        }
        plan = ps.lookup(policy.code(), index).orElseThrow();
      }
    } else {
      plan = Planner.plan(code, index, strategy, o);
    }
    Map<String, Object> j = PlanJson.toJson(plan, policy.name(), index);
    int cell = policy.cellSize();
    int parts = plan.graph().subchunkCount();
    j.put("cellBytes", cell);
    j.put("subchunkBytes", cell / parts);
    j.put("tailBytes", cell - parts * (cell / parts));
    if (verify) {
      j.put("verified", verify(code, plan, index, o));
    }
    String title = policy.name() + ", lost " + names(index) + ", " + strategy + ": max load " + plan.point().maxLoad()
        + ", bandwidth " + plan.point().bandwidth() + " sub-chunks";
    if (fmt.equals("dot")) {
      String dot = PlanRenderer.dot(plan, title);
      if (output != null) {
        Files.writeString(output, dot);
      } else if (!json.enabled) {
        out.print(dot);
        out.flush();
      }
    }
    if (fmt.equals("png")) {
      try (OutputStream os = Files.newOutputStream(output)) {
        PlanRenderer.png(plan, title, os);
      }
    }
    if (json.enabled || fmt.equals("json")) {
      JsonOutput.print(out, j);
    } else if (fmt.equals("text") || output != null) {
      printText(out, plan, policy, index, j);
    }
    return 0;
  }

  private Map<String, Object> verify(RepairableCode code, Plan plan, int[] index, Planner.Options o) {
    int s = 64;
    PlanCheck.Report r = PlanCheck.run(code, plan, index, s, 2, Math.max(1, Math.min(o.sliceBytes(), s)), seed,
        RegionCoders.best());
    if (!r.ok()) {
      throw new IllegalStateException("the plan failed on random data: repaired bytes "
          + (r.repairedMatches() ? "match" : "differ") + ", traffic " + (r.trafficMatches() ? "matches" : "differs"));
    }
    Map<String, Object> v = new LinkedHashMap<>();
    v.put("ok", true);
    v.put("subchunkBytes", s);
    v.put("rows", r.rows());
    v.put("bytesMoved", r.bytesMoved());
    return v;
  }

  private Integer all(Policy policy, RepairableCode code, Planner.Options o, PrintWriter out, String fmt) {
    if (fmt.equals("dot") || fmt.equals("png")) {
      throw new IllegalArgumentException("--lost all prints a summary; pictures need one --lost index");
    }
    if (alternatives < 0) {
      throw new IllegalArgumentException("--alternatives must not be negative");
    }
    PlanStore ps = new PlanStore(store, strategy, o, alternatives);
    ps.precompute(policy.code());
    List<Map<String, Object>> rows = new ArrayList<>();
    Table t = new Table("lost", "max load", "bandwidth", "max load (blocks)", "bandwidth (blocks)", "seconds",
        "computing nodes");
    for (int i = 0; i < code.totalUnits(); i++) {
      Plan p = ps.lookup(policy.code(), i).orElseThrow();
      int alpha = p.graph().subchunkCount();
      int load = p.point().maxLoad();
      int bw = p.point().bandwidth();
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("lost", i);
      r.put("transform", p.transform());
      r.put("maxRepairLoad", Map.of("subchunks", load, "blocks", (double) load / alpha));
      r.put("repairBandwidth", Map.of("subchunks", bw, "blocks", (double) bw / alpha));
      r.put("searchSeconds", p.searchSeconds());
      List<Plan> all = ps.lookupAll(policy.code(), i);
      List<List<Integer>> computing = all.stream()
          .map(a -> java.util.Arrays.stream(a.computingNodes()).boxed().toList()).toList();
      r.put("computingNodes", computing);
      if (verify) {
        r.put("verified", verify(code, p, new int[] {i}, o));
        for (Plan a : all.subList(1, all.size())) {
          verify(code, a, new int[] {i}, o); // throws if an alternative fails
        }
      }
      rows.add(r);
      t.row(i, load, bw, String.format(Locale.ROOT, "%.3f", (double) load / alpha),
          String.format(Locale.ROOT, "%.3f", (double) bw / alpha), String.format(Locale.ROOT, "%.2f", p.searchSeconds()),
          computing.stream().map(c -> c.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(",")))
              .collect(java.util.stream.Collectors.joining(" | ")));
    }
    if (json.enabled || fmt.equals("json")) {
      Map<String, Object> j = new LinkedHashMap<>();
      j.put("policy", policy.name());
      j.put("strategy", strategy);
      j.put("store", store == null ? null : store.toString());
      j.put("plans", rows);
      JsonOutput.print(out, j);
    } else {
      out.printf("%s, %s: %d plans%s%n", policy.name(), strategy, rows.size(), store == null ? "" : ", stored in " + store);
      t.print(out);
    }
    return 0;
  }

  private static void printText(PrintWriter out, Plan plan, Policy policy, int[] index, Map<String, Object> j) {
    int alpha = plan.graph().subchunkCount();
    Traffic t = plan.traffic();
    out.printf(Locale.ROOT, "%s, lost %s, strategy %s (graph: %s, %d vertices, %d edges, %d sub-chunks per block)%n",
        policy.name(), names(index), plan.strategy(), plan.transform(), plan.graph().vertices().size(), plan.graph().edges().size(),
        alpha);
    Table table = new Table("node", "in", "out", "load");
    for (int n = 0; n < t.nodeCount(); n++) {
      if (t.in(n) > 0 || t.out(n) > 0 || n == plan.problem().requestor()) {
        String name = plan.problem().nodeName(n) + (n == plan.problem().requestor() ? " (requestor)" : "");
        table.row(name, t.in(n), t.out(n), t.load(n));
      }
    }
    table.print(out);
    out.printf(Locale.ROOT, "repair bandwidth: %d sub-chunks (%.3f blocks)%n", t.bandwidth(), (double) t.bandwidth() / alpha);
    out.printf(Locale.ROOT, "max repair load:  %d sub-chunks (%.3f blocks)%n", t.maxLoad(), (double) t.maxLoad() / alpha);
    out.printf(Locale.ROOT, "search: %.3f s; points seen: %s%n", plan.searchSeconds(),
        plan.front().stream().map(Point::toString).reduce((a, b) -> a + " " + b).orElse("-"));
    if (j.containsKey("verified")) {
      out.println("verified on random data across simulated nodes: repaired block and traffic match");
    }
    out.flush();
  }

  /** One index or several (I,J,...), each an internal block index, none twice. */
  private static int[] parseIndices(String s, int n) {
    String[] parts = s.split(",", -1);
    int[] out = new int[parts.length];
    for (int p = 0; p < parts.length; p++) {
      int i;
      try {
        i = Integer.parseInt(parts[p].trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("--lost '" + s + "' is neither an index, a list of indices nor 'all'");
      }
      if (i < 0 || i >= n) {
        throw new IllegalArgumentException("--lost " + i + " is not an internal block index 0.." + (n - 1));
      }
      for (int q = 0; q < p; q++) {
        if (out[q] == i) {
          throw new IllegalArgumentException("--lost names index " + i + " twice");
        }
      }
      out[p] = i;
    }
    java.util.Arrays.sort(out);
    return out;
  }

  private static String names(int[] index) {
    return java.util.Arrays.stream(index).mapToObj(Integer::toString).collect(java.util.stream.Collectors.joining(","));
  }

  /** Rows of numbers separated by spaces or commas; '#' starts a comment. */
  static double[][] readWeights(Path file, int n) throws IOException {
    List<double[]> rows = new ArrayList<>();
    for (String line : Files.readAllLines(file)) {
      String l = line.replaceAll("#.*", "").trim();
      if (l.isEmpty()) {
        continue;
      }
      String[] f = l.split("[,\\s]+");
      double[] r = new double[f.length];
      for (int i = 0; i < f.length; i++) {
        try {
          r[i] = Double.parseDouble(f[i]);
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("--link-weights: '" + f[i] + "' is not a number");
        }
      }
      rows.add(r);
    }
    if (rows.size() != n && rows.size() != n + 1) {
      throw new IllegalArgumentException("--link-weights: " + rows.size() + " rows, expected " + n + " (or " + (n + 1)
          + " with the outside requestor)");
    }
    double[][] w = new double[n + 1][n + 1];
    for (int i = 0; i < rows.size(); i++) {
      if (rows.get(i).length != rows.size()) {
        throw new IllegalArgumentException("--link-weights: row " + i + " has " + rows.get(i).length + " numbers, expected "
            + rows.size());
      }
      System.arraycopy(rows.get(i), 0, w[i], 0, rows.size());
    }
    return w;
  }
}
