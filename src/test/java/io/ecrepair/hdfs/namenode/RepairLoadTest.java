package io.ecrepair.hdfs.namenode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** The load memory and the choice it makes, on a fake clock. */
class RepairLoadTest {
  private final AtomicLong now = new AtomicLong(1_000);

  private RepairLoad load(long windowMillis) {
    return new RepairLoad(windowMillis, now::get);
  }

  @Test
  void countsAssignmentsPerNode() {
    RepairLoad l = load(30_000);
    l.assigned("a");
    l.assigned("a");
    l.assigned("b");
    assertEquals(2, l.recent("a"));
    assertEquals(1, l.recent("b"));
    assertEquals(0, l.recent("c"));
  }

  @Test
  void assignmentsExpireAfterTheWindow() {
    RepairLoad l = load(30_000);
    l.assigned("a");
    now.addAndGet(10_000);
    l.assigned("a");
    now.addAndGet(19_999);
    assertEquals(2, l.recent("a"), "both within 30 s");
    now.addAndGet(1);
    assertEquals(1, l.recent("a"), "the first is 30 s old");
    now.addAndGet(10_000);
    assertEquals(0, l.recent("a"));
  }

  @Test
  void windowZeroRemembersNothing() {
    RepairLoad l = load(0);
    l.assigned("a");
    assertEquals(0, l.recent("a"));
    assertThrows(IllegalArgumentException.class, () -> load(-1));
  }

  @Test
  void picksTheLeastKnownPlusRecentLoad() {
    RepairLoad l = load(30_000);
    Map<String, Integer> known = Map.of("a", 0, "b", 1, "c", 0);
    l.assigned("a");
    l.assigned("a");
    l.assigned("c");
    // a: 0 + 2, b: 1 + 0, c: 0 + 1 -> b or c tie at 1
    Map<String, Integer> picks = picks(l, List.of("a", "b", "c"), known::get, 2_000);
    assertEquals(Set.of("b", "c"), picks.keySet());
    l.assigned("b");
    // a: 2, b: 2, c: 1
    assertEquals(Set.of("c"), picks(l, List.of("a", "b", "c"), known::get, 100).keySet());
    assertNull(l.leastLoaded(List.<String>of(), Function.identity(), s -> 0, new Random(1)));
  }

  @Test
  void tiesAreBrokenAtRandomEvenly() {
    RepairLoad l = load(30_000);
    List<String> nodes = List.of("a", "b", "c", "d");
    Map<String, Integer> picks = picks(l, nodes, s -> 0, 8_000);
    assertEquals(Set.copyOf(nodes), picks.keySet());
    for (int n : picks.values()) {
      assertTrue(n > 1_700 && n < 2_300, "about 2000 picks each: " + picks);
    }
  }

  @Test
  void greedyUseSpreadsABatchEvenly() {
    // As in one redundancy-monitor pass: known loads all 0, only the memory separates nodes.
    RepairLoad l = load(30_000);
    List<String> nodes = List.of("a", "b", "c", "d", "e");
    Random random = new Random(3);
    for (int i = 0; i < 23; i++) {
      l.assigned(l.leastLoaded(nodes, Function.identity(), s -> 0, random));
    }
    for (String n : nodes) {
      int r = l.recent(n);
      assertTrue(r == 4 || r == 5, n + " got " + r + " of 23");
    }
  }

  private static Map<String, Integer> picks(RepairLoad l, List<String> nodes,
                                            java.util.function.ToIntFunction<String> known, int rounds) {
    Random random = new Random(7);
    Map<String, Integer> picks = new HashMap<>();
    for (int i = 0; i < rounds; i++) {
      picks.merge(l.leastLoaded(nodes, Function.identity(), known, random), 1, Integer::sum);
    }
    return picks;
  }
}
