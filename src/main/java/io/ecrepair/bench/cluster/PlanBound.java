package io.ecrepair.bench.cluster;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a full-node recovery's layout forces through the links, by the links alone: each
 * DataNode's downlink and uplink and, with racks, each rack gateway's (what leaves a rack is at
 * least what its DataNodes send beyond what they receive, and the other way round). Every
 * rebuilt block has a few ways to be rebuilt ({@link RepairOptions}: HDFS's choice of k helpers,
 * a chain's helpers and head, a code's central and parallel plans); the bound takes for each the
 * way chosen knowing every other block's choice (each in turn, then each again while that lowers
 * the busiest link). The DataNodes' tasks start within a second of one another and each sees
 * only what its probes report, so a measured recovery can approach the busiest link's load at
 * its rate but not pass it. With the first way everywhere (a Clay code's central plan) it also
 * gives the busiest link a central recovery would have, and with the best choice the busiest
 * DataNode's bytes received against the mean of the live DataNodes (the layout's own balance).
 */
final class PlanBound {
  /**
   * The busiest link's load, in blocks at the base link rate, with the first way everywhere and
   * with the best choice; with the best choice, the busiest DataNode's bytes received against
   * the mean of the live DataNodes, and which link is the busiest ("dn3 in", "rack1 out").
   */
  record Busiest(double central, double best, double bestBalance, String link) {
    /** How much sooner than the central recovery the best choice could end, link-bound. */
    double gain() {
      return central / best;
    }
  }

  /** One way to rebuild a lost unit: the blocks each unit's DataNode receives and sends. */
  record Option(double[] in, double[] out) {}

  /**
   * The links' speeds against the base rate: a DataNode's cost is base rate / its rate (absent:
   * 1), each DataNode's rack (empty: one flat network), the rack gateways' cost.
   */
  record Links(Map<String, Double> nodeCost, Map<String, String> rackOf, double rackCost) {
    static final Links FLAT = new Links(Map.of(), Map.of(), 1);
  }

  /**
   * One rebuilt block: the DataNode of every unit of its group (the lost unit's is the one that
   * rebuilt it; null where a unit has none), the lost unit, and the ways it can be rebuilt (the
   * first one is the central figure's).
   */
  record Task(String[] nodeOfUnit, int lost, List<Option> options) {
    Task {
      if (options.isEmpty()) {
        throw new IllegalArgumentException("no way to rebuild unit " + lost);
      }
    }
  }

  private static final int MAX_PASSES = 20;

  private final List<String> nodes = new ArrayList<>();
  private final Map<String, Integer> index = new HashMap<>();
  private final double[] cost;
  private final int[] rack;
  private final List<String> racks = new ArrayList<>();
  private final double rackCost;
  private final int[][] nodeOf;
  /** Per DataNode: blocks received, blocks sent. */
  private final double[] in;
  private final double[] out;

  private PlanBound(List<Task> tasks, Links links) {
    nodeOf = new int[tasks.size()][];
    for (int i = 0; i < tasks.size(); i++) {
      String[] names = tasks.get(i).nodeOfUnit();
      nodeOf[i] = new int[names.length];
      for (int u = 0; u < names.length; u++) {
        nodeOf[i][u] = names[u] == null ? -1 : index.computeIfAbsent(names[u], n -> {
          nodes.add(n);
          return nodes.size() - 1;
        });
      }
    }
    cost = new double[nodes.size()];
    rack = new int[nodes.size()];
    Map<String, Integer> rackIndex = new LinkedHashMap<>();
    for (int n = 0; n < nodes.size(); n++) {
      cost[n] = links.nodeCost().getOrDefault(nodes.get(n), 1.0);
      String r = links.rackOf().get(nodes.get(n));
      rack[n] = r == null ? -1 : rackIndex.computeIfAbsent(r, x -> {
        racks.add(x);
        return racks.size() - 1;
      });
    }
    rackCost = links.rackCost();
    in = new double[nodes.size()];
    out = new double[nodes.size()];
  }

