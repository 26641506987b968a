package org.apache.hadoop.hdfs;

import java.io.InterruptedIOException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * HDFS's own striped reads as one stream runs them, per calling thread: which of the read tasks
 * the current read submitted are still running. The stream waits until no task of a failed read
 * can still write into the caller's buffer before the range is read again another way: HDFS
 * cancels such tasks without interrupting them.
 */
final class EcRepairStockReads {

  /** One stock read on one thread. */
  public final class Read implements AutoCloseable {
    private int running;

    /** Waits until every read task this read submitted has finished or was cancelled. */
    public synchronized void awaitTasks() throws InterruptedIOException {
      try {
        while (running > 0) {
          wait();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while HDFS's read tasks finish");
      }
    }

    private synchronized void started() {
      running++;
    }

    private synchronized void finished() {
      running--;
      notifyAll();
    }

    @Override
    public void close() {
      current.remove();
    }
  }

  private final ThreadLocal<Read> current = new ThreadLocal<>();
  private final ThreadPoolExecutor view;

  /** Stock reads whose tasks run on {@code pool} (the client's striped-read pool). */
  public EcRepairStockReads(ThreadPoolExecutor pool) {
    this.view = new TrackingView(pool);
  }

  /** Starts a stock read on this thread; close it when the read returns or fails. */
  public Read begin() {
    Read read = new Read();
    current.set(read);
    return read;
  }

  /** Whether this thread is inside a stock read. */
  public boolean readingOnThisThread() {
    return current.get() != null;
  }

  /** The pool HDFS's stripe readers submit to: the client's, with each task counted for its read. */
  public ThreadPoolExecutor pool() {
    return view;
  }

  /**
   * HDFS's stripe readers take a {@link ThreadPoolExecutor} and only {@code execute} on it; this
   * one runs nothing itself (no threads, no queue) and hands each task to the client's pool.
   */
  private final class TrackingView extends ThreadPoolExecutor {
    private final ThreadPoolExecutor pool;

    TrackingView(ThreadPoolExecutor pool) {
      super(0, 1, 0, TimeUnit.SECONDS, new SynchronousQueue<>());
      this.pool = pool;
    }

    @Override
    public void execute(Runnable task) {
      Read read = current.get(); // the submitting thread is the reading thread
      if (read == null) {
        pool.execute(task);
        return;
      }
      read.started();
      try {
        pool.execute(() -> {
          try {
            task.run();
          } finally {
            read.finished();
          }
        });
      } catch (RuntimeException | Error e) {
        read.finished();
        throw e;
      }
    }
  }
}
