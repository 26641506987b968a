package io.ecrepair.hdfs.transfer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The budget's limits, and that a lower limit set on a live budget holds traffic back (lower bounds only). */
class RepairBudgetTest {
  @Test
  void zeroMeansUnlimitedAndNegativeIsRefused() {
    RepairBudget b = new RepairBudget(0, 0);
    b.received(1L << 40); // would take years under any limit
    b.sending(1L << 40);
    assertThrows(IllegalArgumentException.class, () -> b.set(-1, 0));
    assertThrows(IllegalArgumentException.class, () -> b.set(0, Long.MAX_VALUE)); // would overflow the throttler
    assertEquals(0, b.inBytesPerSecond());
  }

  @Test
  void aLimitSetOnALiveBudgetHoldsTheNextBytesBack() {
    RepairBudget b = new RepairBudget(0, 0);
    b.sending(10 << 20);
    b.set(0, 1 << 20); // 1 MiB/s out from now on; in stays unlimited
    long t0 = System.nanoTime();
    for (int i = 0; i < 4; i++) {
      b.sending(512 << 10); // 2 MiB in all: at least 1.5 s past the first half-second's allowance
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    assertTrue(seconds >= 1.4, "2 MiB at 1 MiB/s took " + seconds + " s");
    b.received(100L << 20);
    assertEquals(1 << 20, b.outBytesPerSecond());
  }

  @Test
  void aThreadWaitingOnALiftedLimitGoesOnWithinAPeriod() throws Exception {
    RepairBudget b = new RepairBudget(64 << 10, 0);
    b.received(32 << 10); // the first period's allowance
    Thread waiter = new Thread(() -> b.received(1 << 20)); // 16 s at 64 KiB/s
    waiter.start();
    Thread.sleep(300);
    assertTrue(waiter.isAlive(), "held back by the limit");
    long lifted = System.nanoTime();
    b.set(0, 0);
    waiter.join(10_000);
    double seconds = (System.nanoTime() - lifted) / 1e9;
    assertTrue(!waiter.isAlive() && seconds < 4, "went on " + seconds + " s after the limit was lifted");
  }

  @Test
  void aLowerLimitHoldsBackAtOnceWhateverTheOldOneHadInReserve() {
    RepairBudget b = new RepairBudget(1L << 30, 0); // 1 GiB/s: half a GiB per period in reserve
    b.received(1);
    b.setIn(1 << 20);
    long t0 = System.nanoTime();
    for (int i = 0; i < 4; i++) {
      b.received(512 << 10);
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    assertTrue(seconds >= 1.4, "2 MiB at 1 MiB/s took " + seconds + " s");
    assertEquals(0, b.outBytesPerSecond());
  }

  @Test
  void limitsTooLowToBeGrantedAreRefused() {
    RepairBudget b = new RepairBudget(0, 0);
    assertThrows(IllegalArgumentException.class, () -> b.setIn(1)); // Hadoop's throttler grants 0 bytes a period
    assertThrows(IllegalArgumentException.class, () -> b.setOut(RepairBudget.MIN_BYTES_PER_SECOND - 1));
    b.setOut(RepairBudget.MIN_BYTES_PER_SECOND);
    assertEquals(RepairBudget.MIN_BYTES_PER_SECOND, b.outBytesPerSecond());
  }

  /** The operator's limit and the adaptive one: the lower meters; each keeps its own when the other changes. */
  @Test
  void theLowerOfTheOperatorsAndTheAdaptiveLimitHolds() {
    RepairBudget b = new RepairBudget(0, 10 << 20);
    assertEquals(10 << 20, b.outBytesPerSecondNow());
    b.adapt(2 << 20, 1 << 20);
    assertEquals(2 << 20, b.inBytesPerSecondNow(), "no operator limit in: the adaptive one");
    assertEquals(1 << 20, b.outBytesPerSecondNow());
    assertEquals(10 << 20, b.outBytesPerSecond(), "the operator's limit is still what the operator set");
    b.setOut(512 << 10);
    assertEquals(512 << 10, b.outBytesPerSecondNow());
    b.adapt(0, 0);
    assertEquals(0, b.inBytesPerSecondNow(), "both unlimited: unlimited");
    assertEquals(512 << 10, b.outBytesPerSecondNow());
    assertThrows(IllegalArgumentException.class, () -> b.adapt(-1, 0));
    long t0 = System.nanoTime();
    b.adapt(0, 1 << 20);
    for (int i = 0; i < 8; i++) {
      b.sending(256 << 10); // 2 MiB at the operator's 512 KiB/s (about 3.5 s), not the adaptive 1 MiB/s (1.75 s)
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    assertTrue(seconds >= 2.5, "2 MiB at 512 KiB/s took " + seconds + " s");
  }

  @Test
  void aMarkedSocketSendsWithTheBudgetsDscpAndAClientsReadIsNeverMarked() throws Exception {
    try (java.net.ServerSocket server = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
         java.net.Socket repair = new java.net.Socket(server.getInetAddress(), server.getLocalPort());
         java.net.Socket client = new java.net.Socket(server.getInetAddress(), server.getLocalPort())) {
      new RepairBudget(0, 0, 1, RepairNice.NONE).mark(repair);
      assertEquals(1 << 2, repair.getTrafficClass()); // DSCP 1 sits above the two ECN bits
      int before = client.getTrafficClass();
      RepairBudget.UNLIMITED.mark(client);
      new RepairBudget(0, 0, 0, RepairNice.NONE).mark(client);
      assertEquals(before, client.getTrafficClass());
    }
    assertEquals(1, new RepairBudget(0, 0, 1, RepairNice.NONE).dscp());
    assertEquals(0, RepairBudget.UNLIMITED.dscp());
    assertThrows(IllegalArgumentException.class, () -> new RepairBudget(0, 0, 64, RepairNice.NONE));
    assertThrows(IllegalArgumentException.class, () -> new RepairBudget(0, 0, -1, RepairNice.NONE));
  }
}
