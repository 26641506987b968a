package io.ecrepair.hdfs.client;

import io.ecrepair.hdfs.transfer.BlockConnector;
import java.io.IOException;
import java.net.InetSocketAddress;
import org.apache.hadoop.hdfs.DFSClient;
import org.apache.hadoop.hdfs.net.Peer;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.net.NetUtils;
import org.apache.hadoop.security.token.Token;

/**
 * A client's connection to the DataNode of one internal block, as HDFS's own block readers
 * make it: the block access token the NameNode handed out with the block's location, and
 * {@link DFSClient#newConnectedPeer} (the client's socket factory, SASL or encryption, and its
 * socket timeout {@code dfs.client.socket-timeout}).
 */
public final class ClientConnector implements BlockConnector {
  private final DFSClient client;
  private final LocatedBlock internal;

  public ClientConnector(DFSClient client, LocatedBlock internal) {
    this.client = client;
    this.internal = internal;
  }

  static InetSocketAddress address(DFSClient client, DatanodeInfo node) {
    return NetUtils.createSocketAddr(node.getXferAddr(client.getConf().isConnectToDnViaHostname()));
  }

  @Override
  public Token<BlockTokenIdentifier> token(ExtendedBlock block) {
    return internal.getBlockToken();
  }

  @Override
  public Peer connect(DatanodeInfo source, ExtendedBlock block, Token<BlockTokenIdentifier> token)
      throws IOException {
    Peer peer = client.newConnectedPeer(address(client, source), token, source);
    peer.setReadTimeout(client.getConf().getSocketTimeout());
    return peer;
  }
}
