package io.ecrepair.hdfs.task;

import io.ecrepair.gf.BufferPool;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * The cell rows of a repair in flight: {@code depth} slots of one cell buffer per unit read.
 * Each helper's reader fills rows in order and may run up to {@code depth - 1} rows ahead of
 * the row being rebuilt (with depth 1 it waits for each row to be rebuilt; its requests stay
 * in flight on the connection meanwhile); the task thread takes a row once every helper finished it, and frees
 * its slot for the row {@code depth} further on. A reader's failure wakes the task thread.
 */
final class RowWindow {
  /** A helper failed; the repair goes on from {@code row} without it if the code allows. */
  static final class HelperFailure extends IOException {
    final int unit;
    final int row;

    HelperFailure(int unit, int row, String message, Throwable cause) {
      super(message, cause);
      this.unit = unit;
      this.row = row;
    }
  }

  private final int depth;
  private final ByteBuffer[][] slots;
  private final int firstRow;
  private final int[] helpers;
  /** Per unit: rows below this are complete (firstRow-based absolute row numbers). */
  private final int[] done;
  /** Per unit: when its reader last delivered bytes or finished a row (System.nanoTime). */
  private final java.util.concurrent.atomic.AtomicLongArray progressAt;
  private int freedBelow;
  private HelperFailure failure;
  private boolean cancelled;

  /** A window whose cell buffers come from {@code buffers} ({@link #recycle} gives them back). */
  RowWindow(int depth, int units, int cellSize, int[] helpers, int firstRow, BufferPool buffers) {
    this.depth = depth;
    this.helpers = helpers.clone();
    this.firstRow = firstRow;
    this.slots = new ByteBuffer[depth][units];
    for (int d = 0; d < depth; d++) {
      for (int u : helpers) {
        slots[d][u] = buffers.take(cellSize);
      }
    }
    this.done = new int[units];
    java.util.Arrays.fill(done, firstRow);
    this.progressAt = new java.util.concurrent.atomic.AtomicLongArray(units);
    long now = System.nanoTime();
    for (int u = 0; u < units; u++) {
      progressAt.set(u, now);
    }
    this.freedBelow = firstRow + depth;
  }

  static int depthFor(int helpers, int cellSize, long budgetBytes) {
    long perRow = Math.max(1L, (long) helpers * cellSize);
    return (int) Math.max(1, Math.min(8, budgetBytes / perRow));
  }

  /** The reader of {@code unit} waits until row's slot is free, then gets its cell buffer. */
  synchronized ByteBuffer cell(int unit, int row) throws InterruptedException, IOException {
    while (row >= freedBelow && !cancelled) {
      wait();
    }
    if (cancelled) {
      throw new IOException("repair cancelled");
    }
    return slots[row % depth][unit];
  }

  /** The reader of {@code unit} received bytes. */
  void progressed(int unit) {
    progressAt.set(unit, System.nanoTime());
  }

  /** The reader of {@code unit} completed every row below {@code row}. */
  synchronized void completed(int unit, int row) {
    progressAt.set(unit, System.nanoTime());
    if (row > done[unit]) {
      done[unit] = row;
      notifyAll();
    }
  }

  synchronized void fail(HelperFailure f) {
    if (failure == null && !cancelled) {
      failure = f;
    }
    notifyAll();
  }

  /**
   * Waits until every helper completed {@code row}; returns the row's cells by unit. A helper
   * still short of the row that delivered nothing for {@code stallMs} counts as failed (its
   * socket timeout normally says so first).
   *
   * @throws HelperFailure when a helper failed (the earliest failure reported)
   */
  synchronized ByteBuffer[] awaitRow(int row, long stallMs) throws InterruptedException, IOException {
    long stallNanos = TimeUnit.MILLISECONDS.toNanos(stallMs);
    while (true) {
      if (failure != null) {
        throw failure;
      }
      int waitingFor = -1;
      long now = System.nanoTime();
      for (int u : helpers) {
        if (done[u] <= row) {
          waitingFor = u;
          if (now - progressAt.get(u) > stallNanos) {
            throw new HelperFailure(u, row, "helper for internal block " + u + " delivered nothing for " + stallMs
                + " ms (row " + row + ")", null);
          }
        }
      }
      if (waitingFor < 0) {
        return slots[row % depth];
      }
      TimeUnit.MILLISECONDS.timedWait(this, Math.min(500, stallMs));
    }
  }

  /** The task thread is done with {@code row}: its slot may take row + depth. */
  synchronized void release(int row) {
    int edge = freedBelow;
    freedBelow = Math.max(freedBelow, row + 1 + depth);
    // A reader that filled the window to its edge was waiting for us, not silent: its stall clock
    // restarts now (else a helper that ran ahead counts as failed the moment its next row is due).
    long now = System.nanoTime();
    for (int u : helpers) {
      if (done[u] >= edge) {
        progressAt.set(u, now);
      }
    }
    notifyAll();
  }

  /** Gives every cell buffer to {@code buffers}: only once no reader can write into them any more. */
  synchronized void recycle(BufferPool buffers) {
    for (ByteBuffer[] row : slots) {
      for (int i = 0; i < row.length; i++) {
        buffers.give(row[i]);
        row[i] = null;
      }
    }
  }

  /** Stops readers waiting for a slot. */
  synchronized void cancel() {
    cancelled = true;
    notifyAll();
  }

  int firstRow() {
    return firstRow;
  }
}
