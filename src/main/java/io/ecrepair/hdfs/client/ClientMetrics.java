package io.ecrepair.hdfs.client;

import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.DynamicMBean;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.metrics2.MetricsCollector;
import org.apache.hadoop.metrics2.MetricsInfo;
import org.apache.hadoop.metrics2.MetricsRecordBuilder;
import org.apache.hadoop.metrics2.MetricsSource;
import org.apache.hadoop.metrics2.MetricsSystem;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.apache.hadoop.metrics2.lib.Interns;
import org.apache.hadoop.metrics2.util.MBeans;

/**
 * The client's degraded-read metrics, one set per JVM: every stream opened by
 * {@link EcRepairDistributedFileSystem} counts into {@link DegradedReadStats#total()}. Where
 * the JVM runs Hadoop's metrics system (a daemon, a task that started it) they are a metrics2
 * source, on JMX as {@code Hadoop:service=<its prefix>,name=EcRepairDegradedReads}, on the
 * Prometheus endpoint and in the configured sinks; in a plain client, whose metrics system nobody
 * started, they are on JMX as {@code Hadoop:service=EcRepairClient,name=EcRepairDegradedReads}.
 * {@value ClientKeys#METRICS_ENABLED_KEY} = false publishes nothing.
 */
public final class ClientMetrics implements MetricsSource {
  public static final String SOURCE = "EcRepairDegradedReads";
  private static final MetricsInfo RECORD = Interns.info(SOURCE, "hadoop-ec-repair client degraded reads");
  private static boolean plainBeanRegistered;

  /** Names and meanings, as the README's client metrics table gives them. */
  private static final String[][] METRICS = {
      {"DegradedStreams", "streams that rebuilt at least one lost cell"},
      {"RowsRebuilt", "cell rows whose lost cells a degraded read rebuilt"},
      {"CellsRebuilt", "lost cells rebuilt (a row rebuilding two counts two)"},
      {"BytesFetched", "bytes degraded reads fetched from helpers"},
      {"BytesReturned", "bytes degraded reads returned to callers"},
      {"HelperFailures", "helpers that failed during a degraded read (the read went on without them)"},
      {"CorruptReplicasReported", "helper replicas whose bytes failed their stored checksums, reported to the NameNode"},
      {"TimeMillis", "time spent in degraded reads, milliseconds"},
      {"AgentReads", "degraded reads whose lost cells the helpers' repair agents rebuilt for the client"},
      {"BytesFromAgents", "bytes those reads received from the repair agents"},
      {"AgentTimeMillis", "time the repair agents took for those reads, milliseconds"},
      {"AgentFallbacks", "degraded reads that asked the repair agents and fetched the read set instead"}};

  /**
   * Gauges of the cost model: how many DataNodes reads avoid now, and the largest factor; a
   * plain client's MBean also lists them as text ({@link #SLOW_NODE_LIST}).
   */
  static final String SLOW_NODES = "SlowDataNodes";
  static final String MAX_FACTOR = "MaxCostFactor";
  static final String SLOW_NODE_LIST = "SlowDataNodeList";
  private static final String SLOW_NODES_MEANING =
      "DataNodes whose measured cost per byte is above the typical one's (degraded reads avoid them)";
  private static final String MAX_FACTOR_MEANING = "the largest measured cost factor of a DataNode (1 = typical)";
  private static final String SLOW_NODE_LIST_MEANING = "the slow DataNodes as address=factor,...";

  private ClientMetrics() {}

  /** {@link #SLOW_NODE_LIST}'s value: {@code ip:port=factor,...}, empty when none. */
  static String slowNodeList() {
    StringBuilder b = new StringBuilder();
    ClientCosts.slowNodes().forEach((node, f) -> b.append(b.length() == 0 ? "" : ",").append(node).append('=').append(f));
    return b.toString();
  }

  private static double maxFactor() {
    return ClientCosts.slowNodes().values().stream().mapToDouble(Double::doubleValue).max().orElse(1);
  }

  /** Publishes the metrics, once per JVM and metrics system (called as a FileSystem initializes). */
  static synchronized void register(Configuration conf) {
    if (!conf.getBoolean(ClientKeys.METRICS_ENABLED_KEY, ClientKeys.METRICS_ENABLED_DEFAULT)) {
      return;
    }
    MetricsSystem system = DefaultMetricsSystem.instance();
    if (metricsSystemRuns()) {
      if (system.getSource(SOURCE) == null) {
        system.register(SOURCE, RECORD.description(), new ClientMetrics());
      }
    } else if (!plainBeanRegistered) {
      MBeans.register("EcRepairClient", SOURCE, new PlainBean());
      plainBeanRegistered = true;
    }
  }

