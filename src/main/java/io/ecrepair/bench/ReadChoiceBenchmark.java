package io.ecrepair.bench;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.layout.Policy;
import io.ecrepair.plan.CodeReadSets;
import io.ecrepair.plan.CostAwareReads;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import java.util.stream.IntStream;

/**
 * FastDR's Table 2 and Figures 7 to 10 for our codes: for degraded reads that span lost and
 * healthy data units under random per-node costs, the enumerated greedy search's time and the
 * exhaustive search's, the read time EG finds against the optimum, and against the code's own
 * choice blind to cost.
 */
public final class ReadChoiceBenchmark {
  /** Exhaustive searches larger than this many combinations are skipped. */
  public static final long MAX_COMBINATIONS = 2_000_000;

  /** One case: a policy, the lost data units and the span of data units read. */
  public record Result(String policy, int[] lost, int span, int trials, double egMicros, double exhaustiveMillis,
                       double egOverOptimal, double basicOverEg, long searchSpace) {}

  private ReadChoiceBenchmark() {}

  /**
   * Runs every policy with one and two lost data units in a read of {@code span} data units,
   * {@code trials} random cost vectors each (every node's cost per byte 1, 2 or 4: links of
   * three speeds), seeded.
   */
  public static List<Result> run(List<String> policies, int span, int trials, long seed, Consumer<String> progress) {
    List<Result> out = new ArrayList<>();
    for (String name : policies) {
      Policy policy = Policy.parse(name);
      CodeSpec spec = policy.code();
      for (int[] lost : new int[][] {{0}, {0, Math.min(2, span - 1)}}) {
        if (lost.length > spec.faultTolerance() || lost[lost.length - 1] == lost[0] && lost.length > 1) {
          continue;
        }
        progress.accept(name + ": lost " + Arrays.toString(lost) + " in a read of " + span + " data blocks");
        out.add(runCase(name, spec, lost, Math.min(span, spec.k()), trials, seed, policy.cellSize()));
      }
    }
    return out;
  }

  private static Result runCase(String name, CodeSpec spec, int[] lost, int span, int trials, long seed, int cell) {
    CodeReadSets code = CodeReadSets.of(spec);
    int[] healthy = IntStream.range(0, span).filter(u -> Arrays.stream(lost).noneMatch(l -> l == u)).toArray();
    int[] survivors = IntStream.range(0, spec.n()).filter(u -> Arrays.stream(lost).noneMatch(l -> l == u)).toArray();
    Random random = new Random(seed);
    double[] levels = {1, 2, 4};
    long egNanos = 0;
    long exhaustiveNanos = 0;
    int exhaustiveRuns = 0;
    double quality = 0;
    double gain = 0;
    long space = 0;
    // One search before timing: the code's read sets are computed once per JVM, then looked up.
    double[] warm = new double[spec.n()];
    Arrays.fill(warm, 1);
    new CostAwareReads(code, warm, healthy, lost, survivors, survivors.length, cell).enumeratedGreedy();
    for (int t = 0; t < trials; t++) {
      double[] cost = new double[spec.n()];
      for (int u = 0; u < cost.length; u++) {
        cost[u] = levels[random.nextInt(levels.length)];
      }
      long t0 = System.nanoTime();
      CostAwareReads search = new CostAwareReads(code, cost, healthy, lost, survivors, survivors.length, cell);
      CostAwareReads.Solution eg = search.enumeratedGreedy();
      long t1 = System.nanoTime();
      egNanos += t1 - t0;
      space = Arrays.stream(search.optionCounts()).asLongStream().reduce(1, (a, b) -> a * b);
      if (space <= MAX_COMBINATIONS) {
        long t2 = System.nanoTime();
        CostAwareReads.Solution best = search.exhaustive();
        exhaustiveNanos += System.nanoTime() - t2;
        exhaustiveRuns++;
        quality += eg.time() / best.time();
      }
      gain += CostAwareReads.basic(code, cost, healthy, lost, survivors, cell).time() / eg.time();
    }
    return new Result(name, lost, span, trials, egNanos / 1e3 / trials,
        exhaustiveRuns == 0 ? Double.NaN : exhaustiveNanos / 1e6 / exhaustiveRuns,
        exhaustiveRuns == 0 ? Double.NaN : quality / exhaustiveRuns, gain / trials, space);
  }
}
