package io.ecrepair.hdfs.client;

import java.io.IOException;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.hdfs.DFSClient;
import org.apache.hadoop.hdfs.EcRepairChecksumOps;
import org.apache.hadoop.hdfs.protocol.BlockChecksumOptions;
import org.apache.hadoop.hdfs.protocol.BlockChecksumType;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
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
 * The checksum of a block group some of whose data blocks cannot be asked, computed by the
 * client as the group's DataNode computes it: each data block's checksum from the DataNode
 * holding it (OP_BLOCK_CHECKSUM), and for a block that cannot be asked, the CRCs of its bytes,
 * read through the degraded reads of our client (the right repair for the code, whole cells for
 * Clay and Butterfly, the local group for LRC), then combined in the same order into the same
 * buffers, so the value equals the healthy group's.
 */
final class DegradedGroupChecksum {
  private static final Logger LOG = LoggerFactory.getLogger(DegradedGroupChecksum.class);

  /** Reads file bytes at a position (a degraded read where a block is lost). */
  interface FileBytes {
    void readFully(long position, byte[] buf, int off, int len) throws IOException;
  }

  private final DFSClient client;
  private final int timeoutMillis;

  DegradedGroupChecksum(DFSClient client, int timeoutMillis) {
    this.client = client;
    this.timeoutMillis = timeoutMillis;
  }

  /**
   * The checksum of the first {@code requested} bytes of {@code group} (which starts at file
   * offset {@code groupStart}) as OP_BLOCK_GROUP_CHECKSUM would answer it.
   */
  GroupChecksum compute(LocatedStripedBlock group, long groupStart, ErasureCodingPolicy policy, long requested,
      BlockChecksumType type, FileBytes file) throws IOException {
    int k = policy.getNumDataUnits();
    int cell = policy.getCellSize();
    Map<Integer, Integer> located = new HashMap<>();
    for (int j = 0; j < group.getBlockIndices().length; j++) {
      located.put((int) group.getBlockIndices()[j], j);
    }
    BlockChecksumOptions blockOptions = type == BlockChecksumType.COMPOSITE_CRC
        ? new BlockChecksumOptions(BlockChecksumType.COMPOSITE_CRC, cell) // per-cell CRCs, as the DataNode asks
        : new BlockChecksumOptions(BlockChecksumType.MD5CRC);

    // The data blocks the group's checksum covers, as the DataNode walks them.
    int blocks = 0;
    long covered = 0;
    do {
      covered += StripedBlockUtil.getInternalBlockLength(requested, cell, k, blocks);
      blocks++;
    } while (blocks < k && covered < requested);

    GroupChecksum[] asked = new GroupChecksum[blocks];
    GroupChecksum settings = null;
    for (int idx = 0; idx < blocks; idx++) {
      Integer j = located.get(idx);
      if (j != null) {
        asked[idx] = ask(group, j, internal(group, cell, k, idx, requested), blockOptions);
        settings = settings == null ? asked[idx] : settings;
      }
    }
    if (settings == null) {
      settings = settingsFromAnyBlock(group, cell, k, located);
    }

    DataOutputBuffer blockSums = new DataOutputBuffer();
    Map<Integer, int[]> cellCrcsOf = new HashMap<>();
    GroupChecksum first = null;
    DataChecksum.Type groupType = null;
    for (int idx = 0; idx < blocks; idx++) {
      GroupChecksum part = asked[idx] != null ? asked[idx]
          : rebuilt(group, groupStart, idx, k, cell, requested, type, settings, file);
      if (idx == 0) {
        first = asked[0] != null ? part
            : new GroupChecksum(part.bytesPerCrc(), crcsOfWholeBlock(group, cell, k, settings), part.crcType(), part.bytes());
        groupType = part.crcType();
      } else {
        if (part.bytesPerCrc() != first.bytesPerCrc()) {
          throw new IOException("bytes per checksum differ within block group " + group.getBlock() + ": "
              + part.bytesPerCrc() + " and " + first.bytesPerCrc());
        }
        if (groupType != DataChecksum.Type.MIXED && groupType != part.crcType()) {
          if (type == BlockChecksumType.COMPOSITE_CRC) {
            throw new IOException("COMPOSITE_CRC needs one CRC type, block group " + group.getBlock() + " has "
                + groupType + " and " + part.crcType());
          }
          groupType = DataChecksum.Type.MIXED;
        }
      }
      blockSums.write(part.bytes(), 0, part.bytes().length);
      if (type == BlockChecksumType.COMPOSITE_CRC) {
        cellCrcsOf.put(idx, crcInts(part.bytes()));
      }
    }
    byte[] bytes = type == BlockChecksumType.COMPOSITE_CRC
        ? composeCells(cellCrcsOf, k, cell, covered, groupType)
        : MD5Hash.digest(blockSums.getData()).getDigest(); // the whole buffer, as the DataNode digests it
    return new GroupChecksum(first.bytesPerCrc(), first.crcPerBlock(), groupType, bytes);
  }

