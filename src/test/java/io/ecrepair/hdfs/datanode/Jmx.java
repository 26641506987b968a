package io.ecrepair.hdfs.datanode;

import java.lang.management.ManagementFactory;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/** Reads metrics the way an operator sees them: over JMX. */
final class Jmx {
  private Jmx() {}

  /** Polls until {@code check} holds: metrics2 refreshes what JMX shows every few seconds. */
  static void eventually(String what, ThrowingCheck check) throws Exception {
    long deadline = System.currentTimeMillis() + 30_000;
    while (true) {
      String failure = check.failure();
      if (failure == null) {
        return;
      }
      if (System.currentTimeMillis() > deadline) {
        throw new AssertionError(what + ": " + failure);
      }
      Thread.sleep(500);
    }
  }

  /** Returns null when satisfied, else what is wrong. */
  interface ThrowingCheck {
    String failure() throws Exception;
  }

  /** A numeric attribute of the metrics2 bean {@code Hadoop:*,name=<source>}; 0 when absent. */
  static long attribute(String source, String attribute) throws Exception {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    Set<ObjectName> names = server.queryNames(new ObjectName("Hadoop:*,name=" + source), null);
    if (names.isEmpty()) {
      throw new AssertionError("no JMX bean for metrics source " + source);
    }
    Object v = server.getAttribute(names.iterator().next(), attribute);
    return v == null ? 0 : ((Number) v).longValue();
  }
}
