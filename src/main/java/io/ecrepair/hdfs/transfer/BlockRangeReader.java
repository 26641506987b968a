package io.ecrepair.hdfs.transfer;

import io.ecrepair.SystemProperties;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.hadoop.fs.ChecksumException;
import org.apache.hadoop.hdfs.net.Peer;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.datatransfer.DataTransferProtoUtil;
import org.apache.hadoop.hdfs.protocol.datatransfer.PacketHeader;
import org.apache.hadoop.hdfs.protocol.datatransfer.PacketReceiver;
import org.apache.hadoop.hdfs.protocol.datatransfer.Sender;
import org.apache.hadoop.hdfs.protocol.proto.DataTransferProtos.BlockOpResponseProto;
import org.apache.hadoop.hdfs.protocol.proto.DataTransferProtos.ClientReadStatusProto;
import org.apache.hadoop.hdfs.protocol.proto.DataTransferProtos.ReadOpChecksumInfoProto;
import org.apache.hadoop.hdfs.protocol.proto.DataTransferProtos.Status;
import org.apache.hadoop.hdfs.protocolPB.PBHelperClient;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.hdfs.server.datanode.CachingStrategy;
import org.apache.hadoop.io.IOUtils;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.util.DataChecksum;

/**
 * Reads byte ranges of one internal block from one DataNode through HDFS's own block read protocol
 * (OP_READ_BLOCK with a block access token, SASL or encryption as the cluster configures,
 * checksums verified): one connection for all ranges of a task, with several requests in
 * flight, so a helper's many small sub-chunk runs cost one stream rather than one round
 * trip each.
 *
 * <p>Pipelining on one connection follows the protocol exactly: each request is followed by
 * its client status message, which the DataNode reads after it has sent the range and before
 * it reads the next request (DataXceiver keeps the connection for the next op). The status
 * is {@code SUCCESS}, not {@code CHECKSUM_OK}, because it is sent before the bytes arrive;
 * checksums are verified here as the bytes come in.
 */
public final class BlockRangeReader implements RangeSource {
  /** Where the bytes of a range go, in increasing block offset order. */
  public interface Sink {
    void accept(long blockOffset, ByteBuffer data) throws IOException, InterruptedException;
  }

  /** Requests kept in flight on the connection (each costs the DataNode one small buffered message). */
  static final int WINDOW = Integer.getInteger(SystemProperties.READ_WINDOW_PROPERTY,
      SystemProperties.READ_WINDOW_DEFAULT);

  private final BlockConnector connector;
  private final DatanodeInfo source;
  private final ExtendedBlock block;
  private final RangeListener listener;
  private volatile Peer peer;
  private Token<BlockTokenIdentifier> token;
  private PacketReceiver packets;
  private volatile DataChecksum checksum;
  private volatile boolean closed;
  private int reconnects;
  /** Block offset up to which the current range was handed to the sink. */
  private long delivered;

  public BlockRangeReader(BlockConnector connector, DatanodeInfo source, ExtendedBlock block, RangeListener listener) {
    this.connector = connector;
    this.source = source;
    this.block = block;
    this.listener = listener;
  }

  @Override
  public DatanodeInfo source() {
    return source;
  }

  /** The checksum of the helper's block, once a response arrived (null before). */
  @Override
  public DataChecksum checksum() {
    return checksum;
  }

  /**
   * Reads every range {offset, length} (sorted, disjoint, inside the block) and hands the
   * bytes to {@code sink} in order.
   *
   * <p>A DataNode ends a kept-alive connection that waited longer than
   * {@code dfs.datanode.socket.reuse.keepalive} for its next request, and every connection
   * after one request when that setting is 0 (then requests already sent make it reset the
   * connection). When a connection ends, the reader reconnects and goes on from the first
   * byte it has not delivered (one request at a time from then on if the connection had
   * served fewer than two); a helper it cannot reach, or whose connection ends before
   * answering a lone request, has failed.
   */
  @Override
  public void read(List<long[]> ranges, Sink sink) throws IOException, InterruptedException {
    List<long[]> todo = new java.util.ArrayList<>(ranges);
    int done = 0;
    int window = WINDOW;
    while (done < todo.size()) {
      connect();
      int doneHere = 0;
      try {
        java.io.OutputStream out = peer.getOutputStream();
        java.io.ByteArrayOutputStream batch = new java.io.ByteArrayOutputStream(8 * 1024);
        DataOutputStream requests = new DataOutputStream(batch);
        Sender sender = new Sender(requests);
        // One buffered stream for responses and packets: a few system calls per response.
        DataInputStream in = new DataInputStream(new java.io.BufferedInputStream(peer.getInputStream(), 64 * 1024));
        int sent = done;
        for (; done < todo.size(); done++) {
          if (sent < todo.size() && sent - done <= window / 2) {
            // Top the window up in one write: each request, then its client status.
            batch.reset();
            while (sent < todo.size() && sent - done < window) {
              long[] r = todo.get(sent++);
              sender.readBlock(block, token, "", r[0], r[1], true, CachingStrategy.newDefaultStrategy());
              ClientReadStatusProto.newBuilder().setStatus(Status.SUCCESS).build().writeDelimitedTo(requests);
            }
            requests.flush();
            batch.writeTo(out);
            out.flush();
          }
          delivered = todo.get(done)[0];
          receive(in, todo.get(done), sink);
          doneHere++;
          listener.rangeDone(done + 1);
        }
      } catch (IOException e) {
        if (closed || e instanceof ChecksumException || (doneHere == 0 && window == 1)) {
          throw e;
        }
        // The DataNode ended a connection that served us, or one it reset because it keeps
        // none alive: go on from what is missing, one request per connection if need be.
        long[] r = todo.get(done);
        long end = r[0] + r[1];
        long from = Math.max(delivered, r[0]);
        if (from >= end) {
          done++;
        } else {
          todo.set(done, new long[] {from, end - from});
        }
        reconnects++;
        if (doneHere < 2) {
          window = 1; // it serves one request per connection (keepalive 0): no pipelining
        }
        dropConnection();
      }
    }
  }

