package io.ecrepair.layout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.codes.RepairableCode;
import io.ecrepair.plan.CodeRepairs;
import java.util.Random;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.util.StripedBlockUtil;
import org.apache.hadoop.io.erasurecode.ECSchema;
import org.junit.jupiter.api.Test;

class RecoverableStripesTest {
  private static final int CELL = 1024;

  @Test
  void anMdsCodeKeepsWhatHdfsKeeps() {
    // For a code that decodes from any k units the rule is HDFS's own: the stripes k units hold.
    Random random = new Random(3);
    for (int[] km : new int[][] {{6, 3}, {4, 2}, {10, 4}, {3, 2}}) {
      int k = km[0];
      int m = km[1];
      ErasureCodingPolicy rs = new ErasureCodingPolicy(new ECSchema("rs", k, m), CELL);
      for (int trial = 0; trial < 2000; trial++) {
        long[] lengths = new long[k + m];
        for (int u = 0; u < lengths.length; u++) {
          lengths[u] = random.nextInt(4) == 0 ? 0 : random.nextInt(6 * CELL + 1);
        }
        long stripes = RecoverableStripes.count(lengths, CELL, lost -> lost.length <= m);
        assertEquals(StripedBlockUtil.getSafeLength(rs, lengths), stripes * k * CELL,
            "k=" + k + " m=" + m + " lengths " + java.util.Arrays.toString(lengths));
      }
    }
  }

  @Test
  void lrcKeepsOnlyStripesWhoseMissingCellsItCanRebuild() {
    // LRC(4,2,1): local groups {0,1}+4 and {2,3}+5, global parity 6.
    RepairableCode lrc = CodeRepairs.code(new CodeSpec("lrc-l2", 4, 3));
    // A writer died with the packets of 2, 3 and 5 after the first stripe still in flight:
    // four units hold four stripes, but 2 and 3 cannot come back from 4 and 6.
    assertEquals(1, RecoverableStripes.count(cells(4, 4, 1, 1, 4, 1, 4), CELL, lrc::decodable));
    // Two of a local group missing: its local parity and the global one rebuild them.
    assertEquals(4, RecoverableStripes.count(cells(4, 4, 1, 1, 4, 4, 4), CELL, lrc::decodable));
    // One unit of each local group short: each comes back from its own group.
    assertEquals(3, RecoverableStripes.count(cells(2, 3, 3, 1, 3, 3, 3), CELL, lrc::decodable));
    // Nothing a writer left can be rebuilt past what every unit holds.
    assertEquals(0, RecoverableStripes.count(cells(3, 3, 0, 0, 3, 0, 3), CELL, lrc::decodable));
    // Partial cells do not count.
    assertEquals(2, RecoverableStripes.count(new long[] {2 * CELL + 5, 3 * CELL - 1, 2 * CELL, 2 * CELL,
        2 * CELL, 2 * CELL + 1, 2 * CELL}, CELL, lrc::decodable));
  }

  @Test
  void aNegativeLengthIsRefused() {
    assertThrows(IllegalArgumentException.class,
        () -> RecoverableStripes.count(new long[] {CELL, -1, CELL}, CELL, lost -> true));
  }

  private static long[] cells(int... perUnit) {
    long[] lengths = new long[perUnit.length];
    for (int u = 0; u < perUnit.length; u++) {
      lengths[u] = (long) perUnit[u] * CELL;
    }
    return lengths;
  }
}
