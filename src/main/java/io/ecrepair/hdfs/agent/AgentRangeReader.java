package io.ecrepair.hdfs.agent;

import io.ecrepair.hdfs.transfer.BlockRangeReader;
import io.ecrepair.hdfs.transfer.RangeListener;
import io.ecrepair.hdfs.transfer.RangeSource;
import io.ecrepair.hdfs.transfer.WireChecksums;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.io.IOUtils;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.util.DataChecksum;

/**
 * Reads a helper's ranges from the helper's repair agent in one request ({@link RangeRequest})
 * and verifies every chunk against the checksums stored with the replica.
 */
public final class AgentRangeReader implements RangeSource {
  /** The largest frame an agent sends is 64 KiB at 512 bytes per checksum; this allows larger chunks. */
  private static final int MAX_FRAME = 16 << 20;

  private final DatanodeInfo source;
  private final InetSocketAddress agent;
  private final ExtendedBlock block;
  private final DataNodeConnector connector;
  private final int connectTimeoutMs;
  private final int readTimeoutMs;
  private final RangeListener listener;
  private volatile Socket socket;
  private volatile DataChecksum checksum;
  private volatile boolean closed;

  public AgentRangeReader(DatanodeInfo source, InetSocketAddress agent, ExtendedBlock block, DataNodeConnector connector,
                   int connectTimeoutMs, int readTimeoutMs, RangeListener listener) {
    this.source = source;
    this.agent = agent;
    this.block = block;
    this.connector = connector;
    this.connectTimeoutMs = connectTimeoutMs;
    this.readTimeoutMs = readTimeoutMs;
    this.listener = listener;
  }

  /** Reads the ranges with as many requests as an agent's limit on ranges per request needs. */
  @Override
  public void read(List<long[]> ranges, BlockRangeReader.Sink sink) throws IOException, InterruptedException {
    for (int from = 0; from < ranges.size(); from += RangeRequest.MAX_RANGES) {
      read(ranges.subList(from, Math.min(ranges.size(), from + RangeRequest.MAX_RANGES)), from, sink);
    }
  }

  private void read(List<long[]> ranges, int before, BlockRangeReader.Sink sink)
      throws IOException, InterruptedException {
    String name = block + " from the repair agent of " + source;
    if (closed) {
      throw new IOException("reader for " + name + " is closed");
    }
    Token<BlockTokenIdentifier> token = connector.token(block);
    AgentChannels.Channel c = AgentChannels.dialer(connector.datanode(), block, token)
        .dial(agent, connectTimeoutMs, readTimeoutMs, connector.receiveBufferBytes());
    Socket s = c.socket();
    socket = s;
    try {
      if (closed) {
        throw new IOException("reader for " + name + " is closed");
      }
      DataOutputStream out = new DataOutputStream(new BufferedOutputStream(c.out(), 8 * 1024));
      AgentProof.Challenge challenge = connector.challenge(block);
      new RangeRequest(block, token, ranges).write(out, challenge);
      out.flush();
      DataInputStream in = new DataInputStream(new BufferedInputStream(c.in(), 128 * 1024));
      challenge.expect(in, source.getDatanodeUuid(), "the repair agent of " + source, RangeRequest.ERROR,
          AgentProof.Purpose.SERVE);
      c.trust();
      int status = in.readInt();
      if (status != RangeRequest.OK) {
        throw new IOException("reading " + name + ": " + (status == RangeRequest.ERROR ? in.readUTF()
            : "unexpected answer " + status));
      }
      DataChecksum cs = WireChecksums.of(in.readByte(), in.readInt(), "reading " + name);
      checksum = cs;
      receive(in, cs, ranges, before, sink, name);
    } finally {
      IOUtils.closeSocket(s);
    }
  }

  /** Hands the requested parts of each verified frame to the sink, range by range. */
  private void receive(DataInputStream in, DataChecksum cs, List<long[]> ranges, int before,
                       BlockRangeReader.Sink sink, String name) throws IOException, InterruptedException {
    int bpc = cs.getBytesPerChecksum();
    byte[] bytes = new byte[0];
    byte[] sums = new byte[0];
    RangeDelivery delivery = new RangeDelivery(ranges, before, sink, listener, name);
    while (true) {
      int len = in.readInt();
      if (len == RangeRequest.END) {
        break;
      }
      if (len == RangeRequest.ERROR) {
        throw new IOException("reading " + name + ": " + in.readUTF());
      }
      if (len < 0 || len > MAX_FRAME) {
        throw new IOException("reading " + name + ": bad frame length " + len);
      }
      long offset = in.readLong();
      int sumBytes = (len + bpc - 1) / bpc * cs.getChecksumSize();
      if (bytes.length < len) {
        bytes = new byte[len];
      }
      if (sums.length < sumBytes) {
        sums = new byte[sumBytes];
      }
      in.readFully(sums, 0, sumBytes);
      in.readFully(bytes, 0, len);
      if (offset % bpc != 0) {
        throw new IOException("reading " + name + ": a frame at " + offset + ", not on a chunk boundary");
      }
      delivery.piece(cs, offset, bytes, len, sums, sumBytes);
    }
    delivery.finish();
  }

  @Override
  public DataChecksum checksum() {
    return checksum;
  }

  @Override
  public DatanodeInfo source() {
    return source;
  }

  @Override
  public void close() {
    closed = true;
    Socket s = socket;
    if (s != null) {
      IOUtils.closeSocket(s);
    }
  }
}
