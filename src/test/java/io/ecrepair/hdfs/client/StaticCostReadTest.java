package io.ecrepair.hdfs.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ecrepair.hdfs.CostKeys;
import io.ecrepair.testing.ClusterTest;
import java.nio.file.Path;
import java.util.Arrays;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An operator marks one DataNode slow ({@value CostKeys#COSTS_KEY}): a degraded read of a lost
 * Clay cell then decodes it from the four other blocks, whole cells (4 cells read), instead of
 * the sub-chunk repair that reads half a cell from each of the five (2.5 cells) including the
 * slow one, whose half cell at a factor of 16 takes as long as 8 cells through a typical link,
 * twice the decode's 4 cells into the reader. The bytes are right either way.
 */
@ClusterTest
class StaticCostReadTest {
  private static final int CELL = 64 * 1024;

  @TempDir
  Path tmp;

  @Test
  void aSlowDataNodeIsReadAround() throws Exception {
    try (DegradedCluster c = new DegradedCluster(tmp.resolve("dfs").toFile(), 7)) {
      ErasureCodingPolicy policy = c.policy("clay", 4, 2, CELL);
      org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/clay/f");
      byte[] data = c.write(file, policy, 4 * 2 * CELL, 2L * CELL, 5);
      DatanodeInfo slow = c.holder(file, 0, 5);
      c.stopAndForget(c.holder(file, 0, 0));

      assertEquals(5 * CELL / 2, fetchedReadingCell0(c, new Configuration(c.conf), data), "sub-chunk repair");
      Configuration marked = new Configuration(c.conf);
      marked.set(CostKeys.COSTS_KEY, "nowhere=3, " + slow.getXferAddr() + "=16, bad-entry");
      assertEquals(4 * CELL, fetchedReadingCell0(c, marked, data), "a decode from the four others");
    }
  }

  /** Reads the lost cell (bytes 0..CELL of the file) with a new client; returns the bytes it fetched. */
  private static long fetchedReadingCell0(DegradedCluster c, Configuration conf, byte[] data) throws Exception {
    byte[] back = new byte[CELL];
    try (FileSystem fs = FileSystem.newInstance(c.uri(), conf);
         FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path("/clay/f"))) {
      in.readFully(0, back);
      assertArrayEquals(Arrays.copyOf(data, CELL), back);
      return DegradedReadStats.of(in).bytesFetched();
    }
  }
}
