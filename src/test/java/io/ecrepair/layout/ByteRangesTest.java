package io.ecrepair.layout;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ByteRangesTest {
  @Test
  void rangesThatTouchAreOneRead() {
    ByteRanges r = new ByteRanges();
    r.add(0, 10);
    r.add(10, 5);
    r.add(20, 0);
    r.add(30, 2);
    assertEquals(2, r.ranges().size());
    assertArrayEquals(new long[] {0, 15}, r.ranges().get(0));
    assertArrayEquals(new long[] {30, 2}, r.ranges().get(1));
    assertEquals(17, r.total());
  }

  @Test
  void mergedSortsAndJoinsOverlappingAndTouchingRanges() {
    List<int[]> in = new ArrayList<>(List.of(new int[] {50, 2}, new int[] {5, 10}, new int[] {0, 10},
        new int[] {15, 3}, new int[] {30, 5}, new int[] {31, 1}));
    List<int[]> out = ByteRanges.merged(in);
    assertEquals(3, out.size());
    assertArrayEquals(new int[] {0, 18}, out.get(0));
    assertArrayEquals(new int[] {30, 5}, out.get(1));
    assertArrayEquals(new int[] {50, 2}, out.get(2));
    assertArrayEquals(new int[] {50, 2}, in.get(0), "the input is left as it was");
    assertArrayEquals(new int[] {0, 10}, in.get(2));
  }
}
