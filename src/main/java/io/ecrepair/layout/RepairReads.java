package io.ecrepair.layout;

import io.ecrepair.exec.CellRowRepair;
import io.ecrepair.exec.RowLoop;
import java.util.Arrays;

/**
 * What rebuilding lost internal blocks of one block group reads, in bytes, worked out from the
 * layout alone (nothing is read): our repair reads what its {@link CellRowRepair} names from
 * each helper's stored cells; HDFS's own reconstruction reads the stored cells of k source
 * blocks (DataNode {@code StripedReader}: units holding no bytes count as zeros and are not read).
 * Only rows where some lost block holds bytes are read.
 */
public final class RepairReads {
  private RepairReads() {}

  /** Bytes {@code repair} reads to rebuild its lost blocks of a group of {@code groupLength} data bytes. */
  public static long planned(StripedLayout layout, long groupLength, CellRowRepair repair) {
    int[] lost = repair.lost();
    long total = 0;
    for (int r = 0; r < layout.rowCount(groupLength); r++) {
      if (!holdsBytes(layout, groupLength, r, lost)) {
        continue;
      }
      int codingLength = layout.codingLength(groupLength, r);
      for (int unit : repair.helpers()) {
        int stored = layout.cellLength(groupLength, r, unit);
        for (long[] range : RowLoop.storedRanges(repair.ranges(unit, codingLength), 0, stored)) {
          total += range[1];
        }
      }
    }
    return total;
  }

  /**
   * Bytes HDFS's reconstruction reads for the same loss: the stored cells of the first k
   * available units (data units first, as the NameNode lists sources), those holding no bytes
   * standing in as zeros.
   */
  public static long stock(StripedLayout layout, long groupLength, int[] lost, int[] available) {
    int[] sources = Arrays.stream(available).sorted().limit(layout.dataUnits()).toArray();
    if (sources.length < layout.dataUnits()) {
      throw new IllegalArgumentException("fewer than k = " + layout.dataUnits() + " units available: "
          + Arrays.toString(available));
    }
    long total = 0;
    for (int r = 0; r < layout.rowCount(groupLength); r++) {
      if (!holdsBytes(layout, groupLength, r, lost)) {
        continue;
      }
      for (int unit : sources) {
        total += layout.cellLength(groupLength, r, unit);
      }
    }
    return total;
  }

  /** Bytes the lost blocks hold: what a repair writes. */
  public static long lostBytes(StripedLayout layout, long groupLength, int[] lost) {
    long total = 0;
    for (int unit : lost) {
      total += layout.internalBlockLength(groupLength, unit);
    }
    return total;
  }

  /** Whether some of {@code units} holds bytes in row {@code row} (else the row needs no repair). */
  public static boolean holdsBytes(StripedLayout layout, long groupLength, int row, int[] units) {
    for (int unit : units) {
      if (layout.cellLength(groupLength, row, unit) > 0) {
        return true;
      }
    }
    return false;
  }
}
