package io.ecrepair.hdfs.agent;

import io.ecrepair.hdfs.transfer.BlockRangeReader;
import io.ecrepair.hdfs.transfer.RangeListener;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.hadoop.util.DataChecksum;

/**
 * Hands the requested ranges' bytes of verified, chunk-aligned pieces of a block (an agent's
 * answer frames, or the local replica's chunks) to a sink in order, range by range, and
 * notices a piece that skips a requested byte or an answer that ends early.
 */
final class RangeDelivery {
  private final List<long[]> ranges;
  private final BlockRangeReader.Sink sink;
  private final RangeListener listener;
  private final String name;
  private final int before;
  private int next; // the range being delivered
  private long pos; // its next byte

  RangeDelivery(List<long[]> ranges, BlockRangeReader.Sink sink, RangeListener listener, String name) {
    this(ranges, 0, sink, listener, name);
  }

  /** {@code before}: ranges of the same read delivered before these (the listener counts them all). */
  RangeDelivery(List<long[]> ranges, int before, BlockRangeReader.Sink sink, RangeListener listener, String name) {
    this.ranges = ranges;
    this.before = before;
    this.sink = sink;
    this.listener = listener;
    this.name = name;
    this.pos = ranges.isEmpty() ? 0 : ranges.get(0)[0];
  }

  /**
   * A piece of {@code len} bytes at block offset {@code offset} with the stored checksums of its
   * chunks: verified, then delivered.
   */
  void piece(DataChecksum cs, long offset, byte[] bytes, int len, byte[] sums, int sumLen)
      throws IOException, InterruptedException {
    cs.verifyChunkedSums(ByteBuffer.wrap(bytes, 0, len), ByteBuffer.wrap(sums, 0, sumLen), name, offset);
    piece(offset, bytes, len);
  }

  /** A verified piece of {@code len} bytes at block offset {@code offset}. */
  private void piece(long offset, byte[] bytes, int len) throws IOException, InterruptedException {
    if (next < ranges.size() && offset > pos) {
      throw new IOException("reading " + name + ": a frame at " + offset + " where byte " + pos + " was due");
    }
    long end = offset + len;
    while (next < ranges.size() && pos < end) {
      long[] r = ranges.get(next);
      long to = Math.min(r[0] + r[1], end);
      listener.delivered(to - pos);
      sink.accept(pos, ByteBuffer.wrap(bytes, (int) (pos - offset), (int) (to - pos)).slice());
      pos = to;
      if (to == r[0] + r[1]) {
        next++;
        listener.rangeDone(before + next);
        if (next < ranges.size()) {
          pos = ranges.get(next)[0];
        }
      }
    }
  }

  /** The answer ended: every range must have been delivered. */
  void finish() throws IOException {
    if (next < ranges.size()) {
      throw new IOException("reading " + name + ": the answer ended at byte " + pos + " of range " + next + " of "
          + ranges.size());
    }
  }
}
