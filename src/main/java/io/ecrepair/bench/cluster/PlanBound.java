package io.ecrepair.bench.cluster;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.plan.Plan;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a full-node recovery's plans allow on its layout, by the links alone: the most any one
 * DataNode would receive if every task ran the central plan, and if every task's plan were
 * chosen knowing every other task's choice (each in turn, then each again while that lowers the
 * busiest DataNode). The DataNodes' tasks start within a second of one another and each sees
 * only what its probes report, so a measured recovery can approach the second figure but not
 * pass it; their ratio is the most a parallel recovery can gain over the central one there when
 * the links decide, whatever the plan choice. With the second choice it also gives the busiest
 * DataNode against the mean of the live DataNodes (the benchmark's balance), so a measured
 * imbalance can be told apart from one the layout imposes.
 */
final class PlanBound {
  /**
   * Blocks received by the busiest DataNode with every task central, and with the best choice;
   * with the best choice, the busiest against the mean of the live DataNodes.
   */
  record Busiest(double central, double best, double bestBalance) {
    /** How much sooner than the central recovery the best choice could end, link-bound. */
    double gain() {
      return central / best;
    }
  }

  /**
   * One rebuilt block: the DataNode of every unit of its group (the lost unit's is the one that
   * rebuilt it; null where a unit has none) and the lost unit.
   */
  record Task(String[] nodeOfUnit, int lost) {}

  private static final int MAX_PASSES = 20;

  private PlanBound() {}

  /**
   * For the code of {@code spec}, with its stored parallel plans, on a cluster of {@code
   * liveDataNodes}; null for a code without any (a scalar code).
   */
  static Busiest of(CodeSpec spec, List<Task> tasks, int liveDataNodes) {
    if (spec.subPacketization() == 1) {
      return null;
    }
    Map<Integer, List<double[]>> plans = new HashMap<>();
    for (Task t : tasks) {
      if (!plans.containsKey(t.lost())) {
        List<Plan> parallel = RepairCatalog.parallelPlans(spec, t.lost());
        if (parallel.isEmpty()) {
          return null;
        }
        List<double[]> in = new ArrayList<>();
        in.add(blocksIn(RepairCatalog.centralPlan(spec, t.lost())));
        parallel.forEach(p -> in.add(blocksIn(p)));
        plans.put(t.lost(), in);
      }
    }
    return of(tasks, plans, liveDataNodes);
  }

  /**
   * The same with the plans given: per lost unit, the blocks each unit's node receives under
   * each plan, the central plan first.
   */
  static Busiest of(List<Task> tasks, Map<Integer, List<double[]>> plans, int liveDataNodes) {
    Map<String, Double> central = new HashMap<>();
    for (Task t : tasks) {
      add(central, t, plans.get(t.lost()).get(0), 1);
    }
    Map<String, Double> load = new HashMap<>();
    int[] chosen = new int[tasks.size()];
    for (int i = 0; i < tasks.size(); i++) {
      chosen[i] = best(load, tasks.get(i), plans.get(tasks.get(i).lost()));
      add(load, tasks.get(i), plans.get(tasks.get(i).lost()).get(chosen[i]), 1);
    }
    for (int pass = 0; pass < MAX_PASSES; pass++) {
      boolean changed = false;
      for (int i = 0; i < tasks.size(); i++) {
        List<double[]> options = plans.get(tasks.get(i).lost());
        add(load, tasks.get(i), options.get(chosen[i]), -1);
        int c = best(load, tasks.get(i), options);
        if (score(load, tasks.get(i), options.get(c)) < score(load, tasks.get(i), options.get(chosen[i]))) {
          chosen[i] = c;
          changed = true;
        }
        add(load, tasks.get(i), options.get(chosen[i]), 1);
      }
      if (!changed) {
        break;
      }
    }
    if (load.size() > liveDataNodes) {
      throw new IllegalArgumentException(load.size() + " DataNodes receive, but only " + liveDataNodes + " are live");
    }
    double mean = load.values().stream().mapToDouble(Double::doubleValue).sum() / liveDataNodes;
    return new Busiest(max(central), max(load), max(load) / mean);
  }

  private static int best(Map<String, Double> load, Task t, List<double[]> options) {
    int best = 0;
    for (int c = 1; c < options.size(); c++) {
      if (score(load, t, options.get(c)) < score(load, t, options.get(best))) {
        best = c;
      }
    }
    return best;
  }

  /** The busiest DataNode with {@code plan} added for {@code t}, then the sum of squares (a tie-break toward even loads). */
  private static double score(Map<String, Double> load, Task t, double[] plan) {
    add(load, t, plan, 1);
    double max = max(load);
    double squares = 0;
    for (double v : load.values()) {
      squares += v * v;
    }
    add(load, t, plan, -1);
    return max * 1e6 + squares;
  }

  private static void add(Map<String, Double> load, Task t, double[] plan, int sign) {
    for (int u = 0; u < plan.length; u++) {
      if (plan[u] != 0) {
        String node = t.nodeOfUnit()[u];
        if (node == null) {
          throw new IllegalArgumentException("unit " + u + " receives in a plan but has no DataNode");
        }
        load.merge(node, sign * plan[u], Double::sum);
      }
    }
  }

  private static double max(Map<String, Double> load) {
    return load.values().stream().mapToDouble(Double::doubleValue).max().orElse(0);
  }

  private static double[] blocksIn(Plan p) {
    double[] in = new double[p.problem().nodeCount()];
    for (int u = 0; u < in.length; u++) {
      in[u] = (double) p.traffic().in(u) / p.graph().subchunkCount();
    }
    return in;
  }
}
