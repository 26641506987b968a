package io.ecrepair.layout;

import java.util.Arrays;
import java.util.function.Predicate;
import java.util.stream.IntStream;

/**
 * How much of a block group a writer that died left recoverable. Each unit holds one cell per
 * stripe, and a stripe's parity cells are written only once its data cells are all known, so
 * stripe s can be kept when the units holding at least s whole cells determine the rest.
 * HDFS's lease recovery keeps every stripe that k units hold, which is right for an MDS code;
 * for a code that does not decode from every k units (LRC), a unit set left by a killed writer
 * can hold k cells of a stripe and still not determine its lost data cells, and a group
 * committed at that length can never be rebuilt.
 */
public final class RecoverableStripes {
  private RecoverableStripes() {}

  /**
   * The number of whole stripes that can be kept.
   *
   * @param unitLengths replica length of each unit (index = unit; 0 where none survived)
   * @param decodable whether the listed units (sorted) can be rebuilt from all the others
   */
  public static long count(long[] unitLengths, int cellSize, Predicate<int[]> decodable) {
    long[] cells = new long[unitLengths.length];
    for (int u = 0; u < cells.length; u++) {
      if (unitLengths[u] < 0) {
        throw new IllegalArgumentException("unit " + u + " has length " + unitLengths[u]);
      }
      cells[u] = unitLengths[u] / cellSize;
    }
    // Only a unit's own cell count can be the answer: between two such counts the set of
    // units short of the stripe does not change. Try them from the longest down.
    long[] candidates = Arrays.stream(cells).distinct().sorted().toArray();
    for (int i = candidates.length - 1; i >= 0; i--) {
      long stripes = candidates[i];
      int[] shortUnits = IntStream.range(0, cells.length).filter(u -> cells[u] < stripes).toArray();
      if (decodable.test(shortUnits)) {
        return stripes;
      }
    }
    return 0;
  }
}
