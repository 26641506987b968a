package io.ecrepair.hdfs.transfer;

import java.io.Closeable;
import java.io.IOException;
import java.util.List;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.util.DataChecksum;

/** Byte ranges of one helper's internal block, checksums verified, from wherever they are served. */
public interface RangeSource extends Closeable {
  /** Reads every range {offset, length} (sorted, disjoint, inside the block) and hands the bytes to {@code sink} in order. */
  void read(List<long[]> ranges, BlockRangeReader.Sink sink) throws IOException, InterruptedException;

  /** The checksum of the helper's block, once an answer arrived (null before). */
  DataChecksum checksum();

  DatanodeInfo source();

  /** Ends the read; a read in progress fails. */
  @Override
  void close();
}
