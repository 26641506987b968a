package io.ecrepair.hdfs.transfer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.hdfs.net.BasicInetPeer;
import org.apache.hadoop.hdfs.net.Peer;
import org.apache.hadoop.hdfs.protocol.DatanodeID;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.datatransfer.DataTransferProtoUtil;
import org.apache.hadoop.hdfs.protocol.datatransfer.DataTransferProtocol;
import org.apache.hadoop.hdfs.protocol.datatransfer.Op;
import org.apache.hadoop.hdfs.protocol.datatransfer.PacketHeader;
import org.apache.hadoop.hdfs.protocol.proto.DataTransferProtos.BlockOpResponseProto;
import org.apache.hadoop.hdfs.protocol.proto.DataTransferProtos.ClientReadStatusProto;
import org.apache.hadoop.hdfs.protocol.proto.DataTransferProtos.OpReadBlockProto;
import org.apache.hadoop.hdfs.protocol.proto.DataTransferProtos.ReadOpChecksumInfoProto;
import org.apache.hadoop.hdfs.protocol.proto.DataTransferProtos.Status;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.util.DataChecksum;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A {@link BlockRangeReader} against a fake DataNode speaking OP_READ_BLOCK: packets that follow
 * on are delivered byte for byte; a packet that skips bytes or repeats some is refused, even
 * though its checksums match its own bytes.
 */
@Timeout(60)
class BlockRangeReaderPacketsTest {
  private static final int CHUNK = 512;
  /** Two chunks per packet, so a packet that goes back one chunk overlaps its predecessor by half. */
  private static final int PACKET = 2 * CHUNK;
  private static final int BLOCK_LENGTH = 8 * 1024;

  /** What the fake DataNode does to the second packet of every read it serves. */
  private enum Fault {
    NONE(0), SKIP_A_CHUNK(CHUNK), BACK_A_CHUNK(-CHUNK);

    final int shift;

    Fault(int shift) {
      this.shift = shift;
    }
  }

  private final byte[] blockData = new byte[BLOCK_LENGTH];
  private final ExtendedBlock block = new ExtendedBlock("BP-fake", 1001, BLOCK_LENGTH, 1);
  private ServerSocket server;
  private Thread serving;
  private volatile Fault fault = Fault.NONE;
  /** The last read's reader. */
  private BlockRangeReader reader;
  private final List<Throwable> serverErrors = new ArrayList<>();

  @BeforeEach
  void startFakeDataNode() throws IOException {
    new Random(42).nextBytes(blockData);
    server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    serving = new Thread(() -> {
      while (!server.isClosed()) {
        try (Socket s = server.accept()) {
          serve(s);
        } catch (IOException e) {
          // the server closed, or the reader dropped the connection
        } catch (Throwable t) {
          synchronized (serverErrors) {
            serverErrors.add(t);
          }
        }
      }
    }, "fake-datanode");
    serving.setDaemon(true);
    serving.start();
  }

  @AfterEach
  void stopFakeDataNode() throws Exception {
    server.close();
    serving.join(10_000);
    synchronized (serverErrors) {
      assertTrue(serverErrors.isEmpty(), "the fake DataNode failed: " + serverErrors);
    }
  }

  /** Serves every OP_READ_BLOCK on one connection the way BlockSender does, with {@link #fault} applied. */
  private void serve(Socket s) throws IOException {
    DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
    DataOutputStream out = new DataOutputStream(new BufferedOutputStream(s.getOutputStream()));
    DataChecksum cs = DataChecksum.newDataChecksum(DataChecksum.Type.CRC32C, CHUNK);
    while (true) {
      short version;
      try {
        version = in.readShort();
      } catch (EOFException e) {
        return; // the reader is done with this connection
      }
      assertEquals(DataTransferProtocol.DATA_TRANSFER_VERSION, version);
      assertEquals(Op.READ_BLOCK, Op.read(in));
      OpReadBlockProto op = OpReadBlockProto.parseDelimitedFrom(in);
      assertNotNull(ClientReadStatusProto.parseDelimitedFrom(in), "the client's read status");
      assertEquals(block.getBlockId(), op.getHeader().getBaseHeader().getBlock().getBlockId());
      long first = op.getOffset() / CHUNK * CHUNK;
      long end = Math.min(BLOCK_LENGTH, (op.getOffset() + op.getLen() + CHUNK - 1) / CHUNK * CHUNK);
      BlockOpResponseProto.newBuilder()
          .setStatus(Status.SUCCESS)
          .setReadOpChecksumInfo(ReadOpChecksumInfoProto.newBuilder()
              .setChecksum(DataTransferProtoUtil.toProto(cs))
              .setChunkOffset(first))
          .build()
          .writeDelimitedTo(out);
      long seq = 0;
      for (long at = first; at < end; seq++) {
        if (seq == 1) {
          at += fault.shift;
        }
        int len = (int) Math.min(PACKET, end - at);
        writePacket(out, cs, at, seq, len);
        at += len;
      }
      writePacket(out, cs, end, seq, 0); // the empty end-of-read packet
      out.flush();
    }
  }

  /** One packet as BlockSender frames it: payload length (counting itself), header, checksums, data. */
  private void writePacket(DataOutputStream out, DataChecksum cs, long offset, long seq, int len) throws IOException {
    ByteBuffer data = ByteBuffer.wrap(blockData, (int) offset, len).slice();
    ByteBuffer sums = ByteBuffer.allocate(cs.getChecksumSize(len));
    cs.calculateChunkedSums(data, sums);
    int payload = 4 + sums.capacity() + len;
    PacketHeader h = new PacketHeader(payload, offset, seq, len == 0, len, false);
    ByteBuffer header = ByteBuffer.allocate(h.getSerializedSize());
    h.putInBuffer(header);
    out.write(header.array());
    out.write(sums.array());
    out.write(blockData, (int) offset, len);
  }

