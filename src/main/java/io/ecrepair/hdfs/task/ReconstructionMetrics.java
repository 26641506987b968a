package io.ecrepair.hdfs.task;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.apache.hadoop.metrics2.MetricsCollector;
import org.apache.hadoop.metrics2.MetricsRecordBuilder;
import org.apache.hadoop.metrics2.MetricsSource;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.apache.hadoop.metrics2.lib.Interns;

/**
 * The plugin's metrics2 source, one per DataNode, visible over JMX as
 * {@code Hadoop:service=DataNode,name=EcRepairReconstruction-<host>-<port>}: reconstruction
 * tasks, failures, helper replacements, bytes read and written and task time in
 * milliseconds, in total and by codec ({@code TasksClay}, {@code BytesReadLrcL2}, ...), plus
 * whether the hook is installed. HDFS's own DataNode EC metrics ({@code EcReconstructionTasks},
 * ...) count our tasks too.
 */
public final class ReconstructionMetrics implements MetricsSource {
  private static final String[] NAMES = {"Tasks", "FailedTasks", "HelperReplacements", "BytesRead", "BytesWritten",
      "TimeMillis", "ChainedTasks", "BrokenChains", "ParallelTasks", "BrokenParallelRepairs"};
  /** What each counter means, as JMX and Prometheus describe it (the README's metrics table says the same). */
  private static final String[] MEANINGS = {
      "reconstruction tasks the plugin ran",
      "tasks that failed (the NameNode schedules them again)",
      "helpers replaced after failing or stalling mid-task",
      "bytes read from helpers (payload, checksums excluded)",
      "bytes written to the targets",
      "time of the tasks, milliseconds",
      "tasks that started along a repair chain",
      "chained tasks finished by reading the helpers",
      "tasks that ran a parallel plan across the helpers' agents",
      "parallel tasks finished by reading the helpers"};

  /** Not per codec: an agent reading its own replica for another DataNode's repair does not know the codec. */
  private static final String CORRUPT_REPORTED = "CorruptReplicasReported";
  /** The repair agent's counters (0 without an agent), and what each means. */
  private static final Map<String, String> AGENT = agentMeanings();

  private final String sourceName;
  private final String datanode;
  private final Map<String, LongAdder[]> byCodec = new ConcurrentHashMap<>();
  private final LongAdder[] total = counters();
  private final LongAdder corruptReported = new LongAdder();
  private volatile java.util.function.Supplier<Map<String, Long>> agent = Map::of;
  private volatile boolean hookInstalled;
  private volatile long tasksBeforeHook;

  public ReconstructionMetrics(String datanode) {
    this.datanode = datanode;
    this.sourceName = sourceName(datanode);
  }

  public static String sourceName(String datanode) {
    return "EcRepairReconstruction-" + datanode.replace(':', '-');
  }

  public String sourceName() {
    return sourceName;
  }

  public ReconstructionMetrics register() {
    DefaultMetricsSystem.instance().register(sourceName, "hadoop-ec-repair DataNode reconstruction", this);
    return this;
  }

  public void unregister() {
    try {
      DefaultMetricsSystem.instance().unregisterSource(sourceName);
    } catch (RuntimeException e) {
      // metrics system already shut down with the DataNode
    }
  }

  public void hookInstalled(boolean installed) {
    this.hookInstalled = installed;
  }

  public void tasksBeforeHook(long n) {
    this.tasksBeforeHook = n;
  }

  void record(TaskReport r) {
    for (LongAdder[] c : new LongAdder[][] {total, byCodec.computeIfAbsent(r.codec(), x -> counters())}) {
      c[0].increment();
      if (!r.succeeded()) {
        c[1].increment();
      }
      c[2].add(r.helperReplacements());
      c[3].add(r.bytesRead());
      c[4].add(r.bytesWritten());
      c[5].add(Math.round(r.seconds() * 1000));
      if (r.route().startsWith("chain")) {
        c[6].increment();
      }
      if (r.route().equals("chain+central")) {
        c[7].increment();
      }
      if (r.route().startsWith("parallel")) {
        c[8].increment();
      }
      if (r.route().equals("parallel+central")) {
        c[9].increment();
      }
    }
  }

