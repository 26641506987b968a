package io.ecrepair.hdfs.namenode;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The best possible spread of lost blocks over rebuild targets: the least T such that every
 * lost block can go to one of its eligible nodes with no node getting more than T (exact, by
 * bipartite matching of blocks to T slots per node; for test-sized inputs).
 */
final class EvenSpread {
  private EvenSpread() {}

  static int optimum(List<? extends Collection<String>> eligible) {
    Set<String> nodes = new LinkedHashSet<>();
    eligible.forEach(nodes::addAll);
    if (eligible.isEmpty()) {
      return 0;
    }
    for (int t = Math.max(1, (eligible.size() + nodes.size() - 1) / nodes.size()); ; t++) {
      if (fits(eligible, t)) {
        return t;
      }
      if (t > eligible.size()) {
        throw new IllegalArgumentException("some lost block has no eligible node: " + eligible);
      }
    }
  }

  private static boolean fits(List<? extends Collection<String>> eligible, int t) {
    Map<String, List<Integer>> slots = new HashMap<>(); // node -> blocks it holds
    for (int b = 0; b < eligible.size(); b++) {
      if (!augment(b, eligible, t, slots, new java.util.HashSet<>())) {
        return false;
      }
    }
    return true;
  }

  /** Kuhn's augmenting path: place block b, moving already placed blocks if that frees room. */
  private static boolean augment(int b, List<? extends Collection<String>> eligible, int t,
                                 Map<String, List<Integer>> slots, Set<String> visited) {
    for (String n : eligible.get(b)) {
      if (!visited.add(n)) {
        continue;
      }
      List<Integer> held = slots.computeIfAbsent(n, k -> new ArrayList<>());
      if (held.size() < t) {
        held.add(b);
        return true;
      }
      for (int i = 0; i < held.size(); i++) {
        int other = held.get(i);
        if (augment(other, eligible, t, slots, visited)) {
          held.set(i, b);
          return true;
        }
      }
    }
    return false;
  }
}
