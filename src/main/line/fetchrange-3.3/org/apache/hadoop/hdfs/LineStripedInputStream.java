package org.apache.hadoop.hdfs;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.hadoop.hdfs.DFSUtilClient.CorruptedBlocks;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlocks;

/** HDFS's striped input stream with its positional-read hook as Hadoop 3.3 and 3.4 declare it. */
abstract class LineStripedInputStream extends DFSStripedInputStream {
  /** HDFS's own positional read of the range, as the stream would have done it. */
  interface StockRange {
    void read() throws IOException;
  }

  LineStripedInputStream(DFSClient client, String src, boolean verifyChecksum, ErasureCodingPolicy policy,
                         LocatedBlocks blocks) throws IOException {
    super(client, src, verifyChecksum, policy, blocks);
  }

  /** Reads bytes [start, end] of the block group into {@code buf}; {@code stock} is HDFS's way. */
  abstract void fetchRange(LocatedBlock block, long start, long end, ByteBuffer buf, StockRange stock)
      throws IOException;

  @Override
  protected void fetchBlockByteRange(LocatedBlock block, long start, long end, ByteBuffer buf,
                                     CorruptedBlocks corruptedBlocks) throws IOException {
    fetchRange(block, start, end, buf, () -> super.fetchBlockByteRange(block, start, end, buf, corruptedBlocks));
  }
}
