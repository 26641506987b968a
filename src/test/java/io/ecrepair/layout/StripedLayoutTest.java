package io.ecrepair.layout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.apache.hadoop.hdfs.util.StripedBlockUtil;
import org.junit.jupiter.api.Test;

class StripedLayoutTest {

  @Test
  void internalBlockLengthsMatchHdfs() {
    int[][] shapes = {{6, 3, 1024 * 1024}, {3, 2, 64 * 1024}, {10, 4, 1024}};
    for (int[] s : shapes) {
      int k = s[0];
      int cell = s[2];
      StripedLayout layout = new StripedLayout(k, s[1], cell, 4L * cell);
      long[] sizes = {1, cell - 1, cell, cell + 1, (long) k * cell - 1, (long) k * cell, (long) k * cell + 1,
          3L * k * cell + 5 * cell / 2, layout.groupCapacity() - 1, layout.groupCapacity()};
      for (long size : sizes) {
        for (int i = 0; i < k + s[1]; i++) {
          assertEquals(StripedBlockUtil.getInternalBlockLength(size, cell, k, i), layout.internalBlockLength(size, i),
              "k=" + k + " cell=" + cell + " group bytes=" + size + " index " + i);
        }
      }
    }
  }

  @Test
  void cellsOfARowAddUpAndParityIsTheCodingLength() {
    StripedLayout layout = new StripedLayout(4, 2, 1024, 8 * 1024);
    long groupLength = 4 * 1024 * 3 + 1500; // three full rows, then 1500 bytes
    assertEquals(4, layout.rowCount(groupLength));
    assertEquals(1024, layout.codingLength(groupLength, 3));
    assertEquals(1024, layout.cellLength(groupLength, 3, 0));
    assertEquals(476, layout.cellLength(groupLength, 3, 1));
    assertEquals(0, layout.cellLength(groupLength, 3, 2));
    assertEquals(1024, layout.cellLength(groupLength, 3, 5));
    long tiny = 100;
    assertEquals(100, layout.codingLength(tiny, 0));
    assertEquals(100, layout.cellLength(tiny, 0, 4));
    assertEquals(0, layout.cellLength(tiny, 0, 1));
  }

  @Test
  void groupsSplitTheFile() {
    StripedLayout layout = new StripedLayout(3, 2, 1024, 2048);
    assertEquals(0, layout.groupCount(0));
    assertEquals(1, layout.groupCount(6144));
    assertEquals(2, layout.groupCount(6145));
    assertEquals(1, layout.groupLength(6145, 1));
    assertEquals(6144 + 1024, layout.fileOffset(1, 0, 1));
  }

  @Test
  void blockSizeMustHoldWholeCells() {
    assertThrows(IllegalArgumentException.class, () -> new StripedLayout(3, 2, 1024, 1500));
  }

  @Test
  void policyNamesParseAndCheckHdfsLimits() {
    Policy p = Policy.parse("RS-6-3-1024k");
    assertEquals("rs", p.code().codec());
    assertEquals(6, p.code().k());
    assertEquals(3, p.code().m());
    assertEquals(1024 * 1024, p.cellSize());
    assertEquals("RS-6-3-1024k", p.name());
    assertEquals("RS-3-2-64k", Policy.parse("rs-3-2-64k").name());
    assertThrows(IllegalArgumentException.class, () -> Policy.parse("RS-12-5-1024k"));
    assertThrows(IllegalArgumentException.class, () -> Policy.parse("XYZ-6-3-1024k"));
    assertThrows(IllegalArgumentException.class, () -> Policy.parse("RS-6-3"));
    assertThrows(IllegalArgumentException.class, () -> Policy.parse("RS-6-3-1024"));
    assertThrows(IllegalArgumentException.class, () -> Policy.parse("RS-6-3-8192k"));
    assertThrows(IllegalArgumentException.class, () -> Policy.parse("RS-x-3-1024k"));
    assertThrows(IllegalArgumentException.class, () -> p.withCellSize(1000));
  }
}
