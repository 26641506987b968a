package io.ecrepair.hdfs.task;

import io.ecrepair.hdfs.NodeCosts;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;

/**
 * Who can help rebuild a group: the live sources of the order by internal block index (several
 * sources of one index are spares, the first one is read), and the units that hold no bytes in
 * the group (zeros, never read). A source that fails is dropped and its spare takes over.
 */
final class Sources {
  private final Map<Integer, Deque<DatanodeInfo>> byUnit = new TreeMap<>();
  private final int[] empty;

  private Sources(int[] empty) {
    this.empty = empty;
  }

  /** The order's live sources of units that are neither lost nor empty. */
  static Sources of(RebuildGroup group) {
    Sources s = new Sources(group.emptyUnits());
    ReconstructionOrder order = group.order();
    int n = group.spec().n();
    for (int i = 0; i < order.liveIndices().length; i++) {
      int unit = order.liveIndices()[i];
      if (unit >= 0 && unit < n && !group.isLost(unit)) {
        s.byUnit.computeIfAbsent(unit, u -> new ArrayDeque<>()).add(order.sources()[i]);
      }
    }
    for (int u : s.empty) {
      s.byUnit.remove(u);
    }
    return s;
  }

  /** Units that hold no bytes in this group (sorted). */
  int[] emptyUnits() {
    return empty.clone();
  }

  boolean has(int unit) {
    Deque<DatanodeInfo> d = byUnit.get(unit);
    return d != null && !d.isEmpty();
  }

  /** The source read for {@code unit}, null when it has none. */
  DatanodeInfo first(int unit) {
    Deque<DatanodeInfo> d = byUnit.get(unit);
    return d == null ? null : d.peekFirst();
  }

  /** Drops the source read for {@code unit}, whose spare (if any) takes over; returns it, null when unit had none. */
  DatanodeInfo drop(int unit) {
    Deque<DatanodeInfo> d = byUnit.get(unit);
    if (d == null) {
      return null;
    }
    DatanodeInfo gone = d.pollFirst();
    if (d.isEmpty()) {
      byUnit.remove(unit);
    }
    return gone;
  }

  /** The units with a source, sorted. */
  int[] withSource() {
    return byUnit.keySet().stream().mapToInt(Integer::intValue).toArray();
  }

  /** The units a repair may use: every one with a source, and those that hold no bytes (zeros), sorted. */
  int[] available() {
    TreeSet<Integer> avail = new TreeSet<>(byUnit.keySet());
    for (int u : empty) {
      avail.add(u);
    }
    return avail.stream().mapToInt(Integer::intValue).toArray();
  }

  /**
   * Per unit of an n-unit code, the cost of a byte from its first source; 0 for units with none
   * (zeros, or lost: no read set reads them, and no plan gives them traffic but the requestor).
   */
  double[] costs(NodeCosts costs, int n) {
    double[] cost = new double[n];
    byUnit.forEach((u, d) -> cost[u] = d.isEmpty() ? 0 : costs.of(d.peekFirst()));
    return cost;
  }

  /** The sources by unit, as the agents' load probes take them (do not change it). */
  Map<Integer, Deque<DatanodeInfo>> asMap() {
    return byUnit;
  }
}