  /** The current values by name. */
  public static Map<String, Long> snapshot() {
    DegradedReadStats t = DegradedReadStats.total();
    long[] values = {t.degradedStreams(), t.rowsRebuilt(), t.cellsRebuilt(), t.bytesFetched(), t.bytesReturned(),
        t.helperFailures(), t.corruptReplicasReported(), Math.round(t.seconds() * 1000), t.agentReads(),
        t.bytesFromAgents(), Math.round(t.agentSeconds() * 1000), t.agentFallbacks()};
    Map<String, Long> out = new LinkedHashMap<>();
    for (int i = 0; i < METRICS.length; i++) {
      out.put(METRICS[i][0], values[i]);
    }
    return out;
  }

  /** Whether a Hadoop metrics system runs in this JVM (its control MBean exists while it does). */
  private static boolean metricsSystemRuns() {
    try {
      return !ManagementFactory.getPlatformMBeanServer()
          .queryNames(new ObjectName("Hadoop:name=MetricsSystem,sub=Control,*"), null).isEmpty();
    } catch (MalformedObjectNameException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void getMetrics(MetricsCollector collector, boolean all) {
    MetricsRecordBuilder rb = collector.addRecord(RECORD).setContext("ecrepair");
    Map<String, Long> values = snapshot();
    for (String[] m : METRICS) {
      rb.addCounter(Interns.info(m[0], m[1]), values.get(m[0]));
    }
    rb.addGauge(Interns.info(SLOW_NODES, SLOW_NODES_MEANING), ClientCosts.slowNodes().size());
    rb.addGauge(Interns.info(MAX_FACTOR, MAX_FACTOR_MEANING), maxFactor());
  }

  /** The same values as a plain read-only MBean, for a JVM without a metrics system. */
  private static final class PlainBean implements DynamicMBean {
    @Override
    public Object getAttribute(String name) {
      switch (name) {
        case SLOW_NODES:
          return ClientCosts.slowNodes().size();
        case MAX_FACTOR:
          return maxFactor();
        case SLOW_NODE_LIST:
          return slowNodeList();
        default:
          break;
      }
      Long v = snapshot().get(name);
      if (v == null) {
        throw new IllegalArgumentException("no attribute " + name);
      }
      return v;
    }

    @Override
    public AttributeList getAttributes(String[] names) {
      AttributeList out = new AttributeList();
      Map<String, Long> values = snapshot();
      for (String n : names) {
        if (values.containsKey(n)) {
          out.add(new Attribute(n, values.get(n)));
        } else if (n.equals(SLOW_NODES) || n.equals(MAX_FACTOR) || n.equals(SLOW_NODE_LIST)) {
          out.add(new Attribute(n, getAttribute(n)));
        }
      }
      return out;
    }

    @Override
    public void setAttribute(Attribute attribute) {
      throw new UnsupportedOperationException("read-only");
    }

    @Override
    public AttributeList setAttributes(AttributeList attributes) {
      return new AttributeList();
    }

    @Override
    public Object invoke(String action, Object[] params, String[] signature) {
      throw new UnsupportedOperationException("no operations");
    }

    @Override
    public MBeanInfo getMBeanInfo() {
      MBeanAttributeInfo[] attrs = new MBeanAttributeInfo[METRICS.length + 3];
      for (int i = 0; i < METRICS.length; i++) {
        attrs[i] = new MBeanAttributeInfo(METRICS[i][0], "long", METRICS[i][1], true, false, false);
      }
      attrs[METRICS.length] = new MBeanAttributeInfo(SLOW_NODES, "int", SLOW_NODES_MEANING, true, false, false);
      attrs[METRICS.length + 1] = new MBeanAttributeInfo(MAX_FACTOR, "double", MAX_FACTOR_MEANING, true, false, false);
      attrs[METRICS.length + 2] = new MBeanAttributeInfo(SLOW_NODE_LIST, String.class.getName(), SLOW_NODE_LIST_MEANING,
          true, false, false);
      return new MBeanInfo(PlainBean.class.getName(), RECORD.description(), attrs, null, null, null);
    }
  }
}
