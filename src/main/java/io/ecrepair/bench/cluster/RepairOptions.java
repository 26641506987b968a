package io.ecrepair.bench.cluster;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.ecdag.Ecdag;
import io.ecrepair.gf.RegionCoders;
import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.plan.Pipelines;
import io.ecrepair.plan.Plan;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/**
 * The ways one lost unit can be rebuilt under a scenario's strategy, as the blocks each unit's
 * DataNode receives and sends ({@link PlanBound.Option}):
 * <ul>
 *   <li>{@code stock}: HDFS's reconstruction, the rebuilding DataNode reading k whole blocks,
 *       one from each of any k survivors;
 *   <li>{@code pipeline}: a chain of helpers, each adding its block to the partial sum and
 *       passing one block on, the rebuilding DataNode receiving the finished sum; RS's helpers
 *       are any k survivors, another code's those of its cheapest repair; any helper heads it;
 *   <li>{@code central}: the code's central sub-chunk repair;
 *   <li>{@code pararc}: the central repair or any of the code's stored parallel plans.
 * </ul>
 * The first option of each list is the central repair where the code has one.
 */
final class RepairOptions {
  private RepairOptions() {}

  static List<PlanBound.Option> of(String strategy, CodeSpec spec, int lost) {
    int[] survivors = IntStream.range(0, spec.n()).filter(u -> u != lost).toArray();
    return switch (strategy) {
      case "stock" -> {
        List<PlanBound.Option> o = new ArrayList<>();
        for (int[] helpers : subsets(survivors, spec.k())) {
          double[] in = new double[spec.n()];
          double[] out = new double[spec.n()];
          in[lost] = spec.k();
          for (int h : helpers) {
            out[h] = 1;
          }
          o.add(new PlanBound.Option(in, out));
        }
        yield o;
      }
      case "pipeline" -> {
        List<int[]> sets = spec.codec().equals("rs") ? subsets(survivors, spec.k())
            : List.of(Pipelines.helpers(cheapestRepair(spec, lost, survivors)));
        List<PlanBound.Option> o = new ArrayList<>();
        for (int[] helpers : sets) {
          for (int head : helpers) {
            o.add(chain(spec.n(), lost, helpers, head));
          }
        }
        yield o;
      }
      case "central" -> List.of(option(RepairCatalog.centralPlan(spec, lost)));
      case "pararc" -> {
        List<PlanBound.Option> o = new ArrayList<>();
        o.add(option(RepairCatalog.centralPlan(spec, lost)));
        RepairCatalog.parallelPlans(spec, lost).forEach(p -> o.add(option(p)));
        yield o;
      }
      default -> throw new IllegalArgumentException("no strategy " + strategy);
    };
  }

  /**
   * The chains of a code's cheapest repair of {@code lost} without {@code avoided} (another rack's
   * units: the plugin reads an LRC block around a busy rack when the code allows), any helper
   * heading; empty where the rest cannot rebuild it.
   */
  static List<PlanBound.Option> chainsAvoiding(CodeSpec spec, int lost, java.util.Set<Integer> avoided) {
    int[] rest = IntStream.range(0, spec.n()).filter(u -> u != lost && !avoided.contains(u)).toArray();
    int[] helpers;
    try {
      helpers = Pipelines.helpers(cheapestRepair(spec, lost, rest));
    } catch (io.ecrepair.codes.UndecodableException e) {
      return List.of();
    }
    List<PlanBound.Option> o = new ArrayList<>();
    for (int head : helpers) {
      o.add(chain(spec.n(), lost, helpers, head));
    }
    return o;
  }

  /** A chain over {@code helpers} headed by {@code head}: every link carries one block. */
  static PlanBound.Option chain(int n, int lost, int[] helpers, int head) {
    double[] in = new double[n];
    double[] out = new double[n];
    in[lost] = 1;
    for (int h : helpers) {
      out[h] = 1;
      in[h] = h == head ? 0 : 1;
    }
    return new PlanBound.Option(in, out);
  }

  private static Ecdag cheapestRepair(CodeSpec spec, int lost, int[] survivors) {
    return spec.create(RegionCoders.java()).repairGraph(new int[] {lost}, survivors);
  }

  private static PlanBound.Option option(Plan p) {
    int units = p.problem().nodeCount();
    double alpha = p.graph().subchunkCount();
    double[] in = new double[units];
    double[] out = new double[units];
    for (int u = 0; u < units; u++) {
      in[u] = p.traffic().in(u) / alpha;
      out[u] = p.traffic().out(u) / alpha;
    }
    return new PlanBound.Option(in, out);
  }

  /** Every subset of {@code size} of {@code from}, ascending. */
  static List<int[]> subsets(int[] from, int size) {
    List<int[]> out = new ArrayList<>();
    collect(from, size, 0, new int[size], 0, out);
    return out;
  }

  private static void collect(int[] from, int size, int start, int[] cur, int depth, List<int[]> out) {
    if (depth == size) {
      out.add(cur.clone());
      return;
    }
    for (int i = start; i <= from.length - (size - depth); i++) {
      cur[depth] = from[i];
      collect(from, size, i + 1, cur, depth + 1, out);
    }
  }
}
