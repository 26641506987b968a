package org.apache.hadoop.hdfs;

import java.io.DataOutputStream;
import java.io.IOException;
import org.apache.hadoop.hdfs.protocol.BlockChecksumOptions;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.StripedBlockInfo;
import org.apache.hadoop.hdfs.protocol.datatransfer.DataTransferProtoUtil;
import org.apache.hadoop.hdfs.protocol.datatransfer.IOStreamPair;
import org.apache.hadoop.hdfs.protocol.datatransfer.Sender;
import org.apache.hadoop.hdfs.protocol.proto.DataTransferProtos.BlockOpResponseProto;
import org.apache.hadoop.hdfs.protocol.proto.DataTransferProtos.OpBlockChecksumResponseProto;
import org.apache.hadoop.hdfs.protocolPB.PBHelperClient;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.security.token.Token;

/**
 * HDFS's two checksum requests to a DataNode, sent as {@link DFSClient} sends them (its
 * {@code connectToDN}, with SASL and the block token, is protected): the checksum of a block
 * group, computed by that DataNode, and the checksum of one replica it holds.
 */
public final class EcRepairChecksumOps {
  private EcRepairChecksumOps() {}

  /** OP_BLOCK_GROUP_CHECKSUM of the first {@code requestedBytes} of a group, asked of {@code dn}. */
  public static OpBlockChecksumResponseProto blockGroup(DFSClient client, DatanodeInfo dn, StripedBlockInfo group,
      Token<BlockTokenIdentifier> token, long requestedBytes, BlockChecksumOptions options, int timeoutMillis)
      throws IOException {
    try (IOStreamPair pair = client.connectToDN(dn, timeoutMillis, token)) {
      new Sender((DataOutputStream) pair.out).blockGroupChecksum(group, token, requestedBytes, options);
      return reply(pair, "for block group " + group.getBlock() + " from " + dn);
    }
  }

  /** OP_BLOCK_CHECKSUM of the replica of {@code block} (its length: the bytes summed) on {@code dn}. */
  public static OpBlockChecksumResponseProto block(DFSClient client, DatanodeInfo dn, ExtendedBlock block,
      Token<BlockTokenIdentifier> token, BlockChecksumOptions options, int timeoutMillis) throws IOException {
    try (IOStreamPair pair = client.connectToDN(dn, timeoutMillis, token)) {
      new Sender((DataOutputStream) pair.out).blockChecksum(block, token, options);
      return reply(pair, "for block " + block + " from " + dn);
    }
  }

  private static OpBlockChecksumResponseProto reply(IOStreamPair pair, String what) throws IOException {
    BlockOpResponseProto reply = BlockOpResponseProto.parseFrom(PBHelperClient.vintPrefixed(pair.in));
    DataTransferProtoUtil.checkBlockOpStatus(reply, what); // InvalidBlockTokenException on a stale token
    return reply.getChecksumResponse();
  }
}
