package io.ecrepair.hdfs.task;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.layout.GroupLayout;
import java.io.IOException;
import java.util.Arrays;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.util.StripedBlockUtil;

/**
 * The block group a task rebuilds, worked out once from the NameNode's order: its code and
 * geometry, the lost internal blocks in the targets' order (target i rebuilds {@code lost()[i]})
 * and sorted (the order a repair computes them in), and every internal block with its length.
 */
final class RebuildGroup {
  private final ReconstructionOrder order;
  private final CodeSpec spec;
  private final GroupLayout layout;
  private final int[] lost;
  private final int[] lostSorted;
  /** Per target i, where {@code lost[i]} is in {@link #lostSorted}. */
  private final int[] sortedIndex;
  private final ExtendedBlock[] blocks;

  private RebuildGroup(ReconstructionOrder order, CodeSpec spec, GroupLayout layout, int[] lost, int[] lostSorted,
                       ExtendedBlock[] blocks) {
    this.order = order;
    this.spec = spec;
    this.layout = layout;
    this.lost = lost;
    this.lostSorted = lostSorted;
    this.blocks = blocks;
    this.sortedIndex = new int[lost.length];
    for (int i = 0; i < lost.length; i++) {
      sortedIndex[i] = Arrays.binarySearch(lostSorted, lost[i]);
    }
  }

  /** @throws IOException when the order targets one internal block twice */
  static RebuildGroup of(ReconstructionOrder order) throws IOException {
    CodeSpec spec = order.code();
    int cellSize = order.policy().getCellSize();
    ExtendedBlock group = order.blockGroup();
    GroupLayout layout = GroupLayout.of(spec.k(), spec.m(), cellSize, group.getNumBytes());
    int[] lost = new int[order.targetIndices().length];
    for (int i = 0; i < lost.length; i++) {
      lost[i] = order.targetIndices()[i];
    }
    int[] lostSorted = lost.clone();
    Arrays.sort(lostSorted);
    for (int i = 1; i < lostSorted.length; i++) {
      if (lostSorted[i] == lostSorted[i - 1]) {
        throw new IOException("internal block " + lostSorted[i] + " is targeted twice in " + order);
      }
    }
    ExtendedBlock[] blocks = new ExtendedBlock[spec.n()];
    for (int u = 0; u < blocks.length; u++) {
      blocks[u] = StripedBlockUtil.constructInternalBlock(group, cellSize, spec.k(), u);
      blocks[u].setNumBytes(layout.blockLength(u));
    }
    return new RebuildGroup(order, spec, layout, lost, lostSorted, blocks);
  }

  ReconstructionOrder order() {
    return order;
  }

  CodeSpec spec() {
    return spec;
  }

  GroupLayout layout() {
    return layout;
  }

  /** Whether the code has no sub-chunks (RS, LRC): byte j of a cell depends on byte j of the others only. */
  boolean scalar() {
    return spec.subPacketization() == 1;
  }

  /** The lost internal blocks in the targets' order. */
  int[] lost() {
    return lost.clone();
  }

  /** The lost internal blocks, sorted. */
  int[] lostSorted() {
    return lostSorted.clone();
  }

  int lostCount() {
    return lost.length;
  }

  /** Target i's internal block. */
  int lost(int i) {
    return lost[i];
  }

  /** Where target i's block is among the sorted lost blocks (a repair's outputs). */
  int sortedIndex(int i) {
    return sortedIndex[i];
  }

  boolean isLost(int unit) {
    return Arrays.binarySearch(lostSorted, unit) >= 0;
  }

  /** Internal block {@code unit} of the group, with its length (a copy the caller may change). */
  ExtendedBlock block(int unit) {
    return new ExtendedBlock(blocks[unit]);
  }

  /** The units not lost that hold no bytes in this group (zeros, never read), sorted. */
  int[] emptyUnits() {
    int[] empty = new int[spec.n()];
    int count = 0;
    for (int u = 0; u < spec.n(); u++) {
      if (!isLost(u) && layout.blockLength(u) == 0) {
        empty[count++] = u;
      }
    }
    return Arrays.copyOf(empty, count);
  }

  /** The lost blocks' lengths together. */
  long lostBytes() {
    long bytes = 0;
    for (int u : lost) {
      bytes += layout.blockLength(u);
    }
    return bytes;
  }

  /** Cell rows that hold bytes of a lost block. */
  int rows() {
    int rows = 0;
    int cellSize = layout.cellSize();
    for (int u : lost) {
      rows = Math.max(rows, (int) ((layout.blockLength(u) + cellSize - 1) / cellSize));
    }
    return rows;
  }

  /**
   * The bytes of row r the repair computes: the row's coding length L, except that a scalar
   * code needs only as many bytes as the longest lost cell of the row holds; past that the lost
   * cells are zeros.
   */
  int codingLength(int r) {
    int length = layout.codingLength(r);
    if (!scalar()) {
      return length;
    }
    int need = 0;
    for (int u : lost) {
      need = Math.max(need, layout.cellLength(r, u));
    }
    return Math.min(length, need);
  }

  /** {@code sorted[j]} for the j-th sorted lost block, rearranged into the targets' order. */
  byte[][] byTarget(byte[][] sorted) {
    byte[][] out = new byte[lost.length][];
    for (int i = 0; i < lost.length; i++) {
      out[i] = sorted[sortedIndex[i]];
    }
    return out;
  }

  @Override
  public String toString() {
    return order.toString();
  }
}
