package io.ecrepair.hdfs.admin;

import io.ecrepair.hdfs.datanode.RepairBudgetMXBean;
import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import javax.management.JMX;
import javax.management.MBeanServerConnection;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * Reads and changes the repair budgets of live DataNodes through JMX: a DataNode JVM's remote JMX
 * port (as operators open it for monitoring), or the local JMX agent of a DataNode JVM on this
 * host, found by its process id (the JDK's attach mechanism; same user only).
 */
public final class BudgetAdmin implements Closeable {
  /** One DataNode's limits in bytes per second (0: unlimited). */
  /**
   * A DataNode's budget: the operator's limits, whether it adapts to foreground traffic, and the
   * limits in force now (the same as the operator's on a DataNode that does not adapt).
   */
  public record Budget(String datanode, long inBytesPerSecond, long outBytesPerSecond, boolean adaptive,
                       long inBytesPerSecondNow, long outBytesPerSecondNow) {}

  private static final ObjectName PATTERN = pattern();
  private static final long CONNECT_SECONDS = 30;

  static {
    // Every call after the connection has a deadline too: RMI waits for an answer for good by default.
    if (System.getProperty("sun.rmi.transport.tcp.responseTimeout") == null) {
      System.setProperty("sun.rmi.transport.tcp.responseTimeout", Long.toString(CONNECT_SECONDS * 1000));
    }
  }

  private final String target;
  private final JMXConnector connector;
  private final MBeanServerConnection server;

  private BudgetAdmin(String target, JMXConnector connector) throws IOException {
    this.target = target;
    this.connector = connector;
    this.server = connector.getMBeanServerConnection();
  }

  /**
   * Connects to the JMX server at {@code hostPortOrUrl} ({@code host:port} of an RMI registry, or a
   * whole {@code service:jmx:} URL); {@code user} null for a server without authentication.
   */
  public static BudgetAdmin connect(String hostPortOrUrl, String user, String password) throws IOException {
    String url = hostPortOrUrl.startsWith("service:jmx:") ? hostPortOrUrl
        : "service:jmx:rmi:///jndi/rmi://" + hostPort(hostPortOrUrl) + "/jmxrmi";
    Map<String, Object> env = user == null ? Map.of() : Map.of(JMXConnector.CREDENTIALS, new String[] {user, password});
    return new BudgetAdmin(hostPortOrUrl, open(new JMXServiceURL(url), env));
  }

  /**
   * Connects to the local JMX agent of the DataNode JVM {@code pid} on this host. It does not start
   * one: a JMX agent started from outside stays up for the JVM's life, without authentication.
   */
  public static BudgetAdmin attach(long pid) throws IOException {
    String address;
    try {
      com.sun.tools.attach.VirtualMachine vm = com.sun.tools.attach.VirtualMachine.attach(Long.toString(pid));
      try {
        address = vm.getAgentProperties().getProperty("com.sun.management.jmxremote.localConnectorAddress");
      } finally {
        vm.detach();
      }
      if (address == null) {
        throw new IOException("process " + pid + " runs no local JMX agent (start the DataNode with "
            + "-Dcom.sun.management.jmxremote, or use its JMX port with --jmx)");
      }
    } catch (com.sun.tools.attach.AttachNotSupportedException e) {
      throw new IOException("cannot attach to process " + pid + ": " + e.getMessage()
          + " (run as the DataNode's user, or use its JMX port)", e);
    } catch (NoClassDefFoundError e) {
      throw new IOException("attaching to process " + pid + " needs a JDK with the jdk.attach module; "
          + "use the DataNode's JMX port instead", e);
    }
    return new BudgetAdmin("pid " + pid, open(new JMXServiceURL(address), Map.of()));
  }

  /** The budgets of the DataNodes this JVM runs (several in a test cluster), by DataNode. */
  public List<Budget> read() throws IOException {
    List<Budget> out = new ArrayList<>();
    for (RepairBudgetMXBean b : beans()) {
      long in = b.getRepairBandwidthIn();
      long o = b.getRepairBandwidthOut();
      boolean adaptive;
      long inNow;
      long outNow;
      try {
        adaptive = b.isAdaptive();
        inNow = b.getRepairBandwidthInNow();
        outNow = b.getRepairBandwidthOutNow();
      } catch (RuntimeException e) {  // a DataNode of a release before the adaptive budget
        adaptive = false;
        inNow = in;
        outNow = o;
      }
      out.add(new Budget(b.getDataNode(), in, o, adaptive, inNow, outNow));
    }
    out.sort(Comparator.comparing(Budget::datanode));
    return out;
  }

  /**
   * Sets the limits given (null keeps that direction's) on the DataNodes {@code which} accepts;
   * returns their budgets as they are now.
   */
  public List<Budget> set(Long inBytesPerSecond, Long outBytesPerSecond, Predicate<String> which) throws IOException {
    for (RepairBudgetMXBean b : beans()) {
      if (!which.test(b.getDataNode())) {
        continue;
      }
      // One direction alone, so two operators changing one each do not undo each other.
      if (inBytesPerSecond != null && outBytesPerSecond != null) {
        b.setRepairBandwidth(inBytesPerSecond, outBytesPerSecond);
      } else if (inBytesPerSecond != null) {
        b.setRepairBandwidthIn(inBytesPerSecond);
      } else if (outBytesPerSecond != null) {
        b.setRepairBandwidthOut(outBytesPerSecond);
      }
    }
    return read();
  }

  private List<RepairBudgetMXBean> beans() throws IOException {
    List<RepairBudgetMXBean> out = new ArrayList<>();
    for (ObjectName n : server.queryNames(PATTERN, null)) {
      out.add(JMX.newMXBeanProxy(server, n, RepairBudgetMXBean.class));
    }
    if (out.isEmpty()) {
      throw new IOException(target + " runs no DataNode with hadoop-ec-repair's plugin active (no " + PATTERN + ")");
    }
    return out;
  }

  @Override
  public void close() throws IOException {
    connector.close();
  }

  /** Connects within a deadline: an RMI connection to a host that drops packets waits for minutes. */
  private static JMXConnector open(JMXServiceURL url, Map<String, Object> env) throws IOException {
    ExecutorService ex = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "ec-repair-jmx-connect");
      t.setDaemon(true);
      return t;
    });
    try {
      Future<JMXConnector> f = ex.submit(() -> {
        JMXConnector c = JMXConnectorFactory.connect(url, env);
        if (Thread.currentThread().isInterrupted()) {
          c.close(); // given up on meanwhile
        }
        return c;
      });
      return f.get(CONNECT_SECONDS, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      throw new IOException("no answer from " + url + " within " + CONNECT_SECONDS + " s");
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      throw new IOException("cannot connect to " + url + ": " + c, c);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted while connecting to " + url);
    } finally {
      ex.shutdownNow();
    }
  }

  private static String hostPort(String s) {
    int colon = s.lastIndexOf(':');
    if (colon <= 0 || colon == s.length() - 1) {
      throw new IllegalArgumentException("a JMX address is host:port or a service:jmx: URL, not '" + s + "'");
    }
    int port;
    try {
      port = Integer.parseInt(s.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not a port in '" + s + "'");
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("port out of range in '" + s + "'");
    }
    return s;
  }

  private static ObjectName pattern() {
    try {
      return new ObjectName("Hadoop:service=DataNode,name=" + RepairBudgetMXBean.NAME_PREFIX + "*");
    } catch (MalformedObjectNameException e) {
      throw new AssertionError(e);
    }
  }
}
