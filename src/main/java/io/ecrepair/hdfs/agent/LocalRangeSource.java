package io.ecrepair.hdfs.agent;

import io.ecrepair.hdfs.transfer.BlockRangeReader;
import io.ecrepair.hdfs.transfer.RangeListener;
import io.ecrepair.hdfs.transfer.RangeSource;
import java.io.IOException;
import java.util.List;
import org.apache.hadoop.fs.ChecksumException;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.util.DataChecksum;

/**
 * Ranges of this DataNode's own replica, read straight from its files (one pass, strictly
 * forward, however many ranges) with every chunk verified against its stored checksum: how a
 * repair agent reads the sub-chunks its part of a plan needs.
 */
final class LocalRangeSource implements RangeSource {
  private final LocalRangeServer files;
  private final DatanodeInfo self;
  private final ExtendedBlock block;
  private final RangeListener listener;
  private final java.util.function.Consumer<ExtendedBlock> onCorrupt;
  private volatile DataChecksum checksum;
  private volatile boolean closed;

  /** {@code onCorrupt} hears of the replica when its bytes fail their stored checksums. */
  LocalRangeSource(LocalRangeServer files, DatanodeInfo self, ExtendedBlock block, RangeListener listener,
                   java.util.function.Consumer<ExtendedBlock> onCorrupt) {
    this.onCorrupt = onCorrupt;
    this.files = files;
    this.self = self;
    this.block = block;
    this.listener = listener;
  }

  @Override
  public void read(List<long[]> ranges, BlockRangeReader.Sink sink) throws IOException, InterruptedException {
    if (ranges.isEmpty()) {
      return;
    }
    String name = "the local replica of " + block;
    RangeDelivery delivery = new RangeDelivery(ranges, sink, listener, name);
    try {
      files.read(block, ranges, new LocalRangeServer.Chunks() {
        @Override
        public void begin(DataChecksum cs) {
          checksum = cs;
        }

        @Override
        public void chunks(long offset, byte[] bytes, int len, byte[] sums, int sumLen)
            throws IOException, InterruptedException {
          if (closed) {
            throw new IOException("reading " + name + ": closed");
          }
          delivery.piece(checksum, offset, bytes, len, sums, sumLen);
        }
      });
    } catch (ChecksumException e) {
      onCorrupt.accept(block);
      throw e;
    }
    delivery.finish();
  }

  @Override
  public DataChecksum checksum() {
    return checksum;
  }

  @Override
  public DatanodeInfo source() {
    return self;
  }

  @Override
  public void close() {
    closed = true;
  }
}
