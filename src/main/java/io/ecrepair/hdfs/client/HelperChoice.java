package io.ecrepair.hdfs.client;

import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.codes.CodeSpec;
import io.ecrepair.codes.UndecodableException;
import io.ecrepair.exec.CellRowRepair;
import java.util.Arrays;
import java.util.Comparator;

/**
 * Which helpers a degraded read uses, in the spirit of FastDR's enumerated greedy search: the
 * code first names its cheapest repair over every readable unit (sub-chunk repair, a local
 * group, any k); when the helpers' DataNodes differ in cost (network distance from the client:
 * local 1, same rack 2, farther 3 per byte), the code is asked again without each cost class
 * (every unit at or above a cost level), then without single helpers, costliest first, and a
 * repair is kept when it lowers the parallel read time (the largest bytes x cost of any helper:
 * helpers are read at once) or, at equal time, the bytes read. With equal costs (one rack, all
 * remote) the code's own choice stands and nothing is searched.
 */
final class HelperChoice {
  private HelperChoice() {}

  /**
   * @param cost per unit, the cost of a byte from its DataNode (0 for units that hold no bytes)
   * @throws UndecodableException when {@code available} cannot rebuild {@code lost}
   */
  static CellRowRepair choose(CodeSpec spec, int[] lost, int[] available, double[] cost, int codingLength) {
    CellRowRepair best = RepairCatalog.plan(spec, lost, available);
    if (uniform(available, cost)) {
      return best;
    }
    double[] bestScore = score(best, cost, codingLength);
    int[] pool = available;
    // First whole cost classes: without every unit at or above each cost level in turn (a
    // far rack at once), then single helpers, costliest first.
    double[] levels = Arrays.stream(available).mapToDouble(u -> cost[u]).filter(c -> c > 0).distinct().sorted()
        .toArray();
    for (int i = levels.length - 1; i >= 1; i--) {
      double level = levels[i];
      int[] cheaper = Arrays.stream(available).filter(u -> cost[u] < level).toArray();
      try {
        CellRowRepair candidate = RepairCatalog.plan(spec, lost, cheaper);
        double[] s = score(candidate, cost, codingLength);
        if (better(s, bestScore)) {
          best = candidate;
          bestScore = s;
          pool = cheaper;
        }
      } catch (UndecodableException e) {
        break; // fewer units cannot do better
      }
    }
    boolean improved = true;
    while (improved) {
      improved = false;
      Integer[] helpers = Arrays.stream(best.helpers()).boxed().filter(u -> cost[u] > 0).toArray(Integer[]::new);
      Arrays.sort(helpers, Comparator.comparingDouble((Integer u) -> cost[u]).reversed());
      for (int drop : helpers) {
        int[] fewer = Arrays.stream(pool).filter(u -> u != drop).toArray();
        CellRowRepair candidate;
        try {
          candidate = RepairCatalog.plan(spec, lost, fewer);
        } catch (UndecodableException e) {
          continue;
        }
        double[] s = score(candidate, cost, codingLength);
        if (better(s, bestScore)) {
          best = candidate;
          bestScore = s;
          pool = fewer;
          improved = true;
          break;
        }
      }
    }
    return best;
  }

  private static boolean better(double[] s, double[] than) {
    return s[0] < than[0] - 1e-9 || (Math.abs(s[0] - than[0]) <= 1e-9 && s[1] < than[1]);
  }

  /** {parallel read time, bytes} of a row of the repair. */
  static double[] score(CellRowRepair repair, double[] cost, int codingLength) {
    double time = 0;
    double bytes = 0;
    for (int u : repair.helpers()) {
      long b = 0;
      for (int[] r : repair.ranges(u, codingLength)) {
        b += r[1];
      }
      b = cost[u] == 0 ? 0 : b;
      time = Math.max(time, b * cost[u]);
      bytes += b;
    }
    return new double[] {time, bytes};
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