  /** How often a connection the DataNode ended was reopened. */
  public int reconnects() {
    return reconnects;
  }

  private void dropConnection() {
    Peer p = peer;
    peer = null;
    if (p != null) {
      IOUtils.cleanupWithLogger(null, p);
    }
  }

  private void receive(DataInputStream in, long[] range, Sink sink)
      throws IOException, InterruptedException {
    long start = range[0];
    long end = range[0] + range[1];
    BlockOpResponseProto status = BlockOpResponseProto.parseFrom(PBHelperClient.vintPrefixed(in));
    DataTransferProtoUtil.checkBlockOpStatus(status, "reading " + block + " [" + start + ", " + end + ") from " + source);
    ReadOpChecksumInfoProto info = status.getReadOpChecksumInfo();
    DataChecksum sent = DataTransferProtoUtil.fromProto(info.getChecksum());
    DataChecksum cs = WireChecksums.of(sent.getChecksumType().id, sent.getBytesPerChecksum(),
        "reading " + block + " from " + source);
    long firstChunk = info.getChunkOffset();
    if (firstChunk < 0 || firstChunk > start || firstChunk <= start - cs.getBytesPerChecksum()) {
      throw new IOException("bad first chunk offset " + firstChunk + " for a read at " + start + " of " + block
          + " from " + source);
    }
    checksum = cs;
    // A receiver refuses to read past a last-packet-in-block: one per range.
    packets = new PacketReceiver(false);
    long needed = end - firstChunk;
    long lastSeq = -1;
    String name = block + " on " + source;
    while (needed > 0) {
      packets.receiveNextPacket(in);
      PacketHeader h = packets.getHeader();
      if (!h.sanityCheck(lastSeq)) {
        throw new IOException("bad packet header " + h + " reading " + name);
      }
      lastSeq = h.getSeqno();
      int len = h.getDataLen();
      if (len <= 0) {
        throw new IOException("range [" + start + ", " + end + ") of " + name + " ended early at "
            + (end - needed));
      }
      // Checksums vouch for a packet's bytes, not its offset: a packet that skipped or repeated
      // bytes would put them at the wrong place. The first starts at the first chunk, each
      // other where the one before ended (end - needed either way).
      if (h.getOffsetInBlock() != end - needed) {
        throw new IOException("packet at offset " + h.getOffsetInBlock() + " of " + name + ", expected at "
            + (end - needed) + " (the first chunk or where the previous packet ended)");
      }
      ByteBuffer data = packets.getDataSlice();
      cs.verifyChunkedSums(data, packets.getChecksumSlice(), name, h.getOffsetInBlock());
      long from = Math.max(start, h.getOffsetInBlock());
      long to = Math.min(end, h.getOffsetInBlock() + len);
      if (to > from) {
        ByteBuffer useful = data.duplicate();
        useful.position((int) (from - h.getOffsetInBlock())).limit((int) (to - h.getOffsetInBlock()));
        listener.delivered(to - from);
        sink.accept(from, useful.slice());
        delivered = to;
      }
      needed -= len;
    }
    packets.receiveNextPacket(in);
    PacketHeader trailer = packets.getHeader();
    if (!trailer.isLastPacketInBlock() || trailer.getDataLen() != 0) {
      throw new IOException("expected the empty end-of-read packet from " + source + ", got " + trailer);
    }
  }

  private void connect() throws IOException {
    if (peer != null) {
      return;
    }
    if (closed) {
      throw new IOException("reader for " + source + " is closed");
    }
    token = connector.token(block);
    peer = connector.connect(source, block, token);
    if (closed) {
      close();
      throw new IOException("reader for " + source + " is closed");
    }
  }

  /** Closes the connection; a read blocked on it fails. Safe from any thread, more than once. */
  @Override
  public void close() {
    closed = true;
    Peer p = peer;
    if (p != null) {
      IOUtils.cleanupWithLogger(null, p);
    }
  }
}
