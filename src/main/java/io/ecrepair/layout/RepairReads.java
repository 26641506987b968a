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

  /** Bytes {@code repair} reads to rebuild its lost blocks of the group. */
  public static long planned(GroupLayout layout, CellRowRepair repair) {
    int[] lost = repair.lost();
    long total = 0;
    for (int r = 0; r < layout.rows(); r++) {
      if (!holdsBytes(layout, r, lost)) {
        continue;
      }
      int codingLength = layout.codingLength(r);
      for (int unit : repair.helpers()) {
        int stored = layout.cellLength(r, unit);
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
  public static long stock(GroupLayout layout, int[] lost, int[] available) {
    int[] sources = Arrays.stream(available).sorted().limit(layout.dataUnits()).toArray();
    if (sources.length < layout.dataUnits()) {
      throw new IllegalArgumentException("fewer than k = " + layout.dataUnits() + " units available: "
          + Arrays.toString(available));
    }
    long total = 0;
    for (int r = 0; r < layout.rows(); r++) {
      if (!holdsBytes(layout, r, lost)) {
        continue;
      }
      for (int unit : sources) {
        total += layout.cellLength(r, unit);
      }
    }
    return total;
  }

  /** Bytes the lost blocks hold: what a repair writes. */
  public static long lostBytes(GroupLayout layout, int[] lost) {
    long total = 0;
    for (int unit : lost) {
      total += layout.blockLength(unit);
    }
    return total;
  }

  /** Whether some of {@code units} holds bytes in row {@code row} (else the row needs no repair). */
  public static boolean holdsBytes(GroupLayout layout, int row, int[] units) {
    for (int unit : units) {
      if (layout.cellLength(row, unit) > 0) {
        return true;
      }
    }
    return false;
  }
}
