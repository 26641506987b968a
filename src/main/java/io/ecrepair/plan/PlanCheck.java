package io.ecrepair.plan;

import io.ecrepair.codes.ErasureCode;
import io.ecrepair.exec.SimulatedCluster;
import io.ecrepair.gf.RegionCoder;
import java.nio.ByteBuffer;
import java.util.Random;

/**
 * Proves a plan on real data: encodes random stripes with the code, drops the lost blocks,
 * runs the plan on a {@link SimulatedCluster}, and checks that the requestor ends with the
 * lost blocks' bytes and that every node moved exactly what the traffic table says (sub-chunks
 * x sub-chunk bytes x cell rows).
 */
public final class PlanCheck {
  /** The outcome; {@link #ok()} when both the bytes and the traffic match. */
  public record Report(boolean repairedMatches, boolean trafficMatches, long bytesMoved, long expectedBytes,
                       long[] bytesIn, long[] bytesOut, int rows, int subchunkBytes) {
    public boolean ok() {
      return repairedMatches && trafficMatches;
    }
  }

  private PlanCheck() {}

  /**
   * @param subchunkBytes bytes per sub-chunk of the plan's graph; a cell is subchunkCount x that
   * @param rows cell rows per block
   */
  public static Report run(ErasureCode code, Plan plan, int lost, int subchunkBytes, int rows, int sliceBytes, long seed,
                           RegionCoder coder) {
    return run(code, plan, new int[] {lost}, subchunkBytes, rows, sliceBytes, seed, coder);
  }

  /** The same for a plan that rebuilds several blocks: the requestor must end with each of them. */
  public static Report run(ErasureCode code, Plan plan, int[] lost, int subchunkBytes, int rows, int sliceBytes,
                           long seed, RegionCoder coder) {
    int n = code.totalUnits();
    int k = code.dataUnits();
    int cell = plan.graph().subchunkCount() * subchunkBytes;
    if (cell % code.subPacketization() != 0) {
      throw new IllegalArgumentException("a cell of " + cell + " bytes does not split into the code's "
          + code.subPacketization() + " sub-chunks");
    }
    ByteBuffer[] blocks = new ByteBuffer[n];
    for (int b = 0; b < n; b++) {
      blocks[b] = ByteBuffer.allocate(rows * cell);
    }
    Random rnd = new Random(seed);
    byte[] chunk = new byte[cell];
    for (int r = 0; r < rows; r++) {
      for (int b = 0; b < k; b++) {
        rnd.nextBytes(chunk);
        blocks[b].put(r * cell, chunk);
      }
      int[] dOff = new int[k];
      int[] pOff = new int[n - k];
      java.util.Arrays.fill(dOff, r * cell);
      java.util.Arrays.fill(pOff, r * cell);
      code.encode(java.util.Arrays.copyOf(blocks, k), dOff, java.util.Arrays.copyOfRange(blocks, k, n), pOff, cell);
    }
    ByteBuffer[] stored = blocks.clone();
    for (int l : lost) {
      stored[l] = null;
    }
    ByteBuffer[] withSlot = java.util.Arrays.copyOf(stored, plan.problem().nodeCount());
    SimulatedCluster.Result res = new SimulatedCluster(coder).run(plan.graph(), plan.colors(),
        plan.problem().nodeCount(), withSlot, subchunkBytes, sliceBytes);
    boolean same = java.util.Arrays.equals(res.lostBlocks(), java.util.stream.IntStream.of(lost).sorted().toArray());
    for (int l : lost) {
      same &= res.repaired(l).equals(blocks[l].duplicate().clear());
    }
    Traffic t = plan.traffic();
    long unit = (long) subchunkBytes * rows;
    boolean traffic = true;
    for (int node = 0; node < t.nodeCount(); node++) {
      traffic &= res.bytesIn()[node] == t.in(node) * unit && res.bytesOut()[node] == t.out(node) * unit;
    }
    return new Report(same, traffic, res.totalBytes(), t.bandwidth() * unit, res.bytesIn(), res.bytesOut(), rows,
        subchunkBytes);
  }
}
