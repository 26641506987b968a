package io.ecrepair.hdfs.task;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.codes.UndecodableException;
import io.ecrepair.exec.CellRowRepair;
import io.ecrepair.exec.RowLoop;
import io.ecrepair.gf.BufferPool;
import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.hdfs.agent.ReadFaults;
import io.ecrepair.hdfs.transfer.BlockRangeReader;
import io.ecrepair.hdfs.transfer.ChecksumFailures;
import io.ecrepair.hdfs.transfer.RangeListener;
import io.ecrepair.hdfs.transfer.RangeSource;
import io.ecrepair.layout.ByteRanges;
import io.ecrepair.layout.GroupLayout;
import io.ecrepair.plan.HelperChoice;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.server.datanode.DataNodeFaultInjector;
import org.apache.hadoop.util.DataChecksum;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The central repair: this DataNode reads the helpers and rebuilds the lost blocks itself.
 * {@link HelperChoice} gives the cheapest repair and, per cell row, the byte ranges of each
 * helper's cell it needs. Every helper's ranges for all rows, coalesced where they touch, are
 * read on one connection per helper into a window of cell rows ({@link RowWindow}); each
 * complete row is rebuilt with the compiled graphs and streamed to the targets. The last row of
 * a group is shorter (coding length L = min(cell, row bytes)), data cells past the end of the
 * data are zeros, and each target gets exactly its internal block's length.
 *
 * <p>A helper that fails or stalls is dropped: another source of the same index replaces it,
 * else the repair is planned again without it and goes on from the row where it stopped; when
 * the code cannot do without it the task fails. With {@code dfs.datanode.ec.reconstruction.validation}
 * every row is also rebuilt a second, independent way and compared.
 */
final class CentralRepair {
  private static final Logger LOG = LoggerFactory.getLogger(ReconstructionTask.class);
  /** Memory for a task's window of cell rows (direct buffers; at least one row). */
  private static final long WINDOW_BUDGET = 48L << 20;

  private final ReconstructionContext ctx;
  private final RebuildGroup group;
  private final GroupLayout layout;
  private final Sources sources;
  private final TargetSet targets;
  private final TaskStats stats;
  private final HelperReaders readers;
  /** What this task's helper reads still have to deliver, counted in the DataNode's inbound load. */
  private final AtomicLong expectedReads = new AtomicLong();

  CentralRepair(ReconstructionContext ctx, RebuildGroup group, Sources sources, TargetSet targets, TaskStats stats,
                HelperReaders readers) {
    this.ctx = ctx;
    this.group = group;
    this.layout = group.layout();
    this.sources = sources;
    this.targets = targets;
    this.stats = stats;
    this.readers = readers;
  }

  /** Rebuilds rows {@code row} to the last, planning again whenever a helper without a spare fails. */
  void rebuildFrom(int row) throws IOException, InterruptedException {
    CodeSpec spec = group.spec();
    int[] lostSorted = group.lostSorted();
    while (row < group.rows()) {
      int[] available = sources.available();
      CellRowRepair repair;
      long planStart = System.nanoTime();
      try {
        repair = HelperChoice.choose(spec, lostSorted, available, sources.costs(ctx.costs(), spec.n()), new int[0],
            ctx.costs().of(group.order().targets()[0]));
        RepairCatalog.prepareSingleLosses(spec); // after ours: the preparer holds the code while it compiles
      } catch (UndecodableException e) {
        throw new IOException("cannot rebuild " + Arrays.toString(lostSorted) + " of " + group.order().policy().getName()
            + " from internal blocks " + Arrays.toString(available) + ": " + e.getMessage(), e);
      }
      RepairPlans.Check check = ctx.validation()
          ? RepairPlans.check(spec, lostSorted, available, repair, sources.emptyUnits()) : null;
      stats.planned(planStart);
      try {
        row = run(row, repair, check);
      } catch (RowWindow.HelperFailure f) {
        row = replace(f);
      }
    }
  }

  /** Drops the failed helper's source (reporting a corrupt replica); returns the row to go on from. */
  private int replace(RowWindow.HelperFailure f) throws IOException {
    DatanodeInfo gone = sources.drop(f.unit);
    if (gone == null) {
      throw new IOException("helper " + f.unit + " failed but is not a source of " + group, f);
    }
    if (ChecksumFailures.in(f)) {
      ctx.reportCorrupt(group.block(f.unit), gone);
    }
    stats.replaced();
    LOG.warn("ec-repair: helper {} (internal block {}) failed at row {} of {}: {}; going on without it",
        gone, f.unit, f.row, group, f.getMessage(), f.getCause());
    return f.row;
  }

