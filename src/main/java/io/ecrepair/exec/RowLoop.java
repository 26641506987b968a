package io.ecrepair.exec;

import io.ecrepair.gf.Buffers;
import io.ecrepair.gf.RegionCoder;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The row loop of every repair that rebuilds cells in one place: the DataNode's central
 * reconstruction, the client's degraded reads and the CLI's repair of local block files all
 * go through it. For each cell row the caller gathers the cells the row's repair reads (it
 * alone knows where the bytes come from: streams of helper reads, HDFS block reads, block
 * files), the loop runs the repair, and the caller takes the rebuilt cells. Distributed plans
 * run on {@link PartRunner} instead, row slice by row slice on every participant.
 */
public final class RowLoop {
  /**
   * One row's work: {@code repair} (null: the row rebuilds nothing, e.g. a read of healthy
   * cells only) over {@code cells} (cells[u] holds at least {@code repair.ranges(u,
   * codingLength)} of unit u's cell, offsets from 0) into {@code out} (out[i] for
   * {@code repair.lost()[i]}).
   */
  public record Step(CellRowRepair repair, ByteBuffer[] cells, ByteBuffer[] out, int codingLength) {}

  /** Where a loop's rows come from and go to. */
  public interface Rows {
    /** Row r's work with its input cells gathered; null to skip the row. */
    Step gather(int row) throws IOException, InterruptedException;

    /** Takes row r's rebuilt cells ({@code step.out()}). */
    void rebuilt(int row, Step step) throws IOException, InterruptedException;
  }

  private final RegionCoder coder;
  private long gatherNanos;
  private long computeNanos;
  private long deliverNanos;

  public RowLoop(RegionCoder coder) {
    this.coder = coder;
  }

  /** Runs rows {@code from..to-1} in order; a failure stops the loop at the row it happened in. */
  public void run(int from, int to, Rows rows) throws IOException, InterruptedException {
    for (int r = from; r < to; r++) {
      long t0 = System.nanoTime();
      Step step = rows.gather(r);
      long t1 = System.nanoTime();
      gatherNanos += t1 - t0;
      if (step == null) {
        continue;
      }
      if (step.repair() != null) {
        step.repair().run(coder, step.cells(), step.out(), step.codingLength());
      }
      long t2 = System.nanoTime();
      computeNanos += t2 - t1;
      rows.rebuilt(r, step);
      deliverNanos += System.nanoTime() - t2;
    }
  }

  /** Time spent gathering cells (waiting for reads). */
  public long gatherNanos() {
    return gatherNanos;
  }

  /** Time spent computing the repairs. */
  public long computeNanos() {
    return computeNanos;
  }

  /** Time spent handing rebuilt cells on (writing them). */
  public long deliverNanos() {
    return deliverNanos;
  }

  /**
   * The byte ranges {offset, length} of a unit's block that cell ranges of one row cover,
   * clipped to the {@code stored} bytes the unit's cell holds in that row ({@code rowOffset}:
   * where the row's cell starts in the block). Past them a cell is zeros for coding: HDFS pads
   * a group's last row, and a unit with no bytes there holds none.
   */
  public static List<long[]> storedRanges(List<int[]> cellRanges, long rowOffset, int stored) {
    List<long[]> out = new ArrayList<>();
    for (int[] r : cellRanges) {
      int end = Math.min(r[0] + r[1], stored);
      if (end > r[0]) {
        out.add(new long[] {rowOffset + r[0], end - r[0]});
      }
    }
    return out;
  }

  /** Zeros the parts of {@code cellRanges} past the {@code stored} bytes of {@code cell}. */
  public static void zeroPastStored(ByteBuffer cell, List<int[]> cellRanges, int stored) {
    for (int[] r : cellRanges) {
      Buffers.zero(cell, Math.max(r[0], stored), r[0] + r[1]);
    }
  }
}
