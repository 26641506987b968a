package io.ecrepair.hdfs.client;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.layout.StripedLayout;
import java.nio.ByteBuffer;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;

/**
 * A stream's cells of a lost unit that the repair agents rebuilt ahead of small reads walking
 * through it ({@link AgentReads}): each request to the agents covers more rows than the read
 * wants (doubling while the reads go on row after row, up to a limit), and while one window is
 * on its way to the client the next is requested too, so the agents' setup and the chain's
 * filling hide behind the transfer. A read elsewhere cancels the window on its way. At most
 * two windows are held: the current one and the next.
 */
final class AgentReadAhead {
  /** Rows [from, to) of unit {@code unit} of group {@code group}, rebuilt (or on their way) into {@code cells}. */
  private static final class Window {
    final long group;
    final int unit;
    final int from;
    final int to;
    final ByteBuffer cells;
    final long startNanos = System.nanoTime();
    Future<Long> received;

    Window(long group, int unit, int from, int to, int cell) {
      this.group = group;
      this.unit = unit;
      this.from = from;
      this.to = to;
      this.cells = ByteBuffer.allocate((to - from) * cell);
    }

    boolean of(long g, int u) {
      return g == group && u == unit;
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
  private int ahead = 1;

  AgentReadAhead(AgentReads agents, DegradedReadStats stats, java.util.function.LongConsumer received, int cell,
                 int maxRows) {
    this.agents = agents;
    this.stats = stats;
    this.received = received;
    this.cell = cell;
    this.maxRows = maxRows;
  }

  /** The most rows one window holds. */
  int maxRows() {
    return maxRows;
  }

  /**
   * The cells of rows [from, to) of lost unit {@code unit} (at most {@link #maxRows}), row r's
   * at {@code (r - firstRow(...)) * cell} of the buffer returned, or null when the agents could
   * not rebuild them (the caller fetches instead). {@code last} is the row the agents may rebuild up to.
   */
  ByteBuffer rows(LocatedStripedBlock group, GroupUnits units, CodeSpec spec, StripedLayout layout, int unit, int from,
                  int to, int last) throws InterruptedException {
    long id = group.getBlock().getBlockId();
    if (current != null && current.of(id, unit) && from >= current.from && to <= current.to) {
      return current.cells;
    }
    boolean walking = current != null && current.of(id, unit) && from == current.to;
    ahead = walking ? Math.min(2 * ahead, maxRows) : 1;
    Window w = null;
    if (walking && next != null && next.of(id, unit) && next.from == from && to <= next.to) {
      w = next;
      next = null;
    }
    cancelNext();
    current = null;
    if (w == null) {
      w = start(group, units, spec, layout, unit, from, Math.min(last, Math.max(to, from + ahead)));
    }
    if (walking && w.to < last) {
      // The window after it goes out before this one is awaited: its setup and its chain's filling
      // overlap this one's transfer, so the client's link never waits for a request.
      next = start(group, units, spec, layout, unit, w.to, Math.min(last, w.to + ahead));
    }
    if (!arrived(w)) {
      cancelNext();
      stats.agentsFellBack();
      return null;
    }
    current = w;
    return w.cells;
  }

  /** Starts rebuilding rows [from, to) in the background. */
  private Window start(LocatedStripedBlock group, GroupUnits units, CodeSpec spec, StripedLayout layout, int unit,
                       int from, int to) {
    Window w = new Window(group.getBlock().getBlockId(), unit, from, to, cell);
    ByteBuffer cells = w.cells;
    w.received = agents.rebuildInBackground(group, units, spec, layout, unit, from, to - from,
        (row, cellOffset, src, off, len) -> cells.put((row - from) * cell + cellOffset, src, off, len));
    return w;
  }

  /** The first row of the buffer {@link #rows} returned last. */
  int firstRow() {
    return current.from;
  }

  /** Waits for a window on its way; whether it arrived whole (counted then). */
  private boolean arrived(Window w) throws InterruptedException {
    try {
      long received;
      try {
        received = w.received.get();
      } catch (InterruptedException e) {
        w.received.cancel(true);
        cancelNext();
        throw e;
      }
      if (received < 0) {
        return false;
      }
      stats.rebuiltByAgents(w.to - w.from, received, System.nanoTime() - w.startNanos);
      this.received.accept(received);
      return true;
    } catch (ExecutionException e) {
      return false;
    }
  }

  private void cancelNext() {
    if (next != null) {
      next.received.cancel(true); // the run stops and closes its connections; its buffer is dropped
      next = null;
    }
  }

  /** Drops both windows (unbuffer, close). */
  void release() {
    cancelNext();
    current = null;
  }
}
