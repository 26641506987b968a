package io.ecrepair.hdfs.task;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo.DatanodeInfoBuilder;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.util.StripedBlockUtil;
import org.apache.hadoop.io.erasurecode.ECSchema;
import org.junit.jupiter.api.Test;

class RebuildGroupTest {
  private static final int CELL = 1024;
  private static final ErasureCodingPolicy RS_6_3 = new ErasureCodingPolicy(new ECSchema("rs", 6, 3), CELL);

  private static DatanodeInfo node(String name) {
    return new DatanodeInfoBuilder().setIpAddr("127.0.0.1").setHostName(name).setDatanodeUuid(name).build();
  }

  /** An order to rebuild {@code targets} of a group of {@code length} bytes from every other index. */
  private static ReconstructionOrder order(long length, short... targets) {
    ExtendedBlock group = new ExtendedBlock("pool", -1024L * 16, length, 1001);
    byte[] indices = new byte[10];
    DatanodeInfo[] sources = new DatanodeInfo[10];
    int j = 0;
    for (int u = 0; u < 9; u++) {
      boolean lost = false;
      for (short t : targets) {
        lost |= t == u;
      }
      if (!lost) {
        indices[j] = (byte) u;
        sources[j] = node("dn" + u);
        j++;
      }
    }
    indices[j] = indices[0]; // a spare of the first live index
    sources[j] = node("spare");
    indices = java.util.Arrays.copyOf(indices, j + 1);
    sources = java.util.Arrays.copyOf(sources, j + 1);
    DatanodeInfo[] to = new DatanodeInfo[targets.length];
    StorageType[] types = new StorageType[targets.length];
    String[] ids = new String[targets.length];
    for (int i = 0; i < targets.length; i++) {
      to[i] = node("target" + i);
      types[i] = StorageType.DISK;
      ids[i] = "storage" + i;
    }
    return new ReconstructionOrder(group, RS_6_3, indices, sources, targets, to, types, ids, targets.length);
  }

  @Test
  void everyInternalBlockHasHdfsLength() throws IOException {
    long[] lengths = {1, CELL - 1, CELL, 2L * CELL + 300, 6L * CELL, 6L * CELL + 1, 13L * CELL + 7, 60L * CELL};
    for (long length : lengths) {
      ReconstructionOrder order = order(length, (short) 2);
      RebuildGroup g = RebuildGroup.of(order);
      for (int u = 0; u < 9; u++) {
        ExtendedBlock hdfs = StripedBlockUtil.constructInternalBlock(order.blockGroup(), CELL, 6, u);
        assertEquals(hdfs, g.block(u), "block of unit " + u + " of a group of " + length);
        assertEquals(hdfs.getNumBytes(), g.block(u).getNumBytes(), "length of unit " + u + " of " + length);
      }
    }
  }

  @Test
  void lostBlocksKeepTheTargetsOrder() throws IOException {
    RebuildGroup g = RebuildGroup.of(order(6L * CELL * 3 + 100, (short) 7, (short) 1, (short) 4));
    assertArrayEquals(new int[] {7, 1, 4}, g.lost());
    assertArrayEquals(new int[] {1, 4, 7}, g.lostSorted());
    assertEquals(2, g.sortedIndex(0));
    assertEquals(0, g.sortedIndex(1));
    assertEquals(1, g.sortedIndex(2));
    byte[][] byTarget = g.byTarget(new byte[][] {{1}, {4}, {7}});
    assertArrayEquals(new byte[] {7}, byTarget[0]);
    assertArrayEquals(new byte[] {1}, byTarget[1]);
    assertArrayEquals(new byte[] {4}, byTarget[2]);
    assertEquals(4, g.rows());
    long lostBytes = g.block(7).getNumBytes() + g.block(1).getNumBytes() + g.block(4).getNumBytes();
    assertEquals(lostBytes, g.lostBytes());
  }

  @Test
  void aShortGroupsEmptyDataUnitsAreZerosNotSources() throws IOException {
    // two and a half cells: data units 3, 4 and 5 hold nothing
    RebuildGroup g = RebuildGroup.of(order(2L * CELL + CELL / 2, (short) 1));
    assertArrayEquals(new int[] {3, 4, 5}, g.emptyUnits());
    Sources s = Sources.of(g);
    assertArrayEquals(new int[] {0, 2, 6, 7, 8}, s.withSource());
    assertArrayEquals(new int[] {0, 2, 3, 4, 5, 6, 7, 8}, s.available());
    assertFalse(s.has(1), "a lost block has no source");
    assertFalse(s.has(4), "an empty block is never read");
    assertEquals(1, g.rows());
    assertEquals(CELL, g.codingLength(0), "RS codes as many bytes as the lost cell holds");
  }

  @Test
  void aFailedSourceGivesWayToItsSpare() throws IOException {
    Sources s = Sources.of(RebuildGroup.of(order(6L * CELL, (short) 5)));
    assertEquals("dn0", s.first(0).getHostName());
    assertEquals("dn0", s.drop(0).getHostName());
    assertEquals("spare", s.first(0).getHostName());
    assertEquals("spare", s.drop(0).getHostName());
    assertFalse(s.has(0));
    assertNull(s.drop(0), "no source left to drop");
    assertTrue(s.has(1));
  }

  @Test
  void anIndexTargetedTwiceIsRefused() {
    assertThrows(IOException.class, () -> RebuildGroup.of(order(6L * CELL, (short) 3, (short) 3)));
  }
}