  /** Internal block {@code idx} of the group's first {@code requested} bytes (its length: those it holds). */
  private static ExtendedBlock internal(LocatedStripedBlock group, int cell, int k, int idx, long requested) {
    ExtendedBlock g = new ExtendedBlock(group.getBlock());
    g.setNumBytes(requested);
    return StripedBlockUtil.constructInternalBlock(g, cell, k, idx);
  }

  /** The block's checksum from its DataNode, or null when it cannot be asked (then it is rebuilt). */
  private GroupChecksum ask(LocatedStripedBlock group, int j, ExtendedBlock block, BlockChecksumOptions options)
      throws IOException {
    DatanodeInfo dn = group.getLocations()[j];
    try {
      return GroupChecksum.of(EcRepairChecksumOps.block(client, dn, block, group.getBlockTokens()[j], options,
          timeoutMillis));
    } catch (InvalidBlockTokenException e) {
      throw e; // the caller fetches fresh tokens
    } catch (IOException e) {
      LOG.warn("ec-repair: checksum of {} from {} failed ({}); computing it from the block's bytes", block, dn,
          e.toString());
      return null;
    }
  }

  /** CRC settings when no data block of the range could be asked: those of any block of the group. */
  private GroupChecksum settingsFromAnyBlock(LocatedStripedBlock group, int cell, int k, Map<Integer, Integer> located)
      throws IOException {
    for (Map.Entry<Integer, Integer> e : located.entrySet()) {
      ExtendedBlock block = internal(group, cell, k, e.getKey(), group.getBlockSize());
      GroupChecksum any = ask(group, e.getValue(), block, new BlockChecksumOptions(BlockChecksumType.MD5CRC));
      if (any != null) {
        return any;
      }
    }
    throw new IOException("no DataNode of block group " + group.getBlock() + " answered a checksum request");
  }

  /**
   * CRCs a lost block 0's replica would report (its whole length: a DataNode counts the CRCs of
   * its meta file, not of the range asked).
   */
  private static long crcsOfWholeBlock(LocatedStripedBlock group, int cell, int k, GroupChecksum settings) {
    long length = StripedBlockUtil.getInternalBlockLength(group.getBlockSize(), cell, k, 0);
    return (length + settings.bytesPerCrc() - 1) / settings.bytesPerCrc();
  }

  /** The checksum of data block {@code idx} from its bytes, read cell by cell through {@code file}. */
  private static GroupChecksum rebuilt(LocatedStripedBlock group, long groupStart, int idx, int k, int cell,
      long requested, BlockChecksumType type, GroupChecksum settings, FileBytes file) throws IOException {
    long length = StripedBlockUtil.getInternalBlockLength(requested, cell, k, idx);
    DataChecksum sum = DataChecksum.newDataChecksum(settings.crcType(), settings.bytesPerCrc());
    if (sum == null || sum.getChecksumSize() == 0) {
      throw new IOException("block group " + group.getBlock() + " has no CRCs (" + settings.crcType() + ")");
    }
    int bpc = sum.getBytesPerChecksum();
    MessageDigest md5 = MD5Hash.getDigester();
    CrcComposer cells = CrcComposer.newStripedCrcComposer(sum.getChecksumType(), bpc, cell);
    byte[] bytes = new byte[cell];
    byte[] crcs = new byte[(cell / bpc + 1) * sum.getChecksumSize()];
    for (long offset = 0; offset < length; offset += cell) {
      int n = (int) Math.min(cell, length - offset);
      long row = offset / cell;
      file.readFully(groupStart + row * k * cell + (long) idx * cell, bytes, 0, n);
      int chunks = (n + bpc - 1) / bpc;
      sum.calculateChunkedSums(bytes, 0, n, crcs, 0);
      md5.update(crcs, 0, chunks * sum.getChecksumSize());
      for (int c = 0; c < chunks; c++) {
        cells.update(CrcUtil.readInt(crcs, c * sum.getChecksumSize()), Math.min(bpc, n - c * bpc));
      }
    }
    byte[] value = type == BlockChecksumType.COMPOSITE_CRC ? cells.digest() : md5.digest();
    return new GroupChecksum(bpc, (length + bpc - 1) / bpc, sum.getChecksumType(), value);
  }

  private static int[] crcInts(byte[] bytes) throws IOException {
    int[] out = new int[bytes.length / 4];
    for (int i = 0; i < out.length; i++) {
      out[i] = CrcUtil.readInt(bytes, 4 * i);
    }
    return out;
  }

  /** The group's composite CRC: its data blocks' cell CRCs in file order. */
  private static byte[] composeCells(Map<Integer, int[]> cellCrcsOf, int k, int cell, long covered,
      DataChecksum.Type type) throws IOException {
    CrcComposer group = CrcComposer.newCrcComposer(type, cell);
    int[] next = new int[k];
    long cells = (covered + cell - 1) / cell;
    for (long c = 0; c < cells; c++) {
      int idx = (int) (c % k);
      int[] crcs = cellCrcsOf.get(idx);
      if (crcs == null || next[idx] >= crcs.length) {
        throw new IOException("data block " + idx + " has fewer cell CRCs than its length needs");
      }
      long bytes = c == cells - 1 && covered % cell != 0 ? covered % cell : cell;
      group.update(crcs[next[idx]++], bytes);
    }
    return group.digest();
  }
}
