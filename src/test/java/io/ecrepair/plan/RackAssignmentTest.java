package io.ecrepair.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RackAssignmentTest {
  private static final Comparator<String> BY_NAME = Comparator.naturalOrder();

  @Test
  void partialRacksGetTheRackWithADataNodeToSpare() {
    // LRC(12,2,2) on 6 racks of 17 DataNodes: 3,3,3,3 then the local parities {12,13}, then {14,15}.
    Map<String, Integer> capacity = Map.of("a", 3, "b", 3, "c", 3, "d", 3, "e", 3, "f", 2);
    List<String> racks = RackAssignment.assign(new int[] {3, 3, 3, 3, 2, 2}, capacity, BY_NAME).orElseThrow();
    assertEquals(List.of("a", "b", "c", "d", "e", "f"), racks, "the 2-node rack is left for the last pair");
  }

  @Test
  void aRackShortOfNodesForTheMomentIsPlannedAround() {
    // The case a benchmark run met: one 3-node rack has a DataNode re-registering (2 eligible).
    Map<String, Integer> capacity = Map.of("a", 3, "b", 3, "c", 3, "d", 2, "e", 3, "f", 2);
    List<String> racks = RackAssignment.assign(new int[] {3, 3, 3, 3, 2, 2}, capacity, BY_NAME).orElseThrow();
    assertEquals(List.of("a", "b", "c", "e"), racks.subList(0, 4));
    assertTrue(racks.subList(4, 6).containsAll(List.of("d", "f")));
    // Pairs first, preferring racks with a node to spare: taken greedily, a pair would use a 3-node
    // rack and leave a 3-block rack nowhere; the look-ahead keeps those racks for them.
    Comparator<String> smallFirst = Comparator.comparing((String r) -> !r.equals("d") && !r.equals("f"));
    List<String> again = RackAssignment.assign(new int[] {2, 2, 3, 3, 3, 3}, capacity, smallFirst).orElseThrow();
    assertEquals(List.of("d", "f"), again.subList(0, 2).stream().sorted().toList());
  }

  @Test
  void tooFewEligibleNodesIsEmpty() {
    Map<String, Integer> capacity = Map.of("a", 3, "b", 3, "c", 3, "d", 2, "e", 2, "f", 2);
    assertTrue(RackAssignment.assign(new int[] {3, 3, 3, 3, 2, 2}, capacity, BY_NAME).isEmpty());
  }
}
