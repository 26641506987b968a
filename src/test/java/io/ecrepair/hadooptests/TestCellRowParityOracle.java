package io.ecrepair.hadooptests;

import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.Random;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.io.erasurecode.CodecUtil;
import org.apache.hadoop.io.erasurecode.ErasureCoderOptions;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureEncoder;
import org.junit.Test;

/**
 * CellRowParityOracle accepts a CLAY-4-2-64k group whose parity is encoded cell row by cell row (a
 * short last row included) and rejects one with a wrong byte or with whole-block parity.
 */
public class TestCellRowParityOracle {
  private static final ErasureCodingPolicy CLAY = TestPolicies.named(TestPolicies.CLAY);
  private static final int K = CLAY.getNumDataUnits();
  private static final int M = CLAY.getNumParityUnits();
  private static final int CELL = CLAY.getCellSize();
  private static final Set<Integer> ALL = Set.of(0, 1, 2, 3, 4, 5);
  private final Configuration conf = new Configuration();

  @Test
  public void acceptsParityEncodedPerCellRow() {
    for (long size : new long[] {(long) K * CELL, 2L * K * CELL + 1000, 2L * K * CELL + CELL + 7}) {
      byte[][] data = stripe(size);
      CellRowParityOracle.verify(conf, size, CELL, data, rowParity(data, size), ALL, CLAY.getCodecName());
    }
  }

  @Test
  public void rejectsAFlippedParityByte() {
    long size = 2L * K * CELL + 1000;
    byte[][] data = stripe(size);
    byte[][] parity = rowParity(data, size);
    parity[1][CELL + 17] ^= 1;
    AssertionError e = assertThrows(AssertionError.class,
        () -> CellRowParityOracle.verify(conf, size, CELL, data, parity, ALL, CLAY.getCodecName()));
    assertTrue(e.getMessage(), e.getMessage().contains("parity block 5") && e.getMessage().contains("offset " + CELL));
  }

  @Test
  public void rejectsWholeBlockParity() {
    long size = 2L * K * CELL;
    byte[][] data = stripe(size);
    byte[][] parity = new byte[M][2 * CELL];
    encode(data, parity);
    assertThrows(AssertionError.class,
        () -> CellRowParityOracle.verify(conf, size, CELL, data, parity, ALL, CLAY.getCodecName()));
  }

  /** The data blocks of a group of {@code size} random bytes, each as long as HDFS stores it. */
  private static byte[][] stripe(long size) {
    byte[] bytes = new byte[(int) size];
    new Random(size).nextBytes(bytes);
    byte[][] blocks = new byte[K][];
    for (int u = 0; u < K; u++) {
      int length = 0;
      for (long at = (long) u * CELL; at < size; at += (long) K * CELL) {
        length += (int) Math.min(CELL, size - at);
      }
      blocks[u] = new byte[length];
      for (long at = (long) u * CELL, to = 0; at < size; at += (long) K * CELL, to += CELL) {
        System.arraycopy(bytes, (int) at, blocks[u], (int) to, (int) Math.min(CELL, size - at));
      }
    }
    return blocks;
  }

  /** Parity as HDFS's striped writer makes it: each row coded at the length of its first cell. */
  private static byte[][] rowParity(byte[][] data, long size) {
    int parityLength = data[0].length;
    byte[][] parity = new byte[M][parityLength];
    for (int from = 0; from < parityLength; from += CELL) {
      int length = Math.min(CELL, parityLength - from);
      byte[][] in = new byte[K][];
      for (int u = 0; u < K; u++) {
        in[u] = CellRowParityOracle.slice(data[u], from, length);
      }
      byte[][] out = new byte[M][length];
      encode(in, out);
      for (int i = 0; i < M; i++) {
        System.arraycopy(out[i], 0, parity[i], from, length);
      }
    }
    return parity;
  }

  private static void encode(byte[][] in, byte[][] out) {
    RawErasureEncoder encoder = CodecUtil.createRawEncoder(new Configuration(), CLAY.getCodecName(),
        new ErasureCoderOptions(K, M));
    try {
      encoder.encode(in, out);
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    } finally {
      encoder.release();
    }
  }
}
