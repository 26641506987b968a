package io.ecrepair.plan;

import java.util.Arrays;
import java.util.List;

/**
 * Which of a repair's candidate plans should finish first, given what each node's link must
 * still carry for other repairs (ParaRC's plan choice from the Pareto front, made per task with
 * the load the agents report): a plan's time is set by its busiest node, whose downlink must
 * carry its backlog and then what the plan sends it, and whose uplink what the plan has it send.
 * An idle cluster picks the least max load; a node already busy steers the choice to plans
 * that spare it, even at more bandwidth in all.
 *
 * <p>Plans whose busiest links tie are told apart by their next busiest, and so on (the
 * least loads, sorted from the top, compared in order): among plans that load one busy
 * requestor alike, the one whose computing helpers are idle wins. Full ties go to the
 * preferred candidate and then the ones after it, so that tasks given different preferences
 * spread over equal plans instead of all taking the first.
 */
public final class PlanChoice {
  private PlanChoice() {}

  /** {@link #soonest(List, long[], long, int)} preferring the first candidate on a full tie. */
  public static int soonest(List<Traffic> candidates, long[] backlog, long bytesPerSubchunk) {
    return soonest(candidates, backlog, bytesPerSubchunk, 0);
  }

  /**
   * The index of the candidate expected to finish first.
   *
   * @param backlog bytes each node's downlink still has to receive (by plan node; missing or
   *     negative entries count as 0)
   * @param bytesPerSubchunk bytes one sub-chunk of the plans' graphs stands for in this repair
   * @param prefer where a full tie starts looking (any int; taken modulo the candidates)
   */
  public static int soonest(List<Traffic> candidates, long[] backlog, long bytesPerSubchunk, int prefer) {
    return soonest(candidates, backlog, new double[0], bytesPerSubchunk, prefer);
  }

  /**
   * {@link #soonest(List, long[], long, int)} on links of different speeds (FastDR's cost
   * model): what a node's links carry counts {@code nodeCost[node]} times (missing entries
   * count as 1), so a slow node gets the plan that gives it the least to send and receive.
   */
  public static int soonest(List<Traffic> candidates, long[] backlog, double[] nodeCost, long bytesPerSubchunk,
                            int prefer) {
    if (candidates.isEmpty()) {
      throw new IllegalArgumentException("no candidate plans");
    }
    int size = candidates.size();
    int start = Math.floorMod(prefer, size);
    int best = start;
    double[] bestLinks = links(candidates.get(start), backlog, nodeCost, bytesPerSubchunk);
    for (int step = 1; step < size; step++) {
      int i = (start + step) % size;
      double[] l = links(candidates.get(i), backlog, nodeCost, bytesPerSubchunk);
      if (Arrays.compare(l, bestLinks) < 0) {
        best = i;
        bestLinks = l;
      }
    }
    return best;
  }

  /** Bytes the busiest link of {@code t} carries, the backlog of the downlinks it uses included. */
  public static double cost(Traffic t, long[] backlog, long bytesPerSubchunk) {
    return links(t, backlog, new double[0], bytesPerSubchunk)[0];
  }

  /**
   * What each link {@code t} uses must carry (downlinks with their backlog, then uplinks), the
   * busiest first; links the plan does not use are left out.
   */
  private static double[] links(Traffic t, long[] backlog, double[] nodeCost, long bytesPerSubchunk) {
    double[] l = new double[2 * t.nodeCount()];
    int used = 0;
    for (int node = 0; node < t.nodeCount(); node++) {
      double cost = node < nodeCost.length ? nodeCost[node] : 1;
      if (t.in(node) > 0) {
        long waiting = node < backlog.length ? Math.max(0, backlog[node]) : 0;
        l[used++] = -(waiting + (double) t.in(node) * bytesPerSubchunk) * cost;
      }
      if (t.out(node) > 0) {
        l[used++] = -((double) t.out(node) * bytesPerSubchunk) * cost;
      }
    }
    double[] sorted = Arrays.copyOf(l, Math.max(1, used));
    Arrays.sort(sorted); // negated: the busiest first
    for (int i = 0; i < sorted.length; i++) {
      sorted[i] = -sorted[i];
    }
    return sorted;
  }
}
