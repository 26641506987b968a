package io.ecrepair.layout;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class GroupLayoutTest {
  private static final int CELL = 64;

  @Test
  void aGroupsLayoutGivesTheLengthsOfAnyLargerBlockSize() {
    StripedLayout large = new StripedLayout(6, 3, CELL, 1000L * CELL);
    for (long length : new long[] {0, 1, CELL, 6L * CELL, 6L * CELL + 1, 17L * CELL + 5, 60L * CELL}) {
      GroupLayout g = GroupLayout.of(6, 3, CELL, length);
      assertEquals(large.rowCount(length), g.rows(), "rows of " + length);
      assertEquals(length / (6L * CELL), g.fullRows(), "full rows of " + length);
      for (int u = 0; u < 9; u++) {
        assertEquals(large.internalBlockLength(length, u), g.blockLength(u), "unit " + u + " of " + length);
        for (int r = 0; r < g.rows(); r++) {
          assertEquals(large.cellLength(length, r, u), g.cellLength(r, u));
          assertEquals(large.codingLength(length, r), g.codingLength(r));
          assertEquals(large.rowLength(length, r), g.rowLength(r));
        }
      }
      assertEquals(g.blockLength(0), g.longestBlock(new int[] {0, 5}), "data unit 0 is the longest");
    }
  }
}
