package io.ecrepair.hdfs.transfer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.gf.ThreadNice;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Repair work runs on threads nicer than the DataNode's, read back from the kernel's own account
 * of each thread (/proc), not from the bridge that set it; the threads that hand work over keep
 * their priority.
 */
class RepairNiceTest {
  /** The calling thread's nice as Linux reports it (field 19 of /proc/thread-self/stat). */
  static int kernelNice() throws IOException {
    String stat = Files.readString(Path.of("/proc/thread-self/stat"));
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Integer.parseInt(fields[16]);
  }

  /** Runs {@code body} on a fresh thread (at this JVM's priority) and returns what it returned. */
  private static <T> T onFreshThread(RepairNice.Work<T> body) throws Exception {
    AtomicReference<Object> out = new AtomicReference<>();
    Thread t = new Thread(() -> {
      try {
        out.set(body.run());
      } catch (Throwable e) {
        out.set(e);
      }
    });
    t.start();
    t.join(30_000);
    if (out.get() instanceof Exception e) {
      throw e;
    }
    @SuppressWarnings("unchecked")
    T v = (T) out.get();
    return v;
  }

  private static <T> T await(java.util.concurrent.Future<T> f) throws IOException {
    try {
      return f.get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IOException(e);
    }
  }

  @Test
  void handedOverWorkRunsNicerAndTheCallerKeepsItsPriority() throws Exception {
    int base = kernelNice();
    RepairNice nice = new RepairNice(10);
    assertTrue(nice.lowers());
    ThreadPoolExecutor pool = nice.pool("nice-test", 4, 60);
    try {
      int[] n = onFreshThread(() -> {
        int during = nice.call(pool, RepairNiceTest::kernelNice);
        return new int[] {during, kernelNice()};
      });
      assertEquals(Math.min(19, base + 10), n[0], "the work");
      assertEquals(base, n[1], "the caller, after");
      // A repair thread handing work to another one: the same priority, not ten steps more.
      int nested = onFreshThread(() -> nice.call(pool, () -> await(pool.submit(RepairNiceTest::kernelNice))));
      assertEquals(Math.min(19, base + 10), nested);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aRepairThreadCallingRunsTheWorkItselfAndFailuresComeThrough() throws Exception {
    RepairNice nice = new RepairNice(5);
    ThreadPoolExecutor pool = nice.pool("nice-test", 4, 60);
    try {
      Thread[] threads = pool.submit(() -> {
        Thread outer = Thread.currentThread();
        return new Thread[] {outer, nice.call(pool, Thread::currentThread)};
      }).get(10, TimeUnit.SECONDS);
      assertSame(threads[0], threads[1], "no second hand-over");
      IOException e = assertThrows(IOException.class, () -> onFreshThread(() -> nice.call(pool, () -> {
        throw new IOException("the helper went away");
      })));
      assertEquals("the helper went away", e.getMessage());
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void anInterruptedCallerStopsTheWorkAndReturnsOnlyOnceItEnded() throws Exception {
    RepairNice nice = new RepairNice(5);
    assertTrue(nice.lowers(), "the work is handed over (the native library is loaded)");
    ThreadPoolExecutor pool = nice.pool("nice-test", 4, 60);
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch workInterrupted = new CountDownLatch(1);
    AtomicBoolean workEnded = new AtomicBoolean();
    AtomicBoolean endedWhenCallerReturned = new AtomicBoolean();
    AtomicBoolean interruptKept = new AtomicBoolean();
    AtomicReference<Throwable> callerGot = new AtomicReference<>();
    Thread caller = new Thread(() -> {
      try {
        nice.call(pool, () -> {
          started.countDown();
          try {
            Thread.sleep(60_000);
          } catch (InterruptedException e) {
            workInterrupted.countDown();
          }
          // Work that takes a moment to wind down, still using what its caller lent it.
          long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
          while (System.nanoTime() < until) {
            Thread.onSpinWait();
          }
          workEnded.set(true);
          return null;
        });
      } catch (Throwable e) {
        endedWhenCallerReturned.set(workEnded.get());
        interruptKept.set(Thread.currentThread().isInterrupted());
        callerGot.set(e);
      }
    });
    try {
      caller.start();
      assertTrue(started.await(10, TimeUnit.SECONDS));
      caller.interrupt();
      caller.join(10_000);
      assertTrue(callerGot.get() instanceof InterruptedIOException, String.valueOf(callerGot.get()));
      assertTrue(workInterrupted.await(10, TimeUnit.SECONDS), "the repair thread was interrupted too");
      assertTrue(endedWhenCallerReturned.get(), "the caller returned while its work still ran");
      assertTrue(interruptKept.get(), "the caller's interrupt is kept");
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void theTargetIsAbsoluteStopsAtNineteenAndZeroChangesNothing() throws Exception {
    int[] n = onFreshThread(() -> {
      RepairNice fifteen = new RepairNice(15);
      int[] out = new int[4];
      new RepairNice(0).lowerForGood();
      out[0] = kernelNice();
      fifteen.lowerForGood();
      out[1] = kernelNice();
      fifteen.lowerForGood();
      out[2] = kernelNice();
      return out;
    });
    // A DataNode started at nice 10 runs repair at 19, not 25, on threads born at 10 (raising a
    // nice needs no privilege, so neither does this).
    n[3] = onFreshThread(() -> {
      assertTrue(ThreadNice.set(Math.max(10, kernelNice())));
      ThreadPoolExecutor pool = new RepairNice(15).pool("nice-test", 1, 60);
      try {
        return await(pool.submit(RepairNiceTest::kernelNice));
      } finally {
        pool.shutdownNow();
      }
    });
    int base = n[0];
    assertEquals(Math.min(19, base + 15), n[1]);
    assertEquals(Math.min(19, base + 15), n[2], "lowered twice, still the same");
    assertEquals(19, n[3]);
    assertFalse(new RepairNice(0).lowers());
    ThreadPoolExecutor stopped = new RepairNice(3).pool("nice-test", 1, 60);
    stopped.shutdown();
    assertThrows(IOException.class, () -> onFreshThread(() -> new RepairNice(3).call(stopped, () -> 1)),
        "no repair work once its threads are stopped");
    assertFalse(RepairBudget.UNLIMITED.nice().lowers(), "clients' reads keep their priority");
    assertThrows(IllegalArgumentException.class, () -> new RepairNice(20));
    assertThrows(IllegalArgumentException.class, () -> new RepairNice(-1));
  }
}
