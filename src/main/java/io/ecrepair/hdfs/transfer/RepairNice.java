package io.ecrepair.hdfs.transfer;

import io.ecrepair.gf.ThreadNice;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Repair's CPU priority: repair work runs on threads {@code nice} steps nicer (at most 19) than
 * the DataNode started at, so where the CPU is short the DataNode's other threads, the ones
 * serving its clients, run first. Linux gives a niced thread less CPU, never none (at 10, about a
 * tenth of what a thread at the DataNode's priority gets while both want the CPU), so a repair
 * is slowed on a busy host, never stopped.
 *
 * <p>A thread without privilege may raise its nice but never lower it again, and a new thread
 * starts at its creator's nice. So repair runs only on threads that never serve anything else
 * ({@link #pool}); work that arrives on a thread shared with clients (an agent's connection
 * handler, HDFS's reconstruction threads, which also run HDFS's own tasks) is handed to one and
 * waited for ({@link #call}), and a repair thread only ever hands work to other repair threads.
 */
public final class RepairNice {
  private static final Logger LOG = LoggerFactory.getLogger(RepairNice.class);
  /** Repair at the DataNode's own priority. */
  public static final RepairNice NONE = new RepairNice(0);
  /** The highest nice Linux has. */
  private static final int LOWEST_PRIORITY = 19;
  /** Set on a thread once it runs at repair's priority. */
  private static final ThreadLocal<Boolean> LOWERED = ThreadLocal.withInitial(() -> false);
  private static final AtomicInteger UNAVAILABLE_WARNINGS = new AtomicInteger();
  private static final AtomicInteger FULL_WARNINGS = new AtomicInteger();

  private final int nice;
  /** The nice repair threads run at, or MIN_VALUE when they keep their creator's. */
  private final int target;

  /**
   * Repair {@code nice} steps (0 to 19; 0: at the DataNode's priority) nicer than the calling
   * thread (the DataNode's, at start-up) is now.
   */
  public RepairNice(int nice) {
    if (nice < 0 || nice > LOWEST_PRIORITY) {
      throw new IllegalArgumentException("a repair nice is 0 to " + LOWEST_PRIORITY + ", not " + nice);
    }
    this.nice = nice;
    int base = nice == 0 ? Integer.MIN_VALUE : currentNice();
    this.target = base == Integer.MIN_VALUE ? Integer.MIN_VALUE : Math.min(LOWEST_PRIORITY, base + nice);
  }

  public int nice() {
    return nice;
  }

  /** Whether repair runs at a priority of its own here (a nice above 0, and the native bridge to set it). */
  public boolean lowers() {
    return target != Integer.MIN_VALUE;
  }

  /**
   * Puts the calling thread at repair's priority for the rest of its life; for threads that only
   * ever repair. A thread already there (or below it) stays as it is.
   */
  public void lowerForGood() {
    if (!lowers() || LOWERED.get()) {
      return;
    }
    int now = currentNice();
    if (now != Integer.MIN_VALUE && now < target && !ThreadNice.set(target)) {
      LOG.debug("ec-repair: the system refused nice {} for a repair thread", target);
    }
    LOWERED.set(true);
  }

  /**
   * At most {@code max} daemon threads named {@code prefix}-n, none queued (one more task is
   * refused), each at repair's priority from its first task on: give them repair work only.
   */
  public ThreadPoolExecutor pool(String prefix, int max, int keepAliveSeconds) {
    AtomicInteger count = new AtomicInteger();
    return new ThreadPoolExecutor(0, max, keepAliveSeconds, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
      Thread t = new Thread(() -> {
        try {
          lowerForGood();
        } catch (RuntimeException | LinkageError e) {
          // The work still runs (at the DataNode's priority): a caller waits for it.
          LOG.warn("ec-repair: a repair thread could not lower its priority: {}", e.toString());
        }
        r.run();
      }, prefix + "-" + count.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
  }

  /** Work that may fail as I/O does. */
  public interface Work<T> {
    T run() throws IOException;
  }

  /**
   * Runs {@code work} at repair's priority: on a thread of {@code repairThreads} (a {@link #pool}),
   * waiting for it, unless repair keeps the DataNode's priority or the caller is a repair thread
   * already; then, or where no repair thread is free, here. Refused once the pool is shut down.
   * Returns only once the work has ended, also when the caller is interrupted (the work is
   * interrupted then), so nothing the caller lent it is still in use.
   */
  public <T> T call(ExecutorService repairThreads, Work<T> work) throws IOException {
    if (!lowers() || LOWERED.get()) {
      return work.run();
    }
    Handover<T> handover = new Handover<>(work);
    try {
      repairThreads.execute(handover);
    } catch (RejectedExecutionException full) {
      if (repairThreads.isShutdown()) {
        throw new IOException("the repair threads are stopped", full);
      }
      if (FULL_WARNINGS.getAndIncrement() == 0) {
        LOG.warn("ec-repair: every repair thread is busy; this repair work runs at the DataNode's priority");
      }
      return work.run();
    }
    return handover.outcome();
  }

  /** One piece of work handed to a repair thread, and its outcome. */
  private static final class Handover<T> implements Runnable {
    private final Work<T> work;
    private final CountDownLatch ended = new CountDownLatch(1);
    /** Guarded by this: the thread running the work, and whether the caller gave up on it. */
    private Thread worker;
    private boolean abandoned;
    private T result;
    private Throwable failure;

    Handover(Work<T> work) {
      this.work = work;
    }

    @Override
    public void run() {
      synchronized (this) {
        if (abandoned) {
          ended.countDown();
          return;
        }
        worker = Thread.currentThread();
      }
      try {
        result = work.run();
      } catch (Throwable e) {
        failure = e;
      } finally {
        synchronized (this) {
          worker = null;
        }
        ended.countDown();
      }
    }

    T outcome() throws IOException {
      try {
        ended.await();
      } catch (InterruptedException e) {
        synchronized (this) {
          abandoned = true;
          if (worker != null) {
            worker.interrupt();
          }
        }
        awaitEnd();
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while a repair thread worked");
      }
      if (failure == null) {
        return result;
      }
      if (failure instanceof IOException io) {
        throw io;
      }
      if (failure instanceof RuntimeException re) {
        throw re;
      }
      if (failure instanceof Error err) {
        throw err;
      }
      throw new IOException(failure);
    }

    /** Waits, deaf to further interrupts, for the interrupted work to stop (its own deadlines bound it). */
    private void awaitEnd() {
      while (true) {
        try {
          ended.await();
          return;
        } catch (InterruptedException again) {
          // Already interrupting; the flag is set again once the work has ended.
        }
      }
    }
  }

  /** The calling thread's nice, or MIN_VALUE when it cannot be known (no native bridge). */
  private static int currentNice() {
    if (!ThreadNice.available()) {
      if (UNAVAILABLE_WARNINGS.getAndIncrement() == 0) {
        LOG.warn("ec-repair: repair cannot run at a lower CPU priority here (the native library is not loaded); "
            + "it runs at the DataNode's");
      }
      return Integer.MIN_VALUE;
    }
    try {
      return ThreadNice.get();
    } catch (RuntimeException e) {
      LOG.debug("ec-repair: cannot read a thread's nice: {}", e.toString());
      return Integer.MIN_VALUE;
    }
  }
}
