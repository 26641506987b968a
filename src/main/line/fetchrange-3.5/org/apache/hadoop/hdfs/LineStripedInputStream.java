package org.apache.hadoop.hdfs;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hdfs.DFSUtilClient.CorruptedBlocks;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlocks;

/**
 * HDFS's striped input stream with its positional-read hook as Hadoop 3.5 declares it: it also
 * takes the map in which the stream collects each DataNode's failures (HDFS-17332), which only
 * HDFS's own read fills.
 */
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
                                     CorruptedBlocks corruptedBlocks,
                                     Map<InetSocketAddress, List<IOException>> exceptionMap) throws IOException {
    fetchRange(block, start, end, buf,
        () -> super.fetchBlockByteRange(block, start, end, buf, corruptedBlocks, exceptionMap));
  }
}
