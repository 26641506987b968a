package io.ecrepair.hdfs.transfer;

import java.io.IOException;
import org.apache.hadoop.hdfs.net.Peer;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.security.token.Token;

/**
 * How a {@link BlockRangeReader} reaches a DataNode: the block access token to present and an
 * authenticated connection (SASL or encryption as the cluster configures). A DataNode
 * (reconstruction) and a client (degraded reads) obtain both differently.
 */
public interface BlockConnector {
  /** The token that lets this reader read {@code block}. */
  Token<BlockTokenIdentifier> token(ExtendedBlock block) throws IOException;

  /** A connected peer to {@code source}'s data transfer port, with its timeouts set. */
  Peer connect(DatanodeInfo source, ExtendedBlock block, Token<BlockTokenIdentifier> token) throws IOException;
}