  private static Map<String, String> agentMeanings() {
    Map<String, String> m = new java.util.LinkedHashMap<>();
    m.put("AgentPartsServed", "parts of distributed repairs the repair agent ran");
    m.put("AgentRangeRequestsServed", "range requests of central repairs the repair agent served");
    m.put("AgentClientPartsRefused", "parts of clients' degraded reads refused at the agent's limit");
    m.put("AgentMemoryRefused", "requests refused because the memory they may hold did not fit the agent's caps");
    m.put("AgentArrivalsCut", "connections cut while their request was still arriving (trickling, or a newcomer needed the place)");
    m.put("AgentStreamsRefused", "value streams whose sender did not prove it is the DataNode the plan names");
    return java.util.Collections.unmodifiableMap(m);
  }

  /** Where the repair agent's counters come from (by the names of {@link #AGENT}), once it runs. */
  public void agent(java.util.function.Supplier<Map<String, Long>> counters) {
    this.agent = counters;
  }

  /** A helper's replica (or this DataNode's own, read for a distributed repair) failed its checksums and was reported. */
  public void corruptReplicaReported() {
    corruptReported.increment();
  }

  /** Counter values by name (total and by codec), as JMX shows them. */
  public Map<String, Long> snapshot() {
    Map<String, Long> m = new TreeMap<>();
    m.put(CORRUPT_REPORTED, corruptReported.sum());
    Map<String, Long> fromAgent = agent.get();
    AGENT.keySet().forEach(name -> m.put(name, fromAgent.getOrDefault(name, 0L)));
    for (int i = 0; i < NAMES.length; i++) {
      m.put(NAMES[i], total[i].sum());
    }
    byCodec.forEach((codec, c) -> {
      for (int i = 0; i < NAMES.length; i++) {
        m.put(NAMES[i] + camel(codec), c[i].sum());
      }
    });
    return m;
  }

  @Override
  public void getMetrics(MetricsCollector collector, boolean all) {
    MetricsRecordBuilder rb = collector.addRecord("EcRepairReconstruction").setContext("dfs")
        .tag(Interns.info("DataNode", "the reconstructing DataNode"), datanode)
        .addGauge(Interns.info("HookInstalled", "1 when our reconstruction hook is installed"), hookInstalled ? 1 : 0)
        .addGauge(Interns.info("TasksBeforeHook", "tasks HDFS accepted before the hook was installed"),
            tasksBeforeHook);
    for (Map.Entry<String, Long> e : snapshot().entrySet()) {
      rb.addCounter(Interns.info(e.getKey(), meaning(e.getKey())), e.getValue());
    }
  }

  /** The meaning of a counter; a per-codec one (TasksClay) is its total's, for that codec. */
  private static String meaning(String name) {
    if (name.equals(CORRUPT_REPORTED)) {
      return "replicas whose bytes failed their stored checksums, reported to the NameNode";
    }
    if (AGENT.containsKey(name)) {
      return AGENT.get(name);
    }
    for (int i = 0; i < NAMES.length; i++) {
      if (name.equals(NAMES[i])) {
        return MEANINGS[i];
      }
    }
    for (int i = 0; i < NAMES.length; i++) {
      if (name.startsWith(NAMES[i])) {
        return MEANINGS[i] + ", codec " + name.substring(NAMES[i].length());
      }
    }
    return name;
  }

  /** "lrc-l2" -> "LrcL2". */
  static String camel(String codec) {
    StringBuilder b = new StringBuilder();
    boolean up = true;
    for (char ch : codec.toCharArray()) {
      if (!Character.isLetterOrDigit(ch)) {
        up = true;
        continue;
      }
      b.append(up ? Character.toUpperCase(ch) : Character.toLowerCase(ch));
      up = false;
    }
    return b.toString();
  }

  private static LongAdder[] counters() {
    LongAdder[] c = new LongAdder[NAMES.length];
    for (int i = 0; i < c.length; i++) {
      c[i] = new LongAdder();
    }
    return c;
  }

  @Override
  public String toString() {
    return sourceName + " " + snapshot().toString().toLowerCase(Locale.ROOT);
  }
}
