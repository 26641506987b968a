package io.ecrepair.hdfs.agent;

import io.ecrepair.hdfs.transfer.RepairBudget;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.server.common.HdfsServerConstants.ReplicaState;
import org.apache.hadoop.hdfs.server.datanode.BlockMetadataHeader;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.FsDatasetSpi;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.FsVolumeReference;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.FsVolumeSpi;
import org.apache.hadoop.io.IOUtils;
import org.apache.hadoop.util.DataChecksum;

/**
 * Answers a {@link RangeRequest} from this DataNode's own replica: the finalized replica of
 * exactly the requested generation and length, its bytes and their stored checksums (the
 * requestor verifies them, as it verifies HDFS's block reads), read strictly forward while a
 * reference keeps the volume from being removed.
 */
final class LocalRangeServer {
  /** Bytes of data per frame (whole chunks, at least one, whatever chunk size the replica was written with). */
  private static final int FRAME_BYTES = 64 * 1024;

  private final DataNode datanode;

  LocalRangeServer(DataNode datanode) {
    this.datanode = datanode;
  }

  /** Takes the replica's bytes chunk-aligned, with their stored checksums. */
  interface Chunks {
    /** The checksum of the replica, before any chunk. */
    void begin(DataChecksum checksum) throws IOException;

    /** {@code len} bytes at {@code offset} (whole chunks) and their {@code sumLen} bytes of checksums. */
    void chunks(long offset, byte[] bytes, int len, byte[] sums, int sumLen) throws IOException, InterruptedException;
  }

  /**
   * Streams the answer, every chunk sent under {@code budget} (a range request is always a
   * repair's); an IOException before or while streaming is the caller's to report.
   */
  void serve(RangeRequest req, DataOutputStream out, RepairBudget budget) throws IOException {
    try {
      read(req.block(), req.ranges(), new Chunks() {
        @Override
        public void begin(DataChecksum cs) throws IOException {
          out.writeInt(RangeRequest.OK);
          out.writeByte(cs.getChecksumType().id);
          out.writeInt(cs.getBytesPerChecksum());
        }

        @Override
        public void chunks(long offset, byte[] bytes, int len, byte[] sums, int sumLen) throws IOException {
          budget.sending(len + sumLen);
          out.writeInt(len);
          out.writeLong(offset);
          out.write(sums, 0, sumLen);
          out.write(bytes, 0, len);
        }
      });
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted serving " + req.block());
    }
    out.writeInt(RangeRequest.END);
    out.flush();
  }

  /** A finalized replica here: its length, and the checksum it is stored with. */
  record Replica(long length, DataChecksum checksum) {
    /** The memory reading it takes: a frame of whole chunks and their checksums. */
    long readBufferBytes() {
      int bpc = checksum.getBytesPerChecksum();
      int chunks = Math.max(1, FRAME_BYTES / bpc);
      return (long) chunks * (bpc + checksum.getChecksumSize());
    }
  }

  /**
   * This DataNode's finalized replica of exactly {@code block}'s generation and length, or an
   * IOException when it holds no such replica.
   */
  Replica replica(ExtendedBlock block) throws IOException {
    return new Replica(finalizedLength(block), checksumOf(block));
  }

  private long finalizedLength(ExtendedBlock block) throws IOException {
    // Looked up per request: the plugin starts the agent before the DataNode has its dataset.
    FsDatasetSpi<?> dataset = datanode.getFSDataset();
    if (dataset == null) {
      throw new IOException("the DataNode's storage is not ready");
    }
    org.apache.hadoop.hdfs.server.datanode.Replica replica = dataset.getReplica(block.getBlockPoolId(),
        block.getBlockId());
    if (replica == null) {
      throw new IOException("no replica of " + block);
    }
    if (replica.getState() != ReplicaState.FINALIZED || replica.getGenerationStamp() != block.getGenerationStamp()
        || replica.getNumBytes() != block.getNumBytes()) {
      throw new IOException("the replica of " + block + " is " + replica.getState() + " with generation stamp "
          + replica.getGenerationStamp() + " and " + replica.getNumBytes() + " bytes");
    }
    return replica.getNumBytes();
  }

  /** The checksum (type and chunk size) this DataNode's replica of {@code block} is stored with. */
  DataChecksum checksumOf(ExtendedBlock block) throws IOException {
    FsDatasetSpi<?> dataset = datanode.getFSDataset();
    if (dataset == null) {
      throw new IOException("the DataNode's storage is not ready");
    }
    try (DataInputStream meta = new DataInputStream(dataset.getMetaDataInputStream(block))) {
      return BlockMetadataHeader.readHeader(meta).getChecksum();
    }
  }

  /**
   * Reads the whole checksum chunks covering {@code ranges} (sorted, disjoint) of this
   * DataNode's finalized replica of exactly {@code block}'s generation and length, strictly
   * forward, with their stored checksums.
   */
  void read(ExtendedBlock block, List<long[]> ranges, Chunks sink) throws IOException, InterruptedException {
    finalizedLength(block);
    FsDatasetSpi<?> dataset = datanode.getFSDataset();
    FsVolumeSpi volume = dataset.getVolume(block);
    if (volume == null) {
      throw new IOException("no volume holds " + block);
    }
    try (FsVolumeReference ref = volume.obtainReference();
         InputStream data = dataset.getBlockInputStream(block, 0);
         DataInputStream meta = new DataInputStream(new BufferedInputStream(dataset.getMetaDataInputStream(block),
             8 * 1024))) {
      DataChecksum cs = BlockMetadataHeader.readHeader(meta).getChecksum();
      int bpc = cs.getBytesPerChecksum();
      int sumSize = cs.getChecksumSize();
      sink.begin(cs);
      int frameChunks = Math.max(1, FRAME_BYTES / bpc);
      byte[] bytes = new byte[frameChunks * bpc];
      byte[] sums = new byte[frameChunks * sumSize];
      long dataAt = 0;
      long sumsAt = 0; // chunk index the meta stream is at
      for (long[] span : RangeRequest.chunkSpans(ranges, block.getNumBytes(), bpc)) {
        long end = span[0] + span[1];
        for (long p = span[0]; p < end; ) {
          int len = (int) Math.min(bytes.length, end - p);
          int chunks = (len + bpc - 1) / bpc;
          IOUtils.skipFully(data, p - dataAt);
          IOUtils.readFully(data, bytes, 0, len);
          dataAt = p + len;
          IOUtils.skipFully(meta, (p / bpc - sumsAt) * sumSize);
          meta.readFully(sums, 0, chunks * sumSize);
          sumsAt = p / bpc + chunks;
          sink.chunks(p, bytes, len, sums, chunks * sumSize);
          p += len;
        }
      }
    }
  }
}
