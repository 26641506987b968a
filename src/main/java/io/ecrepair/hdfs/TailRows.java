package io.ecrepair.hdfs;

import io.ecrepair.codes.CellLayout;
import io.ecrepair.exec.CellRowRepair;
import io.ecrepair.gf.RegionCoder;
import io.ecrepair.hdfs.transfer.RangeSource;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;

/**
 * The tails of a block's full rows when a code's sub-packetization does not divide the cell
 * (CLAY-6-3 has 27 sub-chunks; a 1 MiB cell leaves 4 bytes past 27 whole sub-chunks): a
 * parallel plan moves whole sub-chunks only, so beside it the requestor (the rebuilding
 * DataNode, or a client reading degraded) reads each tail helper's few tail bytes per row
 * (checksums verified, like every helper read) and rebuilds the lost blocks' tails with the
 * code's tail graph. A few bytes per row and helper.
 */
public final class TailRows {
  private TailRows() {}

  /**
   * The rebuilt tails of rows firstRow..firstRow+rows-1 (full rows) of every block {@code repair}
   * rebuilds: {@code result[i]} holds those of {@code repair.lost()[i]}, row after row, or null
   * when the cell splits into whole sub-chunks (no tail).
   *
   * @param helper opens the range source of a unit's internal block
   */
  public static byte[][] rebuild(CellRowRepair repair, RegionCoder coder, int cellSize, int firstRow, int rows,
                                 IntFunction<RangeSource> helper, ExecutorService pool, long timeoutMillis)
      throws IOException, InterruptedException {
    CellLayout cell = new CellLayout(repair.subPacketization(), cellSize);
    int tail = cell.tailBytes();
    if (tail == 0 || rows == 0) {
      return null;
    }
    int[] units = repair.tailHelpers();
    Map<Integer, Future<byte[]>> reads = new TreeMap<>();
    List<RangeSource> sources = new ArrayList<>();
    try {
      for (int u : units) {
        RangeSource src = helper.apply(u);
        sources.add(src);
        reads.put(u, pool.submit(() -> read(src, cell.tailOffset(), tail, cellSize, firstRow, rows)));
      }
      Map<Integer, byte[]> tails = new TreeMap<>();
      for (Map.Entry<Integer, Future<byte[]>> r : reads.entrySet()) {
        try {
          tails.put(r.getKey(), r.getValue().get(timeoutMillis, TimeUnit.MILLISECONDS));
        } catch (ExecutionException e) {
          throw new IOException("reading the tails of internal block " + r.getKey() + ": " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
          throw new IOException("reading the tails of internal block " + r.getKey() + " took over " + timeoutMillis
              + " ms");
        }
      }
      int[] lost = repair.lost();
      byte[][] out = new byte[lost.length][rows * tail];
      int maxUnit = units.length == 0 ? 0 : units[units.length - 1];
      ByteBuffer[] in = new ByteBuffer[maxUnit + 1];
      ByteBuffer[] rebuilt = new ByteBuffer[lost.length];
      for (int r = 0; r < rows; r++) {
        for (int u : units) {
          in[u] = ByteBuffer.wrap(tails.get(u), r * tail, tail).slice();
        }
        for (int i = 0; i < lost.length; i++) {
          rebuilt[i] = ByteBuffer.wrap(out[i], r * tail, tail).slice();
        }
        repair.runTail(coder, in, rebuilt, cellSize);
      }
      return out;
    } finally {
      for (Future<byte[]> f : reads.values()) {
        f.cancel(true);
      }
      for (RangeSource s : sources) {
        s.close();
      }
    }
  }

  private static byte[] read(RangeSource src, int tailOffset, int tail, int cellSize, int firstRow, int rows)
      throws IOException, InterruptedException {
    List<long[]> ranges = new ArrayList<>();
    for (int r = 0; r < rows; r++) {
      ranges.add(new long[] {(long) (firstRow + r) * cellSize + tailOffset, tail});
    }
    byte[] bytes = new byte[rows * tail];
    src.read(ranges, (blockOffset, data) -> {
      long inRow = blockOffset % cellSize;
      int r = (int) (blockOffset / cellSize) - firstRow;
      if (r < 0 || r >= rows) {
        throw new IOException("a tail read delivered bytes at " + blockOffset + ", outside the rows asked for");
      }
      if (inRow < tailOffset || inRow + data.remaining() > cellSize) {
        throw new IOException("a tail read delivered bytes at " + blockOffset + ", outside the tails asked for");
      }
      data.duplicate().get(bytes, r * tail + (int) (inRow - tailOffset), data.remaining());
    });
    return bytes;
  }
}
