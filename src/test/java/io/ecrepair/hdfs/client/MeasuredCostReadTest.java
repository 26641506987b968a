package io.ecrepair.hdfs.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.hdfs.CostKeys;
import io.ecrepair.plan.MeasuredCosts;
import io.ecrepair.testing.ClusterTest;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Measured costs in the client: degraded reads time every helper fetch into the JVM's store,
 * and a DataNode the store knows as slow is read around like one the operator marked. Whether a
 * real DataNode is slow on this one host is noise, so the slow one's reads are fed to the store
 * here; the fetches' own measurements of the others are real.
 */
@ClusterTest
class MeasuredCostReadTest {
  private static final int CELL = 128 * 1024;

  @TempDir
  Path tmp;

  @BeforeEach
  @AfterEach
  void forget() {
    ClientCosts.forget();
  }

  @Test
  void readsMeasureTheirHelpersAndAvoidOneMeasuredSlow() throws Exception {
    try (DegradedCluster c = new DegradedCluster(tmp.resolve("dfs").toFile(), 7)) {
      ErasureCodingPolicy policy = c.policy("clay", 4, 2, CELL);
      org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/clay/f");
      byte[] data = c.write(file, policy, 4 * 8 * CELL, 8L * CELL, 9);
      c.stopAndForget(c.holder(file, 0, 0));
      Configuration measured = new Configuration(c.conf);
      measured.setBoolean(CostKeys.COSTS_MEASURED_KEY, true);
      MeasuredCosts store = ClientCosts.measured(measured);

      // Each row's sub-chunk repair fetches half a cell (64 KiB) from the five others: measured.
      assertEquals(5 * CELL / 2, fetched(c, measured, data, 0), "sub-chunk repair");
      assertEquals(5 * CELL / 2, fetched(c, measured, data, 1), "sub-chunk repair");
      for (int u = 1; u < 6; u++) {
        String node = c.holder(file, 0, u).getXferAddr();
        assertEquals(2, store.reads(node), "two rows read from " + node);
      }

      // Parity 1's DataNode reads twelve times slower than the typical helper (its half cell
      // then takes 6 cell-times, the decode's four whole cells 4). A fresh store, so that the
      // real timings of this one host do not mix with the ones fed here.
      ClientCosts.forget();
      store = ClientCosts.measured(measured);
      DatanodeInfo slow = c.holder(file, 0, 5);
      double typicalNanosPerByte = 1e4 / 1024; // far slower than this host: only the ratio matters
      for (int i = 0; i < 20; i++) {
        for (int u = 1; u < 5; u++) {
          store.record(c.holder(file, 0, u).getXferAddr(), CELL, (long) (CELL * typicalNanosPerByte));
        }
        store.record(slow.getXferAddr(), CELL, (long) (12 * CELL * typicalNanosPerByte));
      }
      assertTrue(store.slowNodes().containsKey(slow.getXferAddr()), store.toString());
      assertEquals(Map.of(slow.getXferAddr(), store.slowNodes().get(slow.getXferAddr())), store.slowNodes());
      assertTrue(ClientMetrics.slowNodeList().startsWith(slow.getXferAddr() + "="), ClientMetrics.slowNodeList());
      assertEquals(4 * CELL, fetched(c, measured, data, 2), "a decode from the four others");

      Configuration off = new Configuration(c.conf);
      off.setBoolean(CostKeys.COSTS_MEASURED_KEY, false);
      assertEquals(5 * CELL / 2, fetched(c, off, data, 3), "measured costs off: the code's own repair");
    }
  }

  @Test
  void withCostsOnOurClientTakesRsReadsOverAndReadsAroundTheSlowNode() throws Exception {
    try (DegradedCluster c = new DegradedCluster(tmp.resolve("dfs").toFile(), 6)) {
      ErasureCodingPolicy policy = c.policy("rs", 3, 2, CELL);
      org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/rs/f");
      byte[] data = c.write(file, policy, 3 * 4 * CELL, 4L * CELL, 11);
      c.stopAndForget(c.holder(file, 0, 0));
      Configuration measured = new Configuration(c.conf);
      measured.setBoolean(CostKeys.COSTS_MEASURED_KEY, true);
      MeasuredCosts store = ClientCosts.measured(measured);
      String slow = c.holder(file, 0, 1).getXferAddr(); // in RS's own repair from the first three
      for (int i = 0; i < 20; i++) {
        for (int u = 2; u < 5; u++) {
          store.record(c.holder(file, 0, u).getXferAddr(), CELL, CELL * 10L);
        }
        store.record(slow, CELL, CELL * 80L);
      }
      int slowReads = store.reads(slow);

      try (FileSystem fs = FileSystem.newInstance(c.uri(), measured);
           FSDataInputStream in = fs.open(file)) {
        byte[] back = new byte[CELL];
        in.readFully(0, back);
        assertArrayEquals(Arrays.copyOf(data, CELL), back);
        assertEquals(1, DegradedReadStats.of(in).cellsRebuilt(), "our reader rebuilt the RS cell");
        assertEquals(3 * CELL, DegradedReadStats.of(in).bytesFetched());
      }
      assertEquals(slowReads, store.reads(slow), "the slow DataNode was not read");
      for (int u = 2; u < 5; u++) {
        assertEquals(21, store.reads(c.holder(file, 0, u).getXferAddr()), "internal block " + u + " read once");
      }
    }
  }

  /** Reads the lost cell of row {@code row} with a new client; returns the bytes it fetched. */
  private static long fetched(DegradedCluster c, Configuration conf, byte[] data, int row) throws Exception {
    byte[] back = new byte[CELL];
    long at = (long) row * 4 * CELL;
    try (FileSystem fs = FileSystem.newInstance(c.uri(), conf);
         FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path("/clay/f"))) {
      in.readFully(at, back);
      assertArrayEquals(Arrays.copyOfRange(data, (int) at, (int) at + CELL), back);
      return DegradedReadStats.of(in).bytesFetched();
    }
  }
}
