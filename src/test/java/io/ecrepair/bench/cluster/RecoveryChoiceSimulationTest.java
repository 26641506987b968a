package io.ecrepair.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.layout.Policy;
import io.ecrepair.plan.Plan;
import io.ecrepair.plan.PlanChoice;
import io.ecrepair.plan.RecoveryShare;
import io.ecrepair.plan.Traffic;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Full-node recoveries simulated on random layouts, as HDFS makes them: a dead DataNode held one
 * unit of each of many groups, each group's other units sit on distinct random DataNodes, and
 * each lost unit is rebuilt on a random live DataNode outside its group. A task weighing the plans
 * takes the one that should finish first by what it sees of the downlinks
 * ({@link PlanChoice#soonest}, as {@code ParallelChoice} does). The rules and what they see:
 * <ul>
 *   <li>{@link View#BLIND}: every task weighs, seeing only the bytes already moving; the tasks of
 *       a recovery start together, so none sees another (the choice before this one);
 *   <li>{@link View#IN_TURN}: DataNodes receive their tasks in a random order (heartbeats), a
 *       DataNode's tasks choose one after another, every choice is announced before the next, and
 *       a DataNode's first task of the recovery runs centrally unless it sees nothing else under
 *       way (what the product does; in it, DataNodes choosing within the same few milliseconds
 *       still miss one another);
 *   <li>{@link View#INFORMED}: every task weighs in turn, and every task not yet chosen counts as
 *       its central repair: then no task loads a link past all-central (what the tasks the
 *       NameNode has yet to hand out deny the product).
 * </ul>
 * The busiest link each leaves is set against {@link PlanBound}'s all-central and best choice.
 */
class RecoveryChoiceSimulationTest {
  private static final int DATANODES = 17;
  private static final int LAYOUTS = 400;
  /** Bytes a sub-chunk stands for in the simulation; any positive value gives the same choices. */
  private static final long UNIT = 1 << 16;

  private enum View { BLIND, IN_TURN, INFORMED }

  /** One rebuilt block: its group's DataNodes (the lost unit's is its target), its block group's id. */
  private record Task(int lost, String[] nodeOfUnit, String target, long groupId, List<PlanBound.Option> options) {}

  /** Busiest link against all-central and the best choice over the layouts. */
  private record Figures(double meanVsCentral, double worstVsCentral, int aboveCentral, double meanVsBest) {
    @Override
    public String toString() {
      return String.format("vs all-central mean %.3f worst %.3f (%d of %d layouts above), vs best mean %.3f",
          meanVsCentral, worstVsCentral, aboveCentral, LAYOUTS, meanVsBest);
    }
  }

  @Test
  void clay() {
    check("CLAY-10-4-4096k");
  }

  @Test
  void butterfly() {
    check("BUTTERFLY-10-2-4096k");
  }

  private static void check(String policy) {
    CodeSpec spec = Policy.parse(policy).code();
    for (int groups : new int[] {10, 20, 40}) {
      Figures blind = run(spec, groups, View.BLIND);
      Figures inTurn = run(spec, groups, View.IN_TURN);
      Figures informed = run(spec, groups, View.INFORMED);
      String what = policy + ", " + groups + " groups: blind " + blind + "; in turn " + inTurn + "; informed "
          + informed;
      System.out.println(what);
      assertTrue(informed.aboveCentral() == 0, what);
      assertTrue(inTurn.aboveCentral() <= blind.aboveCentral(), what);
      assertTrue(inTurn.meanVsCentral() < 0.8, what);
    }
  }

  private static Figures run(CodeSpec spec, int groups, View view) {
    Random rnd = new Random(groups * 1_000_003L + spec.n());
    double sumCentral = 0;
    double sumBest = 0;
    double worst = 0;
    int above = 0;
    for (int l = 0; l < LAYOUTS; l++) {
      List<Task> tasks = layout(spec, groups, rnd);
      List<PlanBound.Task> bound = tasks.stream()
          .map(t -> new PlanBound.Task(t.nodeOfUnit(), t.lost(), t.options())).toList();
      PlanBound.Busiest b = PlanBound.of(bound, DATANODES - 1, PlanBound.Links.FLAT);
      double busiest = PlanBound.busiest(bound, choose(spec, tasks, view, rnd), PlanBound.Links.FLAT);
      sumCentral += busiest / b.central();
      sumBest += busiest / b.best();
      worst = Math.max(worst, busiest / b.central());
      above += busiest > b.central() + 1e-9 ? 1 : 0;
    }
    return new Figures(sumCentral / LAYOUTS, worst, above, sumBest / LAYOUTS);
  }

  /** Each task's way (0 central, i a parallel plan), DataNode by DataNode in a random order. */
  private static int[] choose(CodeSpec spec, List<Task> tasks, View view, Random rnd) {
    Map<String, List<Integer>> byTarget = new LinkedHashMap<>();
    for (int i = 0; i < tasks.size(); i++) {
      byTarget.computeIfAbsent(tasks.get(i).target(), k -> new ArrayList<>()).add(i);
    }
    List<String> arrivals = new ArrayList<>(byTarget.keySet());
    Collections.shuffle(arrivals, rnd);
    Map<String, Double> seen = new HashMap<>(); // blocks each downlink is seen to take
    if (view == View.INFORMED) {
      tasks.forEach(t -> add(t, 0, seen, 1));
    }
    int[] chosen = new int[tasks.size()];
    for (String dn : arrivals) {
      boolean shareTaken = false;
      for (int i : byTarget.get(dn)) {
        Task t = tasks.get(i);
        if (view == View.INFORMED) {
          add(t, 0, seen, -1);
        }
        boolean alone = byTarget.get(dn).size() == 1 && !sees(t, seen);
        if (view == View.IN_TURN && RecoveryShare.central(1, alone, shareTaken ? 1 : 0,
            RepairCatalog.centralPlan(spec, t.lost()).traffic().in(t.lost()),
            RepairCatalog.centralPlan(spec, 0).traffic().in(0))) {
          chosen[i] = 0;
          shareTaken = true;
        } else {
          chosen[i] = pick(spec, t, seen);
        }
        if (view != View.BLIND) {
          add(t, chosen[i], seen, 1);
        }
      }
    }
    return chosen;
  }

  /** Whether any DataNode of the task's group is seen to take other repairs' bytes. */
  private static boolean sees(Task t, Map<String, Double> seen) {
    for (String node : t.nodeOfUnit()) {
      if (node != null && seen.getOrDefault(node, 0.0) > 1e-12) {
        return true;
      }
    }
    return false;
  }

  /** Weighing: the plan that should finish first, the central one competing. */
  private static int pick(CodeSpec spec, Task t, Map<String, Double> seen) {
    long[] backlog = new long[spec.n()];
    for (int u = 0; u < spec.n(); u++) {
      backlog[u] = Math.round(seen.getOrDefault(t.nodeOfUnit()[u], 0.0) * spec.subPacketization() * UNIT);
    }
    List<Traffic> candidates = new ArrayList<>(RepairCatalog.parallelPlans(spec, t.lost()).stream()
        .map(Plan::traffic).toList());
    int stored = candidates.size();
    candidates.add(RepairCatalog.centralPlan(spec, t.lost()).traffic());
    int prefer = (int) Math.floorMod(t.groupId() >> 4, (long) stored);
    int c = PlanChoice.soonest(candidates, backlog, new double[0], UNIT, prefer);
    return c < stored ? c + 1 : 0; // RepairOptions lists the central plan first
  }

  private static void add(Task t, int way, Map<String, Double> seen, int sign) {
    double[] in = t.options().get(way).in();
    for (int u = 0; u < in.length; u++) {
      if (in[u] != 0) {
        seen.merge(t.nodeOfUnit()[u], sign * in[u], Double::sum);
      }
    }
  }

  /** A dead DataNode's blocks of {@code groups} groups, rebuilt on random live DataNodes outside each group. */
  private static List<Task> layout(CodeSpec spec, int groups, Random rnd) {
    int n = spec.n();
    List<Task> tasks = new ArrayList<>();
    for (int g = 0; g < groups; g++) {
      List<Integer> live = new ArrayList<>();
      for (int d = 1; d < DATANODES; d++) {
        live.add(d); // dn0 is dead
      }
      Collections.shuffle(live, rnd);
      int lost = rnd.nextInt(n);
      String[] nodes = new String[n + 1]; // plans may name a requestor past the units; it holds no block
      int next = 0;
      for (int u = 0; u < n; u++) {
        if (u != lost) {
          nodes[u] = "dn" + live.get(next++);
        }
      }
      String target = "dn" + live.get(next);
      nodes[lost] = target;
      tasks.add(new Task(lost, nodes, target, rnd.nextLong(), RepairOptions.of("pararc", spec, lost)));
    }
    return tasks;
  }
}
