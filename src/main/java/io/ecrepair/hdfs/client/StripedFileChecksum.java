package io.ecrepair.hdfs.client;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.List;
import org.apache.hadoop.fs.CompositeCrcFileChecksum;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileChecksum;
import org.apache.hadoop.fs.MD5MD5CRC32CastagnoliFileChecksum;
import org.apache.hadoop.fs.MD5MD5CRC32GzipFileChecksum;
import org.apache.hadoop.fs.Options.ChecksumCombineMode;
import org.apache.hadoop.hdfs.DFSClient;
import org.apache.hadoop.hdfs.EcRepairChecksumOps;
import org.apache.hadoop.hdfs.protocol.BlockChecksumOptions;
import org.apache.hadoop.hdfs.protocol.BlockChecksumType;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.HdfsConstants;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlocks;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.protocol.StripedBlockInfo;
import org.apache.hadoop.hdfs.security.token.block.InvalidBlockTokenException;
import org.apache.hadoop.hdfs.util.StripedBlockUtil;
import org.apache.hadoop.io.DataOutputBuffer;
import org.apache.hadoop.io.MD5Hash;
import org.apache.hadoop.util.CrcComposer;
import org.apache.hadoop.util.CrcUtil;
import org.apache.hadoop.util.DataChecksum;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * File checksums of files under our policies that stay right while internal blocks are lost.
 * HDFS asks one DataNode per block group for the group's checksum; when a data block is missing
 * that DataNode rebuilds it with the codec's plain decoder over the first k blocks it reaches,
 * which Clay and Butterfly refuse (they need whole cells) and LRC cannot do for most losses (it
 * needs the lost block's local group). Here a healthy group is still asked of a DataNode, and a
 * group with a data block that cannot be asked is computed by {@link DegradedGroupChecksum}; the
 * groups' checksums are combined as HDFS combines them, so {@code hdfs dfs -checksum} and
 * distcp's comparison give the healthy file's value.
 */
final class StripedFileChecksum {
  private static final Logger LOG = LoggerFactory.getLogger(StripedFileChecksum.class);
  /** DataNodes asked for a whole group's checksum before the client computes it itself. */
  private static final int GROUP_ATTEMPTS = 3;

  /** Opens the file for reading (our FileSystem's stream, with degraded reads). */
  interface Opener {
    FSDataInputStream open() throws IOException;
  }

  private final DFSClient client;
  private final int timeoutMillis;

  StripedFileChecksum(DFSClient client) {
    this.client = client;
    this.timeoutMillis = client.getConf().getChecksumEcSocketTimeout() + client.getConf().getSocketTimeout();
  }

  /**
   * The checksum of {@code src}'s first {@code length} bytes, or null when the file is not
   * erasure-coded under one of our policies (HDFS's own computation is right for it).
   */
  FileChecksum compute(String src, long length, ChecksumCombineMode mode, Opener opener) throws IOException {
    if (length <= 0) {
      return null;
    }
    LocatedBlocks located = client.getLocatedBlocks(src, 0, length);
    if (located == null) {
      throw new FileNotFoundException("File does not exist: " + src);
    }
    ErasureCodingPolicy policy = located.getErasureCodingPolicy();
    if (policy == null || !ClientPolicies.owns(policy) || located.getLocatedBlocks().isEmpty()) {
      return null;
    }
    if (located.isUnderConstruction()) {
      throw new IOException("Fail to get checksum, since file " + src + " is under construction.");
    }
    BlockChecksumType type = mode == ChecksumCombineMode.COMPOSITE_CRC
        ? BlockChecksumType.COMPOSITE_CRC : BlockChecksumType.MD5CRC;
    long remaining = src.contains(HdfsConstants.SEPARATOR_DOT_SNAPSHOT_DIR_SEPARATOR)
        ? Math.min(length, located.getFileLength()) : length;
    try (LazyFile file = new LazyFile(opener)) {
      FileSums sums = new FileSums(type);
      int retried = -1;
      List<LocatedBlock> groups = located.getLocatedBlocks();
      for (int g = 0; g < groups.size() && remaining >= 0; g++) {
        LocatedStripedBlock group = (LocatedStripedBlock) groups.get(g);
        long requested = Math.min(group.getBlockSize(), remaining);
        GroupChecksum sum;
        try {
          sum = groupChecksum(group, policy, requested, type, file);
        } catch (InvalidBlockTokenException e) {
          if (g <= retried) {
            throw e;
          }
          retried = g; // the tokens expired: fetch fresh ones and do this group again
          located = client.getLocatedBlocks(src, 0, length);
          groups = located.getLocatedBlocks();
          g--;
          continue;
        }
        remaining -= requested;
        sums.add(sum, g, groups.size());
      }
      return sums.result(groups, length);
    }
  }

  private GroupChecksum groupChecksum(LocatedStripedBlock group, ErasureCodingPolicy policy, long requested,
      BlockChecksumType type, LazyFile file) throws IOException {
    if (dataBlocksLocated(group, policy, requested)) {
      StripedBlockInfo info = new StripedBlockInfo(group.getBlock(), group.getLocations(), group.getBlockTokens(),
          group.getBlockIndices(), policy);
      DatanodeInfo[] dns = group.getLocations();
      for (int j = 0; j < dns.length && j < GROUP_ATTEMPTS; j++) {
        try {
          return GroupChecksum.of(EcRepairChecksumOps.blockGroup(client, dns[j], info, group.getBlockToken(),
              requested, new BlockChecksumOptions(type), timeoutMillis));
        } catch (InvalidBlockTokenException e) {
          throw e;
        } catch (IOException e) {
          LOG.debug("ec-repair: checksum of block group {} from {} failed: {}", group.getBlock(), dns[j], e.toString());
        }
      }
    }
    return new DegradedGroupChecksum(client, timeoutMillis)
        .compute(group, group.getStartOffset(), policy, requested, type, file::readFully);
  }

  /** Whether the NameNode locates every data block the group's first {@code requested} bytes lie in. */
  private static boolean dataBlocksLocated(LocatedStripedBlock group, ErasureCodingPolicy policy, long requested) {
    int k = policy.getNumDataUnits();
    boolean[] located = new boolean[k + policy.getNumParityUnits()];
    for (byte b : group.getBlockIndices()) {
      located[b] = true;
    }
    for (int idx = 0; idx < k; idx++) {
      if (StripedBlockUtil.getInternalBlockLength(requested, policy.getCellSize(), k, idx) > 0 && !located[idx]) {
        return false;
      }
    }
    return true;
  }

  /** The groups' checksums combined into the file's, as HDFS's client combines them. */
  private static final class FileSums {
    private final BlockChecksumType type;
    private final DataOutputBuffer buf = new DataOutputBuffer();
    private int bytesPerCrc = -1;
    private long crcPerBlock;
    private DataChecksum.Type crcType = DataChecksum.Type.DEFAULT;

    FileSums(BlockChecksumType type) {
      this.type = type;
    }

    void add(GroupChecksum sum, int g, int groups) throws IOException {
      if (g == 0) {
        bytesPerCrc = sum.bytesPerCrc();
      } else if (sum.bytesPerCrc() != bytesPerCrc) {
        if (type == BlockChecksumType.MD5CRC) {
          throw new IOException("Byte-per-checksum not matched: bpc=" + sum.bytesPerCrc() + " but bytesPerCRC="
              + bytesPerCrc);
        }
        LOG.warn("ec-repair: bytes per CRC {} of block group {} differ from {}; COMPOSITE_CRC goes on",
            sum.bytesPerCrc(), g, bytesPerCrc);
      }
      if (g == 0 && groups > 1) {
        crcPerBlock = sum.crcPerBlock();
      }
      if (g == 0) {
        crcType = sum.crcType();
      } else if (crcType != DataChecksum.Type.MIXED && crcType != sum.crcType()) {
        if (type == BlockChecksumType.COMPOSITE_CRC) {
          throw new IOException("DataChecksum.Type.MIXED is not supported for COMPOSITE_CRC");
        }
        crcType = DataChecksum.Type.MIXED;
      }
      buf.write(sum.bytes(), 0, sum.bytes().length);
    }

    /**
     * For COMPOSITE_CRC, the last group's CRC covers only what {@code length} asks of it. That is
     * the last group located for the range, not the file's (Hadoop 3.3 takes the file's last
     * group's size and so composes a wrong CRC for a range ending in an earlier group; 3.4 fixed it).
     */
    FileChecksum result(List<LocatedBlock> groups, long length) throws IOException {
      if (type == BlockChecksumType.MD5CRC) {
        MD5Hash md5 = MD5Hash.digest(buf.getData()); // the whole buffer, as HDFS's client digests it
        return switch (crcType) {
          case CRC32 -> new MD5MD5CRC32GzipFileChecksum(bytesPerCrc, crcPerBlock, md5);
          case CRC32C -> new MD5MD5CRC32CastagnoliFileChecksum(bytesPerCrc, crcPerBlock, md5);
          default -> null; // no CRCs (or mixed types): HDFS has no MD5 checksum for it either
        };
      }
      byte[] crcs = buf.getData();
      CrcComposer file = CrcComposer.newCrcComposer(crcType, groups.get(0).getBlockSize());
      long summed = 0;
      for (int g = 0; g < groups.size() - 1; g++) {
        summed += groups.get(g).getBlockSize();
        file.update(CrcUtil.readInt(crcs, 4 * g), groups.get(g).getBlockSize());
      }
      long lastLength = Math.min(groups.get(groups.size() - 1).getBlockSize(), length - summed);
      file.update(CrcUtil.readInt(crcs, 4 * (groups.size() - 1)), lastLength);
      return new CompositeCrcFileChecksum(CrcUtil.readInt(file.digest(), 0), crcType, bytesPerCrc);
    }
  }

  /** The file opened for degraded reads only when a group needs one. */
  private static final class LazyFile implements AutoCloseable {
    private final Opener opener;
    private FSDataInputStream in;

    LazyFile(Opener opener) {
      this.opener = opener;
    }

    void readFully(long position, byte[] buf, int off, int len) throws IOException {
      if (in == null) {
        in = opener.open();
      }
      in.readFully(position, buf, off, len);
    }

    @Override
    public void close() throws IOException {
      if (in != null) {
        in.close();
      }
    }
  }
}
