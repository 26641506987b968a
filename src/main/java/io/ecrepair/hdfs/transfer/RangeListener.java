package io.ecrepair.hdfs.transfer;

import java.io.IOException;

/** What a {@link BlockRangeReader}'s owner learns as bytes arrive: counting, throttling, fault injection. */
public interface RangeListener {
  /** {@code bytes} more were delivered to the sink (may block to throttle). */
  void delivered(long bytes);

  /** The first {@code rangesDone} ranges are complete; may throw to fail the read there (tests). */
  default void rangeDone(int rangesDone) throws IOException {
  }
}
