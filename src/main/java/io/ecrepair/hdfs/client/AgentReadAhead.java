package io.ecrepair.hdfs.client;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.layout.GroupLayout;
import java.nio.ByteBuffer;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;

/**
 * A stream's cells of a lost unit that the repair agents rebuild ahead of small reads walking
 * through it ({@link AgentReads}). A read of whole cells of the unit asks for a window of more
 * rows than it wants (up to a limit), and each row is the reader's as soon as it
 * arrived: the first bytes come after one row, and a request's setup, filling and draining are
 * paid once for the whole window. Once rows of a window are in, the next window is requested,
 * so its setup overlaps this one's last rows (not its first: two setups at once share the CPU
 * and both start late). A read elsewhere cancels the windows on their way. At most two windows
 * are held: the current one and the next. Rows and bytes are counted as the reader takes them.
 */
final class AgentReadAhead {
  /** Rows [from, to) of unit {@code unit} of group {@code group}, rebuilt (or on their way) into {@code cells}. */
  private static final class Window implements AgentReads.Sink {
    final long group;
    final int unit;
    final int from;
    final int to;
    final ByteBuffer cells;
    final int cell;
    Future<Long> received;
    /** Bytes the client had received when each row had arrived; rows arrived so far (guarded by this). */
    private final long[] bytesThrough;
    private int arrived;
    /** What the stream's statistics have of this window: rows, bytes and when last. */
    int countedRows;
    long countedBytes;
    long countedAt = System.nanoTime();

    Window(long group, int unit, int from, int to, int cell) {
      this.group = group;
      this.unit = unit;
      this.from = from;
      this.to = to;
      this.cell = cell;
      this.cells = ByteBuffer.allocate((to - from) * cell);
      this.bytesThrough = new long[to - from];
    }

    boolean of(long g, int u) {
      return g == group && u == unit;
    }

    boolean covers(long g, int u, int rowsFrom, int rowsTo) {
      return of(g, u) && rowsFrom >= from && rowsTo <= to;
    }

    @Override
    public void put(int row, int cellOffset, ByteBuffer src, int off, int len) {
      cells.put((row - from) * cell + cellOffset, src, off, len);
    }

    @Override
    public synchronized void rowDone(int row, long bytesReceived) {
      bytesThrough[row - from] = bytesReceived;
      arrived = Math.max(arrived, row - from + 1);
      notifyAll();
    }

    /** Waits until the rows before {@code row} arrived; false when the run ended without them. */
    synchronized boolean awaitRows(int row) throws InterruptedException {
      while (arrived < row - from && !received.isDone()) {
        wait(20); // a run that fails says nothing: its future is looked at every 20 ms
      }
      return arrived >= row - from;
    }

    synchronized long bytesThrough(int row) {
      return bytesThrough[row - from];
    }
  }

  private final AgentReads agents;
  private final DegradedReadStats stats;
  /** Counts the bytes a window brought where HDFS's read statistics count a stream's bytes. */
  private final java.util.function.LongConsumer received;
  private final int cell;
  private final int maxRows;
  private Window current;
  private Window next;

  AgentReadAhead(AgentReads agents, DegradedReadStats stats, java.util.function.LongConsumer received, int cell,
                 int maxRows) {
    this.agents = agents;
    this.stats = stats;
    this.received = received;
    this.cell = cell;
    this.maxRows = maxRows;
  }

  /**
   * The cells of rows [from, to) of lost unit {@code unit} (at most {@link #maxRows}), row r's
   * at {@code (r - firstRow(...)) * cell} of the buffer returned, or null when the agents could
   * not rebuild them (the caller fetches instead). {@code last} is the row the agents may rebuild up to.
   * {@code wholeCells}: the read takes whole cells of the unit, as a reader scanning the block
   * does, so the rows after it are asked for too; any other read asks for its own rows only.
   */
  ByteBuffer rows(LocatedStripedBlock group, GroupUnits units, CodeSpec spec, GroupLayout layout, int unit, int from,
                  int to, int last, boolean wholeCells) throws InterruptedException {
    long id = group.getBlock().getBlockId();
    if (current == null || !current.covers(id, unit, from, to)) {
      cancel(current); // a run the reader left before its end stops
      if (next != null && next.covers(id, unit, from, to)) {
        current = next;
        next = null;
      } else {
        cancelNext();
        int rows = wholeCells ? maxRows : 1;
        current = start(group, units, spec, layout, unit, from, Math.min(last, Math.max(to, from + rows)));
      }
    }
    Window w = current;
    boolean ahead = wholeCells && w.to < last;
    if (ahead && to == w.to) {
      startNext(group, units, spec, layout, unit, last); // this read waits for all of w: the next must be on its way
    }
    if (!arrived(w, to)) {
      release();
      stats.agentsFellBack();
      return null;
    }
    if (ahead) {
      // Once rows of w are in, w's setup is done: two setups at once would share the CPU and start both late.
      startNext(group, units, spec, layout, unit, last);
    }
    return w.cells;
  }

  /** Starts the window after the current one, unless it is on its way. */
  private void startNext(LocatedStripedBlock group, GroupUnits units, CodeSpec spec, GroupLayout layout, int unit,
                         int last) {
    if (next == null) {
      next = start(group, units, spec, layout, unit, current.to, Math.min(last, current.to + maxRows));
    }
  }

  /** Starts rebuilding rows [from, to) in the background. */
  private Window start(LocatedStripedBlock group, GroupUnits units, CodeSpec spec, GroupLayout layout, int unit,
                       int from, int to) {
    Window w = new Window(group.getBlock().getBlockId(), unit, from, to, cell);
    w.received = agents.rebuildInBackground(group, units, spec, layout, unit, from, to - from, w);
    return w;
  }

  /** Whether the current window holds, or is bringing, rows [from, to) of {@code unit} of group {@code group}. */
  boolean holds(long group, int unit, int from, int to) {
    return current != null && current.covers(group, unit, from, to);
  }

  /** The first row of the buffer {@link #rows} returned last. */
  int firstRow() {
    return current.from;
  }

  /**
   * Waits until rows [w.from, to) arrived (the whole run, to its helpers' last answers, when
   * {@code to} is the window's end); whether they did. Counts the rows taken since the last count.
   */
  private boolean arrived(Window w, int to) throws InterruptedException {
    long all = -1;
    try {
      if (to < w.to) {
        if (!w.awaitRows(to)) {
          return false;
        }
      } else {
        all = w.received.get();
        if (all < 0) {
          return false;
        }
      }
    } catch (InterruptedException e) {
      release();
      throw e;
    } catch (ExecutionException e) {
      return false;
    }
    int rows = to - w.from;
    if (rows > w.countedRows) {
      long bytes = (all >= 0 ? all : w.bytesThrough(to - 1)) - w.countedBytes;
      long now = System.nanoTime();
      stats.rebuiltByAgents(w.countedRows == 0 ? 1 : 0, rows - w.countedRows, bytes, now - w.countedAt);
      received.accept(bytes);
      w.countedRows = rows;
      w.countedBytes += bytes;
      w.countedAt = now;
    }
    return true;
  }

  private void cancelNext() {
    cancel(next);
    next = null;
  }

  /** Stops a window's run if it is still going (its buffer is dropped with it). */
  private static void cancel(Window w) {
    if (w != null) {
      w.received.cancel(true); // the run stops and closes its connections
    }
  }

  /** Drops both windows (unbuffer, close). */
  void release() {
    cancelNext();
    cancel(current);
    current = null;
  }
}
