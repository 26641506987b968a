package io.ecrepair.hdfs.client;

import org.apache.hadoop.hdfs.protocol.proto.DataTransferProtos.OpBlockChecksumResponseProto;
import org.apache.hadoop.hdfs.protocolPB.PBHelperClient;
import org.apache.hadoop.util.DataChecksum;

/**
 * A checksum as a DataNode answers OP_BLOCK_CHECKSUM or OP_BLOCK_GROUP_CHECKSUM: the CRC
 * settings it was computed with and its bytes (an MD5 of CRCs, or composite CRCs).
 */
record GroupChecksum(int bytesPerCrc, long crcPerBlock, DataChecksum.Type crcType, byte[] bytes) {
  static GroupChecksum of(OpBlockChecksumResponseProto reply) {
    // DataNodes older than HDFS 2.x's crcType field do not serve striped files
    DataChecksum.Type type = reply.hasCrcType() ? PBHelperClient.convert(reply.getCrcType()) : DataChecksum.Type.DEFAULT;
    return new GroupChecksum(reply.getBytesPerCrc(), reply.getCrcPerBlock(), type,
        reply.getBlockChecksum().toByteArray());
  }
}
