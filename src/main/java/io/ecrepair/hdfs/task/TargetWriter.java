package io.ecrepair.hdfs.task;

import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.DFSUtilClient;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo.DatanodeInfoBuilder;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.datatransfer.BlockConstructionStage;
import org.apache.hadoop.hdfs.protocol.datatransfer.IOStreamPair;
import org.apache.hadoop.hdfs.protocol.datatransfer.PacketHeader;
import org.apache.hadoop.hdfs.protocol.datatransfer.Sender;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.hdfs.server.datanode.CachingStrategy;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.io.IOUtils;
import org.apache.hadoop.net.NetUtils;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.util.DataChecksum;

/**
 * Writes one rebuilt internal block to its target DataNode the way HDFS's own reconstruction
 * does (OP_WRITE_BLOCK, stage PIPELINE_SETUP_CREATE, a block access token, SASL as
 * configured): packets of whole checksum chunks with their CRCs, which the target verifies.
 * The target keeps the replica temporary until the final empty packet; {@link #finish} sends
 * it only when the whole block was written, and {@link #close} without it makes the target
 * discard what it received, so a block that was not completely rebuilt and verified is never
 * committed.
 */
final class TargetWriter implements Closeable {
  private static final int WRITE_PACKET_SIZE = 64 * 1024;

  private final DataNode datanode;
  private final Configuration conf;
  private final DatanodeInfo target;
  private final ExtendedBlock block;
  private final StorageType storageType;
  private final String storageId;
  private DataChecksum checksum;
  private Socket socket;
  private DataOutputStream out;
  private DataInputStream in;
  private byte[] packetBuf;
  private int chunksPerPacket;
  private long offset;
  private long seqno;

  TargetWriter(DataNode datanode, Configuration conf, DatanodeInfo target, ExtendedBlock block,
               StorageType storageType, String storageId) {
    this.datanode = datanode;
    this.conf = conf;
    this.target = target;
    this.block = block;
    this.storageType = storageType;
    this.storageId = storageId;
  }

  DatanodeInfo target() {
    return target;
  }

  ExtendedBlock block() {
    return block;
  }

  long written() {
    return offset;
  }

  /**
   * Connects and asks the target to create the replica, with the checksum the helpers' blocks
   * use; the connection is marked as {@code budget}'s repair traffic.
   */
  void open(DataChecksum cs, io.ecrepair.hdfs.transfer.RepairBudget budget) throws IOException {
    this.checksum = cs;
    int chunk = cs.getBytesPerChecksum() + cs.getChecksumSize();
    chunksPerPacket = Math.max((WRITE_PACKET_SIZE - PacketHeader.PKT_MAX_HEADER_LEN) / chunk, 1);
    packetBuf = new byte[chunk * chunksPerPacket + PacketHeader.PKT_MAX_HEADER_LEN];
    boolean ok = false;
    Socket s = null;
    try {
      InetSocketAddress addr = NetUtils.createSocketAddr(target.getXferAddr(
          datanode.getDnConf().getConnectToDnViaHostname()));
      s = datanode.newSocket();
      budget.mark(s);
      NetUtils.connect(s, addr, datanode.getDnConf().getSocketTimeout());
      s.setTcpNoDelay(datanode.getDnConf().getDataTransferServerTcpNoDelay());
      s.setSoTimeout(datanode.getDnConf().getSocketTimeout());
      Token<BlockTokenIdentifier> token = datanode.getBlockAccessToken(block,
          EnumSet.of(BlockTokenIdentifier.AccessMode.WRITE), new StorageType[] {storageType},
          new String[] {storageId});
      OutputStream rawOut = NetUtils.getOutputStream(s, datanode.getDnConf().getSocketWriteTimeout());
      InputStream rawIn = NetUtils.getInputStream(s);
      IOStreamPair sasl = datanode.getSaslClient().socketSend(s, rawOut, rawIn,
          datanode.getDataEncryptionKeyFactoryForBlock(block), token, target);
      out = new DataOutputStream(new BufferedOutputStream(sasl.out, DFSUtilClient.getSmallBufferSize(conf)));
      in = new DataInputStream(sasl.in);
      DatanodeInfo self = new DatanodeInfoBuilder().setNodeID(datanode.getDatanodeId()).build();
      new Sender(out).writeBlock(block, storageType, token, "", new DatanodeInfo[] {target},
          new StorageType[] {storageType}, self, BlockConstructionStage.PIPELINE_SETUP_CREATE, 0, 0, 0, 0,
          cs, CachingStrategy.newDefaultStrategy(), false, false, null, storageId, new String[] {storageId});
      socket = s;
      ok = true;
    } finally {
      if (!ok) {
        IOUtils.closeStream(out);
        IOUtils.closeStream(in);
        IOUtils.closeSocket(s);
      }
    }
  }

  boolean isOpen() {
    return socket != null;
  }

  /** Sends {@code data}'s remaining bytes as checksummed packets; only the last write of a block may end mid-chunk. */
  void write(ByteBuffer data) throws IOException {
    ByteBuffer src = data.duplicate();
    int bpc = checksum.getBytesPerChecksum();
    int maxData = chunksPerPacket * bpc;
    while (src.hasRemaining()) {
      int n = Math.min(maxData, src.remaining());
      int ckLen = ((n - 1) / bpc + 1) * checksum.getChecksumSize();
      int sumsAt = PacketHeader.PKT_MAX_HEADER_LEN;
      src.get(packetBuf, sumsAt + ckLen, n);
      checksum.calculateChunkedSums(packetBuf, sumsAt + ckLen, n, packetBuf, sumsAt);
      writePacket(ckLen, n, false);
      offset += n;
    }
  }

  /**
   * Sends the packet whose checksums and data already follow the header's room in
   * {@code packetBuf}, as HDFS's DFSPacket lays it out: header, checksums, data. (DFSPacket's
   * public data copy goes byte by byte; on a rebuilding DataNode that was the hottest Java code.)
   */
  private void writePacket(int checksumLen, int dataLen, boolean last) throws IOException {
    PacketHeader header = new PacketHeader(Integer.BYTES + checksumLen + dataLen, offset, seqno++, last, dataLen,
        false);
    int headerLen = header.getSerializedSize();
    int start = PacketHeader.PKT_MAX_HEADER_LEN - headerLen;
    header.putInBuffer(ByteBuffer.wrap(packetBuf, start, headerLen));
    out.write(packetBuf, start, headerLen + checksumLen + dataLen);
  }

  void finish() throws IOException {
    if (offset != block.getNumBytes()) {
      throw new IOException("rebuilt " + offset + " bytes of " + block + " but it has " + block.getNumBytes());
    }
    writePacket(0, 0, true);
    out.flush();
  }

  @Override
  public void close() {
    IOUtils.closeStream(out);
    IOUtils.closeStream(in);
    IOUtils.closeSocket(socket);
    socket = null;
  }
}
