package io.ecrepair.hdfs.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ecrepair.plan.Traffic;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A DataNode's tasks that choose plans at the same moment see one another's choices. */
class RecentChoicesTest {
  // Unit 0 is the requestor (1 sub-chunk in every plan); plan 0 has helper 1 compute (2 in),
  // plan 1 helper 2, plan 2 (central) has the requestor take 4.
  private static final List<Traffic> PLANS = List.of(
      new Traffic(new int[] {1, 2, 0}, new int[] {0, 1, 2}),
      new Traffic(new int[] {1, 0, 2}, new int[] {0, 2, 1}),
      new Traffic(new int[] {4, 0, 0}, new int[] {0, 2, 2}));
  private static final long UNIT = 1000;

  @Test
  void aSecondTaskOfTheSameMomentAvoidsTheFirstsHelpers() {
    RecentChoices recent = new RecentChoices();
    long[] idle = {0, 0, 0};
    double[] cost = {1, 1, 1};
    // Two groups whose units 1 and 2 sit on the same two DataNodes, probed idle at the same moment.
    String[] nodes = {"self", "dnA", "dnB"};
    assertEquals(0, recent.choose(PLANS, idle, nodes, cost, UNIT, 0, 1_000));
    assertEquals(2_000, recent.recent("dnA"));
    assertEquals(1_000, recent.recent("self"));
    assertEquals(1, recent.choose(PLANS, idle, nodes, cost, UNIT, 0, 1_010), "the second task takes the other helper");
  }

  @Test
  void aDataNodeCountsUnderWhicheverUnitItHolds() {
    RecentChoices recent = new RecentChoices();
    double[] cost = {1, 1, 1};
    assertEquals(0, recent.choose(PLANS, new long[3], new String[] {"self", "dnA", "dnB"}, cost, UNIT, 0, 1_000));
    // Another group holds its unit 2 on dnA: the plan that has unit 2 compute would load dnA again,
    // so the task takes the other one, though a full tie would have sent it there.
    assertEquals(0, recent.choose(PLANS, new long[3], new String[] {"self", "dnC", "dnA"}, cost, UNIT, 1, 1_010));
    assertEquals(4_000, recent.recent("dnC") + recent.recent("dnA"));
  }

  @Test
  void choicesLapse() {
    RecentChoices recent = new RecentChoices();
    String[] nodes = {"self", "dnA", "dnB"};
    double[] cost = {1, 1, 1};
    recent.choose(PLANS, new long[3], nodes, cost, UNIT, 0, 5_000);
    assertEquals(0, recent.choose(PLANS, new long[3], nodes, cost, UNIT, 0, 5_000 + RecentChoices.LIFETIME_MS),
        "a lapsed choice no longer counts");
    assertEquals(2_000, recent.recent("dnA"));
    // A clock that went back forgets what it cannot place.
    recent.choose(PLANS, new long[3], nodes, cost, UNIT, 1, 100);
    assertEquals(0, recent.recent("dnA"));
  }

  @Test
  void aReceivingUnitNeedsADataNode() {
    assertThrows(IllegalArgumentException.class, () -> new RecentChoices().choose(PLANS, new long[3],
        new String[] {"self", null, "dnB"}, new double[] {1, 1, 1}, UNIT, 0, 0));
  }
}