  /** The bound for {@code tasks} on {@code liveDataNodes} live DataNodes joined by {@code links}. */
  static Busiest of(List<Task> tasks, int liveDataNodes, Links links) {
    PlanBound b = new PlanBound(tasks, links);
    for (int i = 0; i < tasks.size(); i++) {
      b.add(i, tasks.get(i).options().get(0), 1);
    }
    double central = b.busiest();
    for (int i = 0; i < tasks.size(); i++) {
      b.add(i, tasks.get(i).options().get(0), -1);
    }
    int[] chosen = new int[tasks.size()];
    for (int i = 0; i < tasks.size(); i++) {
      List<Option> o = tasks.get(i).options();
      chosen[i] = b.best(i, o);
      b.add(i, o.get(chosen[i]), 1);
    }
    for (int pass = 0; pass < MAX_PASSES; pass++) {
      boolean changed = false;
      for (int i = 0; i < tasks.size(); i++) {
        List<Option> o = tasks.get(i).options();
        b.add(i, o.get(chosen[i]), -1);
        int c = b.best(i, o);
        if (b.score(i, o.get(c)) < b.score(i, o.get(chosen[i]))) {
          chosen[i] = c;
          changed = true;
        }
        b.add(i, o.get(chosen[i]), 1);
      }
      if (!changed) {
        break;
      }
    }
    return b.result(central, liveDataNodes);
  }

  /**
   * The busiest link's load, in blocks at the base link rate, with way {@code chosen[i]} for
   * task i: what a given rule's choices leave, to set against {@link #of}'s two figures.
   */
  static double busiest(List<Task> tasks, int[] chosen, Links links) {
    PlanBound b = new PlanBound(tasks, links);
    for (int i = 0; i < tasks.size(); i++) {
      b.add(i, tasks.get(i).options().get(chosen[i]), 1);
    }
    return b.busiest();
  }

  private Busiest result(double central, int liveDataNodes) {
    long receiving = java.util.Arrays.stream(in).filter(v -> v > 1e-12).count();
    if (receiving > liveDataNodes) {
      throw new IllegalArgumentException(receiving + " DataNodes receive, but only " + liveDataNodes + " are live");
    }
    double maxIn = 0;
    double sumIn = 0;
    for (double v : in) {
      maxIn = Math.max(maxIn, v);
      sumIn += v;
    }
    return new Busiest(central, busiest(), sumIn == 0 ? 0 : maxIn / (sumIn / liveDataNodes), busiestLink());
  }

  private int best(int task, List<Option> options) {
    int best = 0;
    double bestScore = score(task, options.get(0));
    for (int c = 1; c < options.size(); c++) {
      double s = score(task, options.get(c));
      if (s < bestScore) {
        best = c;
        bestScore = s;
      }
    }
    return best;
  }

  /** The busiest link with {@code o} added for the task, then the sum of squares (a tie-break toward even loads). */
  private double score(int task, Option o) {
    add(task, o, 1);
    double squares = 0;
    for (int n = 0; n < in.length; n++) {
      squares += in[n] * in[n] + out[n] * out[n];
    }
    double s = busiest() * 1e6 + squares;
    add(task, o, -1);
    return s;
  }

  private void add(int task, Option o, int sign) {
    for (int u = 0; u < o.in().length; u++) {
      if (o.in()[u] != 0 || o.out()[u] != 0) {
        int n = nodeOf[task][u];
        if (n < 0) {
          throw new IllegalArgumentException("unit " + u + " takes part in a repair but has no DataNode");
        }
        in[n] += sign * o.in()[u];
        out[n] += sign * o.out()[u];
      }
    }
  }

  /** Every link's load at the base rate: DataNodes' in and out, then racks' in and out. */
  private double[] linkLoads() {
    double[] l = new double[2 * nodes.size() + 2 * racks.size()];
    double[] rackIn = new double[racks.size()];
    double[] rackOut = new double[racks.size()];
    for (int n = 0; n < nodes.size(); n++) {
      l[2 * n] = in[n] * cost[n];
      l[2 * n + 1] = out[n] * cost[n];
      if (rack[n] >= 0) {
        rackIn[rack[n]] += in[n];
        rackOut[rack[n]] += out[n];
      }
    }
    for (int r = 0; r < racks.size(); r++) {
      l[2 * nodes.size() + 2 * r] = Math.max(0, rackIn[r] - rackOut[r]) * rackCost;
      l[2 * nodes.size() + 2 * r + 1] = Math.max(0, rackOut[r] - rackIn[r]) * rackCost;
    }
    return l;
  }

  private double busiest() {
    double max = 0;
    for (double v : linkLoads()) {
      max = Math.max(max, v);
    }
    return max;
  }

  private String busiestLink() {
    double[] l = linkLoads();
    int at = 0;
    for (int i = 1; i < l.length; i++) {
      if (l[i] > l[at]) {
        at = i;
      }
    }
    if (l.length == 0 || l[at] == 0) {
      return "-";
    }
    String dir = at % 2 == 0 ? " in" : " out";
    return (at < 2 * nodes.size() ? nodes.get(at / 2) : racks.get(at / 2 - nodes.size())) + dir;
  }
}
