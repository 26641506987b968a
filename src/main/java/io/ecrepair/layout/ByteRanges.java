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
}
