package io.ecrepair.hdfs.task;

import io.ecrepair.plan.PlanChoice;
import io.ecrepair.plan.Traffic;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * What this DataNode's own repair tasks chose to have each DataNode receive in the last moments,
 * before their parts reach it (only then does that DataNode's load probe count them). A DataNode
 * given two blocks of a full-node recovery starts both tasks on one heartbeat: they probe at the
 * same moment, see the same helpers idle, and would load the same ones. Made here one at a time,
 * with the other's choice counted, their plan choices spread (in a simulation with the stored
 * CLAY-10-4 plans and probes that see other DataNodes' choices after 50 ms, the busiest DataNode
 * of a recovery fell from 1.40 to 1.32 times the mean).
 */
final class RecentChoices {
  /** How long a choice counts here: longer than its parts take to reach its helpers. */
  static final long LIFETIME_MS = 2_000;
  /** Choices kept per DataNode at most (the oldest go first). */
  static final int MAX_KEPT = 1024;

  private final Map<String, ArrayDeque<long[]>> byNode = new HashMap<>(); // {at ms, bytes}

  /**
   * The index of the candidate expected to finish first ({@link PlanChoice}) when the recent
   * choices of this DataNode's tasks are added to {@code backlog} (probed bytes per unit, -1 or
   * missing: unknown, counted as 0); the chosen plan's bytes then count for the choices after it.
   *
   * @param nodeOfUnit the DataNode of each unit (null for a unit that receives in no candidate)
   */
  synchronized int choose(List<Traffic> candidates, long[] backlog, String[] nodeOfUnit, double[] cost,
                          long bytesPerSubchunk, int prefer, long nowMs) {
    forget(nowMs);
    long[] seen = new long[nodeOfUnit.length];
    for (int u = 0; u < seen.length; u++) {
      long probed = u < backlog.length ? Math.max(0, backlog[u]) : 0;
      seen[u] = probed + (nodeOfUnit[u] == null ? 0 : recent(nodeOfUnit[u]));
    }
    int chosen = PlanChoice.soonest(candidates, seen, cost, bytesPerSubchunk, prefer);
    Traffic t = candidates.get(chosen);
    for (int u = 0; u < t.nodeCount(); u++) {
      if (t.in(u) > 0) {
        if (nodeOfUnit[u] == null) {
          throw new IllegalArgumentException("unit " + u + " receives in the chosen plan but has no DataNode");
        }
        ArrayDeque<long[]> kept = byNode.computeIfAbsent(nodeOfUnit[u], n -> new ArrayDeque<>());
        if (kept.size() == MAX_KEPT) {
          kept.removeFirst();
        }
        kept.addLast(new long[] {nowMs, t.in(u) * bytesPerSubchunk});
      }
    }
    return chosen;
  }

  /** Bytes the recent choices have {@code node} receive. */
  synchronized long recent(String node) {
    ArrayDeque<long[]> kept = byNode.get(node);
    return kept == null ? 0 : kept.stream().mapToLong(c -> c[1]).sum();
  }

  /** Drops the choices that no longer count (and any from a clock that went back). */
  private void forget(long nowMs) {
    for (Iterator<ArrayDeque<long[]>> it = byNode.values().iterator(); it.hasNext(); ) {
      ArrayDeque<long[]> kept = it.next();
      kept.removeIf(c -> nowMs - c[0] >= LIFETIME_MS || nowMs < c[0]);
      if (kept.isEmpty()) {
        it.remove();
      }
    }
  }
}
