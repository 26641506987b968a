package io.ecrepair.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class RepairTheoryTest {
  @Test
  void rsReadsKBlocksForEveryIndex() {
    for (int i = 0; i < 14; i++) {
      assertEquals(10.0, RepairTheory.blocksRead("RS-10-4-1024k", i), 1e-9, "index " + i);
    }
    assertEquals(10.0, RepairTheory.stockBlocksRead("RS-10-4-1024k"));
    assertEquals(12.0, RepairTheory.stockBlocksRead("LRC-L2-12-4-1024k"));
  }

  @Test
  void clay104ReadsThirteenQuartersForEveryIndex() {
    for (int i = 0; i < 14; i++) {
      assertEquals(3.25, RepairTheory.blocksRead("CLAY-10-4-1024k", i), 1e-9, "index " + i);
    }
  }

  @Test
  void lrcLocalRepairReadsTheGroupGlobalParityReadsK() {
    for (int i = 0; i < 12; i++) {
      assertEquals(6.0, RepairTheory.blocksRead("LRC-L2-12-4-1024k", i), 1e-9, "data index " + i);
    }
    // global parities are rebuilt from k blocks
    assertEquals(12.0, RepairTheory.blocksRead("LRC-L2-12-4-1024k", 15), 1e-9);
  }

  @Test
  void butterflyDataBlockReadsHalfOfNMinusOne() {
    assertEquals(5.5, RepairTheory.blocksRead("BUTTERFLY-10-2-4096k", 0), 1e-9);
  }

  @Test
  void rejectsAnIndexOutsideTheGroup() {
    assertThrows(IllegalArgumentException.class, () -> RepairTheory.blocksRead("RS-6-3-1024k", 9));
  }
}