  /** A plain socket to the fake DataNode, an empty token. */
  private BlockConnector connector() {
    return new BlockConnector() {
      @Override
      public Token<BlockTokenIdentifier> token(ExtendedBlock b) {
        return new Token<>();
      }

      @Override
      public Peer connect(DatanodeInfo source, ExtendedBlock b, Token<BlockTokenIdentifier> token) throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()), 10_000);
        s.setSoTimeout(30_000);
        return new BasicInetPeer(s);
      }
    };
  }

  private DatanodeInfo source() {
    return new DatanodeInfo.DatanodeInfoBuilder()
        .setNodeID(new DatanodeID("127.0.0.1", "fake-dn", "fake-dn-uuid", server.getLocalPort(), 0, 0, 0))
        .build();
  }

  /** What the sink got, piece by piece: {offset, bytes}. */
  private static final class Received {
    final List<Long> offsets = new ArrayList<>();
    final List<byte[]> pieces = new ArrayList<>();

    void accept(long offset, ByteBuffer data) {
      byte[] b = new byte[data.remaining()];
      data.get(b);
      offsets.add(offset);
      pieces.add(b);
    }

    /** Every piece starts where the one before it ended (the first at {@code start}) and holds the block's bytes there. */
    void assertInPlace(byte[] blockData, long start) {
      long next = start;
      for (int i = 0; i < pieces.size(); i++) {
        assertEquals(next, offsets.get(i), "piece " + i + " of the sink starts where the one before ended");
        byte[] want = Arrays.copyOfRange(blockData, (int) next, (int) next + pieces.get(i).length);
        assertArrayEquals(want, pieces.get(i), "bytes at " + next);
        next += pieces.get(i).length;
      }
    }

    long total() {
      long n = 0;
      for (byte[] p : pieces) {
        n += p.length;
      }
      return n;
    }
  }

  /** Reads {@code ranges} from the fake DataNode; returns the read's failure (null if none). */
  private IOException read(List<long[]> ranges, Received got) throws InterruptedException {
    reader = new BlockRangeReader(connector(), source(), block, bytes -> { });
    try {
      reader.read(ranges, got::accept);
      return null;
    } catch (IOException e) {
      return e;
    } finally {
      reader.close();
    }
  }

  @Test
  void contiguousPacketsDeliverExactlyTheServedBytes() throws Exception {
    // Unaligned ranges (the first starts mid-chunk, so the first packet starts before it), two on one connection.
    List<long[]> ranges = List.of(new long[] {700, 2300}, new long[] {4096, 1500});
    Received got = new Received();
    IOException failure = read(ranges, got);
    assertNull(failure, "the read failed");
    assertEquals(0, reader.reconnects(), "one connection served both ranges");
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    ByteArrayOutputStream actual = new ByteArrayOutputStream();
    for (long[] r : ranges) {
      expected.write(blockData, (int) r[0], (int) r[1]);
    }
    for (byte[] p : got.pieces) {
      actual.write(p);
    }
    assertArrayEquals(expected.toByteArray(), actual.toByteArray());
    // And each range's bytes arrived in place, in order.
    Received first = new Received();
    Received second = new Received();
    for (int i = 0; i < got.pieces.size(); i++) {
      (got.offsets.get(i) < 4096 ? first : second).accept(got.offsets.get(i), ByteBuffer.wrap(got.pieces.get(i)));
    }
    first.assertInPlace(blockData, 700);
    second.assertInPlace(blockData, 4096);
    assertEquals(2300, first.total());
    assertEquals(1500, second.total());
  }

  /*
   * The faulty cases: the reader takes a refused packet for a failed connection (as any
   * IOException but a checksum error), reconnects and asks for the rest from 1024 (what the
   * first packet delivered), one request at a time; that read's second packet, due at 2048,
   * is the refusal that fails the read.
   */

  @Test
  void aPacketThatSkipsAChunkIsRefused() throws Exception {
    fault = Fault.SKIP_A_CHUNK;
    Received got = new Received();
    IOException failure = read(List.of(new long[] {0, 4096}), got);
    // The sink got only bytes that follow on from the range's start, each at its own offset...
    got.assertInPlace(blockData, 0);
    assertTrue(got.total() < 4096, "a range with a hole cannot be complete");
    // ...and the read failed, naming the block, the source and both offsets.
    assertNotNull(failure, "a packet that skips a chunk was accepted");
    assertMessage(failure, 2048, 2560);
  }

  @Test
  void aPacketThatGoesBackIsRefused() throws Exception {
    fault = Fault.BACK_A_CHUNK;
    Received got = new Received();
    IOException failure = read(List.of(new long[] {0, 4096}), got);
    got.assertInPlace(blockData, 0);
    assertNotNull(failure, "a packet that overlaps the one before it was accepted");
    assertMessage(failure, 2048, 1536);
  }

  private void assertMessage(IOException failure, long expected, long got) {
    String m = String.valueOf(failure.getMessage());
    assertTrue(m.contains(block.toString()), "names the block: " + m);
    assertTrue(m.contains(source().toString()), "names the source: " + m);
    assertTrue(m.contains(Long.toString(expected)) && m.contains(Long.toString(got)), "names both offsets: " + m);
  }
}
