package io.ecrepair.hdfs.task;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.codes.RepairableCode;
import io.ecrepair.exec.CellRowRepair;
import io.ecrepair.gf.Buffers;
import io.ecrepair.gf.RegionCoders;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The per-row repair the DataNode task runs: which bytes it reads, and that it rebuilds the cell. */
class CellRowRepairTest {

  @Test
  void clayReadsItsSubchunkRunsAndTheTailFromKHelpers() {
    RepairableCode code = new CodeSpec("clay", 5, 3).create(RegionCoders.best());
    CellRowRepair r = CellRowRepair.plan(code, new int[] {0}, new int[] {1, 2, 3, 4, 5, 6, 7});
    int length = 64 * 1024; // alpha 27: sub-chunks of 2427 bytes and a 7-byte tail
    assertArrayEquals(new int[] {1, 2, 3, 4, 5, 6, 7}, r.helpers());
    long total = 0;
    for (int h : r.helpers()) {
      List<int[]> ranges = r.ranges(h, length);
      int last = -1;
      for (int[] range : ranges) {
        assertTrue(range[0] > last, "sorted and not touching");
        last = range[0] + range[1];
        total += range[1];
      }
    }
    // 7 helpers x 9 of 27 sub-chunks, plus the tail from k = 5 of them.
    assertEquals(7L * 9 * 2427 + 5 * 7, total);
    assertEquals(total, r.bytesPerRow(length));
  }

  @Test
  void rebuildsTheLostCellFromOnlyTheRangesItNames() {
    RepairableCode code = new CodeSpec("butterfly", 4, 2).create(RegionCoders.best());
    int length = 10_000; // not a multiple of alpha = 8: a tail too
    ByteBuffer[] units = new ByteBuffer[6];
    Random rnd = new Random(4);
    for (int u = 0; u < 6; u++) {
      units[u] = Buffers.alignedDirect(length);
    }
    for (int u = 0; u < 4; u++) {
      byte[] b = new byte[length];
      rnd.nextBytes(b);
      units[u].put(0, b);
    }
    code.encode(new ByteBuffer[] {units[0], units[1], units[2], units[3]}, new int[4],
        new ByteBuffer[] {units[4], units[5]}, new int[2], length);
    CellRowRepair r = CellRowRepair.plan(code, new int[] {2}, new int[] {0, 1, 3, 4, 5});
    // Hand the repair only the named ranges: everything else is garbage.
    ByteBuffer[] cells = new ByteBuffer[6];
    for (int h : r.helpers()) {
      cells[h] = Buffers.alignedDirect(length);
      for (int i = 0; i < length; i++) {
        cells[h].put(i, (byte) 0x5a);
      }
      for (int[] range : r.ranges(h, length)) {
        cells[h].put(range[0], units[h], range[0], range[1]);
      }
    }
    ByteBuffer out = Buffers.alignedDirect(length);
    r.run(RegionCoders.best(), cells, new ByteBuffer[] {out}, length);
    assertEquals(0, out.slice(0, length).compareTo(units[2].slice(0, length)));
    assertTrue(r.bytesPerRow(length) < 4L * length, "reads less than k cells: " + r.bytesPerRow(length));

    // The tail alone (what a parallel plan leaves to the coordinator), from the tail helpers'
    // tail bytes only, each at offset 0.
    int tailOffset = 8 * (length / 8);
    int tail = length - tailOffset;
    ByteBuffer[] tails = new ByteBuffer[6];
    for (int h : r.tailHelpers()) {
      tails[h] = ByteBuffer.allocate(tail).put(0, units[h], tailOffset, tail);
    }
    ByteBuffer tailOut = ByteBuffer.allocate(tail);
    r.runTail(RegionCoders.best(), tails, new ByteBuffer[] {tailOut}, length);
    assertEquals(0, tailOut.compareTo(units[2].slice(tailOffset, tail)));
    assertEquals(4, r.tailHelpers().length, "the tail is a decode from k helpers");
  }

  @Test
  void unionMergesOverlappingRanges() {
    List<int[]> u = CentralRepair.union(List.of(new int[] {0, 10}, new int[] {30, 5}),
        List.of(new int[] {5, 10}, new int[] {35, 1}, new int[] {50, 2}));
    assertEquals(3, u.size());
    assertArrayEquals(new int[] {0, 15}, u.get(0));
    assertArrayEquals(new int[] {30, 6}, u.get(1));
    assertArrayEquals(new int[] {50, 2}, u.get(2));
  }
}