  /**
   * Rebuilds rows {@code from} to the last with one repair; returns the row count.
   *
   * @throws RowWindow.HelperFailure when a helper failed: rows before {@code f.row} are written
   */
  private int run(int from, CellRowRepair repair, RepairPlans.Check check) throws IOException, InterruptedException {
    int rows = group.rows();
    int cellSize = layout.cellSize();
    int[] emptyUnits = sources.emptyUnits();
    TreeSet<Integer> helperSet = new TreeSet<>();
    Arrays.stream(repair.helpers()).forEach(helperSet::add);
    if (check != null) {
      Arrays.stream(check.repair().helpers()).forEach(helperSet::add);
    }
    int[] reads = helperSet.stream().mapToInt(Integer::intValue).filter(u -> Arrays.binarySearch(emptyUnits, u) < 0)
        .toArray();
    BufferPool buffers = ctx.buffers();
    RowWindow window = new RowWindow(RowWindow.depthFor(reads.length, cellSize, WINDOW_BUDGET), layout.totalUnits(),
        cellSize, reads, from, buffers);
    ByteBuffer zeros = buffers.take(cellSize);
    int outputs = repair.lost().length; // the sorted lost blocks
    ByteBuffer[] out = new ByteBuffer[outputs];
    ByteBuffer[] checkOut = check == null ? null : new ByteBuffer[outputs];
    for (int i = 0; i < outputs; i++) {
      out[i] = buffers.take(cellSize);
      if (checkOut != null) {
        checkOut[i] = buffers.take(cellSize);
      }
    }
    List<HelperFeed> feeds = new ArrayList<>();
    List<Future<?>> running = new ArrayList<>();
    try {
      for (int u : reads) {
        HelperFeed feed = new HelperFeed(u, sources.first(u), from, repair, check, window);
        feeds.add(feed);
        long bytes = feed.ranges.total();
        expectedReads.addAndGet(bytes);
        ctx.inbound().addAndGet(bytes);
      }
      for (HelperFeed feed : feeds) {
        running.add(ctx.readPool().submit(feed));
      }
      stats.centralRowsStart();
      Supplier<DataChecksum> checksum = () -> checksumOf(feeds);
      RowLoop loop = new RowLoop(ctx.coder());
      try {
        loop.run(from, rows, new RowLoop.Rows() {
          @Override
          public RowLoop.Step gather(int r) throws IOException, InterruptedException {
            ByteBuffer[] cells;
            try {
              cells = window.awaitRow(r, ctx.stallMillis()).clone();
            } catch (RowWindow.HelperFailure f) {
              // Rows before r are written; the next repair starts at r.
              throw new RowWindow.HelperFailure(f.unit, r, f.getMessage(), f.getCause());
            }
            for (int u : emptyUnits) {
              cells[u] = zeros;
            }
            return new RowLoop.Step(repair, cells, out, group.codingLength(r));
          }

          @Override
          public void rebuilt(int r, RowLoop.Step step) throws IOException {
            DataNodeFaultInjector.get().badDecoding(out); // where HDFS's tests corrupt decoded cells
            if (check != null) {
              check(r, check, step, checkOut);
            }
            window.release(r);
            for (int i = 0; i < group.lostCount(); i++) {
              stats.rowWritten(targets.write(i, out[group.sortedIndex(i)], layout.cellLength(r, group.lost(i)),
                  checksum, ctx.budget()));
            }
            stats.lastRowWritten();
          }
        });
      } finally {
        stats.phases(loop.gatherNanos(), loop.computeNanos(), loop.deliverNanos());
      }
      return rows;
    } finally {
      window.cancel();
      for (HelperFeed f : feeds) {
        f.reader.close();
      }
      arrived(Long.MAX_VALUE);
      boolean readersDone = true;
      for (Future<?> f : running) {
        try {
          f.get(ctx.stallMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
          // the feed reported its failure through the window, or was cancelled
        }
        readersDone &= f.isDone();
      }
      // Only this thread still uses the output buffers; the cell buffers only if no reader
      // can still write into them (one stuck past the wait keeps them, and the GC frees them).
      buffers.give(zeros);
      for (int i = 0; i < outputs; i++) {
        buffers.give(out[i]);
        buffers.give(checkOut == null ? null : checkOut[i]);
      }
      if (readersDone) {
        window.recycle(buffers);
      }
    }
  }

  /** Validation (HDFS's setting): row r rebuilt again independently must give the same bytes, or nothing is committed. */
  private void check(int r, RepairPlans.Check check, RowLoop.Step step, ByteBuffer[] checkOut) throws IOException {
    check.repair().run(check.coder(), step.cells(), checkOut, step.codingLength());
    for (int i = 0; i < group.lostCount(); i++) {
      int len = layout.cellLength(r, group.lost(i));
      int j = group.sortedIndex(i);
      if (step.out()[j].slice(0, len).compareTo(checkOut[j].slice(0, len)) != 0) {
        if (ctx.datanode().getMetrics() != null) {
          ctx.datanode().getMetrics().incrECInvalidReconstructionTasks();
        }
        throw new IOException("validation failed: row " + r + " of internal block " + group.lost(i) + " of " + group
            + " differs from its recomputation (" + check.how() + "); nothing was committed");
      }
    }
    stats.validated();
  }

  /** The helpers' checksum type (they all share one); the configured default before any read. */
  private DataChecksum checksumOf(List<HelperFeed> feeds) {
    for (HelperFeed f : feeds) {
      DataChecksum cs = f.reader.checksum();
      if (cs != null) {
        return DataChecksum.newDataChecksum(cs.getChecksumType(), cs.getBytesPerChecksum());
      }
    }
    return ctx.defaultChecksum();
  }

  /** {@code bytes} of the helper reads arrived (or will not): the DataNode's inbound load drops by them. */
  private void arrived(long bytes) {
    long left;
    long n;
    do {
      left = expectedReads.get();
      n = Math.min(left, bytes);
    } while (!expectedReads.compareAndSet(left, left - n));
    ctx.inbound().addAndGet(-n);
  }

  /** Ranges {offset, length} as one sorted list without overlaps. */
  static List<int[]> union(List<int[]> a, List<int[]> b) {
    List<int[]> all = new ArrayList<>(a);
    all.addAll(b);
    return ByteRanges.merged(all);
  }

  /** Reads one helper's ranges for every row into the window, zero where its cells hold no bytes. */
  private final class HelperFeed implements Runnable, BlockRangeReader.Sink {
    private final int unit;
    private final RangeSource reader;
    private final int from;
    private final RowWindow window;
    /** Per row (from..rows-1): needed cell ranges {offset, length}. */
    private final List<List<int[]>> needed = new ArrayList<>();
    /** The block ranges those rows need, merged where they touch. */
    private final ByteRanges ranges = new ByteRanges();
    private int row;
    private ByteBuffer cell;

    HelperFeed(int unit, DatanodeInfo source, int from, CellRowRepair repair, RepairPlans.Check check,
               RowWindow window) {
      this.unit = unit;
      this.from = from;
      this.window = window;
      this.row = from - 1;
      int cellSize = layout.cellSize();
      for (int r = from; r < group.rows(); r++) {
        int codingLength = group.codingLength(r);
        List<int[]> cellRanges = repair.ranges(unit, codingLength);
        if (check != null) {
          cellRanges = union(cellRanges, check.repair().ranges(unit, codingLength));
        }
        needed.add(cellRanges);
        for (long[] range : RowLoop.storedRanges(cellRanges, (long) r * cellSize, layout.cellLength(r, unit))) {
          ranges.add(range[0], range[1]);
        }
      }
      io.ecrepair.hdfs.transfer.RepairBudget budget = ctx.budget();
      LongConsumer counted = stats.helperReads(unit);
      RangeListener listener = new RangeListener() {
        @Override
        public void delivered(long bytes) {
          arrived(bytes);
          counted.accept(bytes);
          window.progressed(unit);
          budget.received(bytes);
        }

        @Override
        public void rangeDone(int rangesDone) throws IOException {
          ReadFaults.afterRange(source, rangesDone);
        }
      };
      this.reader = readers.open(source, group.block(unit), listener);
    }

    @Override
    public void run() {
      try {
        reader.read(ranges.ranges(), this);
        advanceTo(group.rows() - 1);
        window.completed(unit, group.rows());
      } catch (Throwable t) {
        window.fail(new RowWindow.HelperFailure(unit, Math.max(row, from), "reading internal block " + unit + " from "
            + reader.source() + ": " + t, t));
      } finally {
        reader.close();
      }
    }

    @Override
    public void accept(long blockOffset, ByteBuffer data) throws IOException, InterruptedException {
      int cellSize = layout.cellSize();
      long off = blockOffset;
      ByteBuffer src = data.duplicate();
      while (src.hasRemaining()) {
        int r = (int) (off / cellSize);
        advanceTo(r);
        int inCell = (int) (off % cellSize);
        int len = Math.min(src.remaining(), cellSize - inCell);
        ReadFaults.beforeCellWrite(reader.source());
        cell.put(inCell, src, src.position(), len);
        src.position(src.position() + len);
        off += len;
      }
    }

    /** Completes the rows before {@code r} and makes {@code r} current (its slot free, zeros in place). */
    private void advanceTo(int r) throws IOException, InterruptedException {
      while (row < r) {
        if (row >= from) {
          window.completed(unit, row + 1);
        }
        row++;
        cell = window.cell(unit, row);
        RowLoop.zeroPastStored(cell, needed.get(row - from), layout.cellLength(row, unit));
      }
    }
  }
}
