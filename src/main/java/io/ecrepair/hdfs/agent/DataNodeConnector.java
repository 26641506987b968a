package io.ecrepair.hdfs.agent;

import io.ecrepair.hdfs.transfer.BlockConnector;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.EnumSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.DFSUtilClient;
import org.apache.hadoop.hdfs.net.Peer;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.io.IOUtils;
import org.apache.hadoop.net.NetUtils;
import org.apache.hadoop.security.token.Token;

/**
 * Connections from a rebuilding DataNode to its helpers, as HDFS's own StripedReader makes
 * them: a token minted by this DataNode's block pool token manager, the DataNode's SASL client
 * and encryption keys, its socket timeouts (the read timeout is the reconstruction's).
 */
public final class DataNodeConnector implements BlockConnector {
  private final DataNode datanode;
  private final Configuration conf;
  private final int readTimeoutMs;
  private final int receiveBufferBytes;

  /** @param receiveBufferBytes TCP receive buffer of each connection, set before it connects; 0 = autotuned */
  public DataNodeConnector(DataNode datanode, Configuration conf, int readTimeoutMs, int receiveBufferBytes) {
    this.datanode = datanode;
    this.conf = conf;
    this.readTimeoutMs = readTimeoutMs;
    this.receiveBufferBytes = receiveBufferBytes;
  }

  /** Sets a small receive window before {@code socket} connects (the window scale is agreed then). */
  static void limitReceiveWindow(Socket socket, int receiveBufferBytes) throws IOException {
    if (receiveBufferBytes > 0) {
      socket.setReceiveBufferSize(receiveBufferBytes);
    }
  }

  int receiveBufferBytes() {
    return receiveBufferBytes;
  }

  DataNode datanode() {
    return datanode;
  }

  /** A challenge about {@code block} for an agent to answer ({@link AgentProof}). */
  public AgentProof.Challenge challenge(ExtendedBlock block) throws IOException {
    return AgentProof.Challenge.mint(datanode, block);
  }

  @Override
  public Token<BlockTokenIdentifier> token(ExtendedBlock block) throws IOException {
    return datanode.getBlockAccessToken(block, EnumSet.of(BlockTokenIdentifier.AccessMode.READ),
        StorageType.EMPTY_ARRAY, new String[0]);
  }

  @Override
  public Peer connect(DatanodeInfo source, ExtendedBlock block, Token<BlockTokenIdentifier> token)
      throws IOException {
    InetSocketAddress addr = NetUtils.createSocketAddr(source.getXferAddr(
        datanode.getDnConf().getConnectToDnViaHostname()));
    int timeout = datanode.getDnConf().getSocketTimeout();
    Socket sock = NetUtils.getDefaultSocketFactory(conf).createSocket();
    Peer peer = null;
    boolean ok = false;
    try {
      limitReceiveWindow(sock, receiveBufferBytes);
      NetUtils.connect(sock, addr, timeout);
      sock.setTcpNoDelay(true);
      peer = DFSUtilClient.peerFromSocketAndKey(datanode.getSaslClient(), sock,
          datanode.getDataEncryptionKeyFactoryForBlock(block), token, source, timeout);
      peer.setReadTimeout(readTimeoutMs);
      peer.setWriteTimeout(datanode.getDnConf().getSocketWriteTimeout());
      ok = true;
      return peer;
    } finally {
      if (!ok) {
        IOUtils.closeSocket(sock);
        IOUtils.cleanupWithLogger(null, peer);
      }
    }
  }
}
