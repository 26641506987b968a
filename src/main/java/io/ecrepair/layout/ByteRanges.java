package io.ecrepair.layout;

import java.util.ArrayList;
import java.util.List;

/** Byte ranges read from one file, merged where they touch: what a repair reports per helper. */
public final class ByteRanges {
  private final List<long[]> ranges = new ArrayList<>();
  private long total;

  /** Records [offset, offset + length); ranges arrive in increasing offset order. */
  public void add(long offset, long length) {
    if (length <= 0) {
      return;
    }
    total += length;
    if (!ranges.isEmpty()) {
      long[] last = ranges.get(ranges.size() - 1);
      if (last[0] + last[1] == offset) {
        last[1] += length;
        return;
      }
    }
    ranges.add(new long[] {offset, length});
  }

  /** [[offset, length], ...] */
  public List<long[]> ranges() {
    return ranges;
  }

  public long total() {
    return total;
  }

  /**
   * Ranges {offset, length} in any order as one sorted list, those that overlap or touch merged
   * (new arrays: {@code ranges} is left as it was).
   */
  public static List<int[]> merged(List<int[]> ranges) {
    List<int[]> sorted = new ArrayList<>(ranges);
    sorted.sort((x, y) -> Integer.compare(x[0], y[0]));
    List<int[]> out = new ArrayList<>();
    for (int[] r : sorted) {
      int[] last = out.isEmpty() ? null : out.get(out.size() - 1);
      if (last != null && r[0] <= last[0] + last[1]) {
        last[1] = Math.max(last[1], r[0] + r[1] - last[0]);
      } else {
        out.add(new int[] {r[0], r[1]});
      }
    }
    return out;
  }
}
