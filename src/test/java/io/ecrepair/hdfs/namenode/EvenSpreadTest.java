package io.ecrepair.hdfs.namenode;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The test bound itself: the exact optimum of a spread under eligibility constraints. */
class EvenSpreadTest {
  @Test
  void optimumFollowsTheConstraints() {
    assertEquals(0, EvenSpread.optimum(List.of()));
    assertEquals(1, EvenSpread.optimum(List.of(Set.of("a", "b"), Set.of("a"))), "needs the first moved to b");
    assertEquals(2, EvenSpread.optimum(List.of(Set.of("a", "b"), Set.of("a", "b"), Set.of("a", "b"))));
    // ceil(4 / 2) = 2, but three blocks can only go to a
    assertEquals(3, EvenSpread.optimum(List.of(Set.of("a"), Set.of("a"), Set.of("a"), Set.of("a", "b"))));
    assertEquals(2, EvenSpread.optimum(List.of(Set.of("a", "b"), Set.of("a", "c"), Set.of("b", "c"),
        Set.of("a", "b"), Set.of("c"), Set.of("c"))));
  }
}
