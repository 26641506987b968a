package io.ecrepair.hdfs.client;

import java.util.Arrays;
import org.apache.hadoop.hdfs.EcRepairStripedInputStream;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.util.StripedBlockUtil;

/**
 * The internal blocks of one block group as a reader sees them: for each unit the located
 * internal block it reads (the first location whose DataNode the stream has not given up on),
 * none when every location is gone (lost), and the units that hold no bytes in this group (data
 * units past the end of a short group: zeros that cost nothing, never located by HDFS).
 */
final class GroupUnits {
  private final LocatedBlock[] located;
  private final boolean[] empty;
  private final long groupLength;

  private GroupUnits(LocatedBlock[] located, boolean[] empty, long groupLength) {
    this.located = located;
    this.empty = empty;
    this.groupLength = groupLength;
  }

  static GroupUnits of(LocatedStripedBlock group, ErasureCodingPolicy policy, EcRepairStripedInputStream stream) {
    int k = policy.getNumDataUnits();
    int n = k + policy.getNumParityUnits();
    int cell = policy.getCellSize();
    LocatedBlock[] located = new LocatedBlock[n];
    byte[] indices = group.getBlockIndices();
    DatanodeInfo[] locations = group.getLocations();
    for (int i = 0; i < indices.length && i < locations.length; i++) {
      int unit = indices[i];
      if (unit < n && located[unit] == null && !stream.isDead(locations[i])) {
        located[unit] = StripedBlockUtil.constructInternalBlock(group, i, cell, k, unit);
      }
    }
    boolean[] empty = new boolean[n];
    long groupLength = group.getBlockSize();
    for (int u = 0; u < n; u++) {
      empty[u] = StripedBlockUtil.getInternalBlockLength(groupLength, cell, k, u) == 0;
    }
    return new GroupUnits(located, empty, groupLength);
  }

  int size() {
    return located.length;
  }

  long groupLength() {
    return groupLength;
  }

  /** Holds no bytes in this group (reads as zeros). */
  boolean empty(int unit) {
    return empty[unit];
  }

  /** Holds bytes but no readable location. */
  boolean lost(int unit) {
    return !empty[unit] && located[unit] == null;
  }

  /** The internal block to read for {@code unit} (its one location first), or null. */
  LocatedBlock located(int unit) {
    return empty[unit] ? null : located[unit];
  }

  DatanodeInfo node(int unit) {
    LocatedBlock b = located(unit);
    return b == null ? null : b.getLocations()[0];
  }

  /** Units a repair may use: readable ones and empty ones (sorted). */
  int[] available() {
    int[] out = new int[located.length];
    int c = 0;
    for (int u = 0; u < located.length; u++) {
      if (!lost(u)) {
        out[c++] = u;
      }
    }
    return Arrays.copyOf(out, c);
  }

  int[] lostUnits() {
    int[] out = new int[located.length];
    int c = 0;
    for (int u = 0; u < located.length; u++) {
      if (lost(u)) {
        out[c++] = u;
      }
    }
    return Arrays.copyOf(out, c);
  }
}
