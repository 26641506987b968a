package io.ecrepair.layout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.codes.RepairableCode;
import io.ecrepair.exec.CellRowRepair;
import io.ecrepair.gf.RegionCoders;
import org.junit.jupiter.api.Test;

class RepairReadsTest {
  private static final int CELL = 64 * 1024;

  @Test
  void aShortGroupReadsOnlyTheRowsWhereTheLostBlockHoldsBytes() {
    // RS(4,2), 4-cell blocks, a group of two full rows and a third of 1.5 cells: data unit 2 holds
    // nothing in the last row, unit 1 half a cell.
    StripedLayout layout = new StripedLayout(4, 2, CELL, 4L * CELL);
    long groupLength = 2L * 4 * CELL + CELL + CELL / 2;
    RepairableCode rs = new CodeSpec("rs", 4, 2).create(RegionCoders.best());
    int[] lost = {2};
    int[] available = {0, 1, 3, 4, 5};
    assertEquals(2L * CELL, RepairReads.lostBytes(new GroupLayout(layout, groupLength), lost));
    assertEquals(2L * 4 * CELL, RepairReads.stock(new GroupLayout(layout, groupLength), lost, available));
    assertEquals(2L * 4 * CELL, RepairReads.planned(new GroupLayout(layout, groupLength), CellRowRepair.plan(rs, lost, available)));
    assertFalse(RepairReads.holdsBytes(new GroupLayout(layout, groupLength), 2, lost));
    assertTrue(RepairReads.holdsBytes(new GroupLayout(layout, groupLength), 2, new int[] {1}));
    // Unit 1 is lost too: the last row is read, HDFS's k sources there being units 0, 3, 4, 5 (3 holds nothing).
    int[] two = {1, 2};
    int[] rest = {0, 3, 4, 5};
    assertEquals(2L * 4 * CELL + 3L * CELL, RepairReads.stock(new GroupLayout(layout, groupLength), two, rest));
    assertEquals(2L * 4 * CELL + 3L * CELL, RepairReads.planned(new GroupLayout(layout, groupLength), CellRowRepair.plan(rs, two, rest)));
  }

  @Test
  void clayReadsItsRepairSubchunksAndHdfsReadsKBlocks() {
    StripedLayout layout = new StripedLayout(10, 4, CELL, 2L * CELL);
    long groupLength = 10L * 2 * CELL;
    RepairableCode clay = new CodeSpec("clay", 10, 4).create(RegionCoders.best());
    int[] lost = {0};
    int[] available = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};
    long block = 2L * CELL;
    // d = 13 helpers each send 1/q = 1/4 of their block: 3.25 blocks, where HDFS reads 10.
    assertEquals(13 * block / 4, RepairReads.planned(new GroupLayout(layout, groupLength), CellRowRepair.plan(clay, lost, available)));
    assertEquals(10 * block, RepairReads.stock(new GroupLayout(layout, groupLength), lost, available));
  }

  @Test
  void fewerThanKAvailableIsRefused() {
    StripedLayout layout = new StripedLayout(4, 2, CELL, 4L * CELL);
    assertThrows(IllegalArgumentException.class,
        () -> RepairReads.stock(new GroupLayout(layout, 4L * 4 * CELL), new int[] {0, 1, 2}, new int[] {3, 4, 5}));
  }
}
