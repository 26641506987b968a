package io.ecrepair.hdfs.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.gf.BufferPool;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The row window between helper readers and the task thread: order, back-pressure, stalls, failures. */
class RowWindowTest {

  @Test
  void rowsBecomeReadyWhenEveryHelperFinishedThem() throws Exception {
    RowWindow w = new RowWindow(2, 4, 16, new int[] {1, 3}, 0, new BufferPool(0));
    ByteBuffer c1 = w.cell(1, 0);
    w.completed(1, 1);
    w.cell(3, 0);
    w.completed(3, 1);
    ByteBuffer[] row = w.awaitRow(0, 5_000);
    assertSame(c1, row[1]);
    // A reader may run depth - 1 rows ahead, then waits for the task thread to free a slot.
    w.cell(1, 1);
    CompletableFuture<ByteBuffer> ahead = CompletableFuture.supplyAsync(() -> {
      try {
        return w.cell(1, 2);
      } catch (Exception e) {
        throw new RuntimeException(e);
      }
    });
    Thread.sleep(100);
    assertTrue(!ahead.isDone(), "row 2 must wait for row 0's slot");
    w.release(0);
    assertSame(c1, ahead.get(5, TimeUnit.SECONDS), "row 2 reuses row 0's slot");
  }

  @Test
  void aSilentHelperCountsAsFailedAfterTheStallTime() {
    RowWindow w = new RowWindow(2, 3, 16, new int[] {0, 2}, 5, new BufferPool(0));
    w.completed(0, 6);
    RowWindow.HelperFailure f = assertThrows(RowWindow.HelperFailure.class, () -> w.awaitRow(5, 300));
    assertEquals(2, f.unit);
    assertEquals(5, f.row);
  }

  @Test
  void waitingForASlotIsNotSilence() throws Exception {
    // Depth 1: helper 0 finishes row 0 at once, then waits for row 1's slot while helper 1 takes
    // longer than the stall time over row 0 (delivering all along).
    RowWindow w = new RowWindow(1, 2, 16, new int[] {0, 1}, 0, new BufferPool(0));
    w.cell(0, 0);
    w.completed(0, 1);
    CompletableFuture<Void> helper0 = CompletableFuture.runAsync(() -> {
      try {
        w.cell(0, 1);
        Thread.sleep(100);
        w.completed(0, 2);
      } catch (Exception e) {
        throw new RuntimeException(e);
      }
    });
    w.cell(1, 0);
    for (int i = 0; i < 8; i++) {
      Thread.sleep(100);
      w.progressed(1);
    }
    w.completed(1, 1);
    w.awaitRow(0, 500);
    w.release(0);
    CompletableFuture.runAsync(() -> {
      try {
        w.cell(1, 1);
        w.completed(1, 2);
      } catch (Exception e) {
        throw new RuntimeException(e);
      }
    });
    // Helper 0's last bytes are 800 ms old, but it was waiting on us: row 1 comes, no failure.
    w.awaitRow(1, 500);
    helper0.get(5, TimeUnit.SECONDS);
  }

  @Test
  void aReportedFailureWakesTheTaskThread() {
    RowWindow w = new RowWindow(2, 3, 16, new int[] {0, 1}, 0, new BufferPool(0));
    CompletableFuture.runAsync(() -> {
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      w.fail(new RowWindow.HelperFailure(1, 0, "connection reset", null));
    });
    RowWindow.HelperFailure f = assertThrows(RowWindow.HelperFailure.class, () -> w.awaitRow(0, 60_000));
    assertEquals(1, f.unit);
  }

  @Test
  void cancellingReleasesWaitingReaders() throws Exception {
    RowWindow w = new RowWindow(2, 1, 16, new int[] {0}, 0, new BufferPool(0));
    CompletableFuture<Void> waiting = CompletableFuture.runAsync(() -> {
      try {
        w.cell(0, 7);
      } catch (Exception e) {
        throw new RuntimeException(e);
      }
    });
    Thread.sleep(100);
    w.cancel();
    assertThrows(Exception.class, () -> waiting.get(5, TimeUnit.SECONDS));
  }

  @Test
  void recycledCellBuffersServeTheNextWindowZeroed() throws Exception {
    BufferPool pool = new BufferPool(1 << 20);
    RowWindow first = new RowWindow(2, 3, 16, new int[] {0, 2}, 0, pool);
    ByteBuffer cell = first.cell(0, 0);
    cell.put(0, (byte) 7);
    first.recycle(pool);
    assertEquals(2 * 2 * 16, pool.keptBytes(), "two slots of two helpers' 16-byte cells");

    RowWindow next = new RowWindow(2, 3, 16, new int[] {0, 2}, 0, pool);
    assertEquals(0, pool.keptBytes(), "the next window took them all");
    for (int row = 0; row < 2; row++) {
      for (int unit : new int[] {0, 2}) {
        ByteBuffer b = next.cell(unit, row);
        for (int i = 0; i < 16; i++) {
          assertEquals(0, b.get(i), "row " + row + " unit " + unit + " byte " + i);
        }
      }
    }
  }
}
