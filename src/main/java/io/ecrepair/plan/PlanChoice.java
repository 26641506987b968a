package io.ecrepair.plan;

import java.util.List;

/**
 * Which of a repair's candidate plans should finish first, given what each node's link must
 * still carry for other repairs (ParaRC's plan choice from the Pareto front, made per task with
 * the load the agents report): a plan's time is set by its busiest node, whose downlink must
 * carry its backlog and then what the plan sends it, and whose uplink what the plan has it send.
 * An idle cluster picks the least max load; a node already busy steers the choice to plans
 * that spare it, even at more bandwidth in all.
 */
public final class PlanChoice {
  private PlanChoice() {}

  /**
   * The index of the candidate expected to finish first.
   *
   * @param backlog bytes each node's downlink still has to receive (by plan node; missing or
   *     negative entries count as 0)
   * @param bytesPerSubchunk bytes one sub-chunk of the plans' graphs stands for in this repair
   */
  public static int soonest(List<Traffic> candidates, long[] backlog, long bytesPerSubchunk) {
    if (candidates.isEmpty()) {
      throw new IllegalArgumentException("no candidate plans");
    }
    int best = 0;
    double bestCost = Double.MAX_VALUE;
    for (int i = 0; i < candidates.size(); i++) {
      double c = cost(candidates.get(i), backlog, bytesPerSubchunk);
      if (c < bestCost) {
        best = i;
        bestCost = c;
      }
    }
    return best;
  }

  /** Bytes the busiest link of {@code t} carries, the backlog of the downlinks it uses included. */
  public static double cost(Traffic t, long[] backlog, long bytesPerSubchunk) {
    double worst = 0;
    for (int node = 0; node < t.nodeCount(); node++) {
      long waiting = node < backlog.length && t.in(node) > 0 ? Math.max(0, backlog[node]) : 0;
      worst = Math.max(worst, Math.max(waiting + (double) t.in(node) * bytesPerSubchunk,
          (double) t.out(node) * bytesPerSubchunk));
    }
    return worst;
  }
}
