package io.ecrepair.plan;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.codes.UndecodableException;
import io.ecrepair.exec.CellRowRepair;
import java.util.Arrays;
import java.util.TreeSet;

/**
 * Which helpers a degraded read or a reconstruction uses: FastDR's enumerated greedy search ({@link CostAwareReads})
 * over the code's read sets, with the cost of a byte from each DataNode. With equal costs the
 * code's own cheapest repair stands and nothing is searched; when they differ, the search picks
 * per lost unit a read set (the code's own, or a repair from k of the d cheapest survivors)
 * that lowers the parallel read time of the row, counting the healthy blocks the read needs
 * anyway, and the code then plans its repair over the helpers chosen.
 */
public final class HelperChoice {
  /** FastDR's d beyond k: k-subsets of the k + 2 cheapest survivors (66 for k = 10). */
  static final int EXTRA_SURVIVORS = 2;

  private HelperChoice() {}

  /**
   * @param cost per unit, the cost of a byte from its DataNode (0 for units that hold no bytes)
   * @param healthy data units the read takes from this row anyway
   * @param receiverCost the cost of a byte into the reader itself (its downlink carries every byte read)
   * @throws UndecodableException when {@code available} cannot rebuild {@code lost}
   */
  public static CellRowRepair choose(CodeSpec spec, int[] lost, int[] available, double[] cost, int[] healthy,
                                     double receiverCost) {
    CellRowRepair own = CodeRepairs.plan(spec, lost, available);
    if (uniform(available, cost)) {
      return own;
    }
    CostAwareReads search = new CostAwareReads(CodeReadSets.of(spec), cost, healthy, lost, available,
        spec.k() + EXTRA_SURVIVORS, 1, receiverCost);
    CostAwareReads.Solution eg = search.enumeratedGreedy();
    if (eg.time() >= CostAwareReads.basic(CodeReadSets.of(spec), cost, healthy, lost, available, 1, receiverCost)
        .time()) {
      return own;
    }
    TreeSet<Integer> helpers = new TreeSet<>();
    for (CostAwareReads.Option o : eg.options()) {
      Arrays.stream(o.helpers()).forEach(helpers::add);
    }
    try {
      return CodeRepairs.plan(spec, lost, helpers.stream().mapToInt(Integer::intValue).toArray());
    } catch (UndecodableException e) {
      return own; // the lost units' read sets, each fine alone, do not rebuild them together
    }
  }

  private static boolean uniform(int[] available, double[] cost) {
    double seen = -1;
    for (int u : available) {
      if (cost[u] == 0) {
        continue;
      }
      if (seen >= 0 && cost[u] != seen) {
        return false;
      }
      seen = cost[u];
    }
    return true;
  }
}
