package io.ecrepair.hdfs.datanode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.cli.EcRepairCli;
import io.ecrepair.hdfs.admin.BudgetAdmin;
import io.ecrepair.hdfs.task.DataNodeKeys;
import io.ecrepair.hdfs.task.ReconstructionLog;
import io.ecrepair.hdfs.task.TaskReport;
import io.ecrepair.testing.ClusterTest;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.management.ManagementFactory;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.UnicastRemoteObject;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.management.remote.JMXConnectorServer;
import javax.management.remote.JMXConnectorServerFactory;
import javax.management.remote.JMXServiceURL;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The repair budget changed on live DataNodes through {@code ec-repair budget} over JMX, the way
 * an operator reaches a DataNode's remote JMX port: a repair held back by a small inbound budget
 * finishes within 5 s of the budget being lifted, where the old budget would have held it for
 * a minute more.
 */
@ClusterTest
class LiveRepairBudgetTest {
  private static final int CELL = 64 * 1024;
  private static final int CELLS_PER_BLOCK = 8;
  private static final long RATE = 16 * 1024;

  @TempDir
  Path tmp;

  @BeforeEach
  @AfterEach
  void clear() {
    ReconstructionLog.clear();
  }

  @Test
  void aRunningRepairSpeedsUpWithinFiveSecondsOfItsBudgetBeingLifted() throws Exception {
    Configuration extra = new Configuration(false);
    extra.setLong(DataNodeKeys.REPAIR_BANDWIDTH_IN_KEY, RATE);
    ExecutorService ex = Executors.newSingleThreadExecutor();
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), 7, "clay", 4, 2, CELL, CELLS_PER_BLOCK,
        extra); Jmx jmx = new Jmx()) {
      org.apache.hadoop.fs.Path file = c.write("one-group", 4 * CELL * CELLS_PER_BLOCK, 5);
      try (BudgetAdmin admin = BudgetAdmin.connect("localhost:" + jmx.port, null, null)) {
        List<BudgetAdmin.Budget> before = admin.read();
        assertEquals(7, before.size(), "every DataNode's budget is on JMX: " + before);
        before.forEach(b -> assertEquals(RATE, b.inBytesPerSecond(), b.toString()));
      }
      Future<List<TaskReport>> repair = ex.submit(() -> c.loseAndVerify(c.holder(file, 0, 0)));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (ReconstructionLog.running().isEmpty()) {
        assertTrue(System.nanoTime() < deadline, "a reconstruction task started");
        Thread.sleep(50);
      }
      Thread.sleep(1500);
      assertTrue(ReconstructionLog.reports().isEmpty(), "the budget holds the repair back");

      long lifted = System.nanoTime();
      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      int code = EcRepairCli.run(new String[] {"budget", "--jmx", "localhost:" + jmx.port, "--in", "0"},
          new PrintWriter(out, true), new PrintWriter(err, true));
      assertEquals(0, code, err.toString());
      assertTrue(out.toString().contains("unlimited"), out.toString());
      while (ReconstructionLog.reports().isEmpty()) {
        assertTrue(System.nanoTime() < lifted + TimeUnit.SECONDS.toNanos(60), "the repair finished");
        Thread.sleep(20);
      }
      double afterLift = (System.nanoTime() - lifted) / 1e9;
      TaskReport r = ReconstructionLog.reports().get(0);
      assertTrue(r.succeeded(), r.toString());
      // Under the old budget the task's reads would have taken this long in all.
      double heldFor = (double) r.bytesRead() / RATE - 1.0;
      assertTrue(heldFor > r.seconds() + 5, "the test's repair outlasts the change by more than 5 s: " + r);
      assertTrue(afterLift <= 5.0, "finished " + afterLift + " s after the budget was lifted: " + r);
      repair.get(120, TimeUnit.SECONDS);  // and every byte rebuilt is right
      try (BudgetAdmin admin = BudgetAdmin.connect("localhost:" + jmx.port, null, null)) {
        admin.read().forEach(b -> assertEquals(0, b.inBytesPerSecond(), b.toString()));
      }
    } finally {
      ex.shutdownNow();
    }
  }

  /** A remote JMX port on this JVM's platform server, as {@code com.sun.management.jmxremote.port} opens one. */
  private static final class Jmx implements AutoCloseable {
    final int port;
    private final Registry registry;
    private final JMXConnectorServer server;

    Jmx() throws Exception {
      Registry r = null;
      int p = 0;
      for (int attempt = 0; r == null; attempt++) {
        try (ServerSocket s = new ServerSocket(0)) {
          p = s.getLocalPort();
        }
        try {
          r = LocateRegistry.createRegistry(p);
        } catch (java.rmi.server.ExportException taken) {
          if (attempt == 4) {
            throw taken; // another process took the free port five times over
          }
        }
      }
      port = p;
      registry = r;
      server = JMXConnectorServerFactory.newJMXConnectorServer(
          new JMXServiceURL("service:jmx:rmi:///jndi/rmi://localhost:" + port + "/jmxrmi"), null,
          ManagementFactory.getPlatformMBeanServer());
      server.start();
    }

    @Override
    public void close() throws Exception {
      server.stop();
      UnicastRemoteObject.unexportObject(registry, true);
    }
  }
}
