package io.ecrepair.hdfs.datanode;

import io.ecrepair.hdfs.agent.RepairAgent;
import io.ecrepair.hdfs.task.DataNodeKeys;
import io.ecrepair.hdfs.task.ReconstructionContext;
import io.ecrepair.hdfs.task.ReconstructionMetrics;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.EcRepairBlockRecoveryWorker;
import org.apache.hadoop.hdfs.server.datanode.LeftoverReplicaReporter;
import org.apache.hadoop.util.ServicePlugin;
import io.ecrepair.hdfs.HadoopLine;
import org.apache.hadoop.util.VersionInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * hadoop-ec-repair's DataNode plugin ({@code dfs.datanode.plugins}): NameNode-driven
 * reconstruction of our policies (codecs clay, butterfly, lrc-*) reads only what each code
 * needs (Clay sub-chunks from d helpers, Butterfly halves, an LRC local group); every other
 * policy, Hadoop's RS included, stays with HDFS's own reconstruction, untouched.
 *
 * <p>Start-up installs the {@link ReconstructionHook} and logs that the plugin is active; if
 * this Hadoop does not offer the hook, it logs an ERROR saying what will not work and throws
 * (HDFS then logs the plugin as not started and the DataNode runs without it).
 */
public final class EcRepairDataNodePlugin implements ServicePlugin {
  private static final Logger LOG = LoggerFactory.getLogger(EcRepairDataNodePlugin.class);
  private static final Map<DataNode, EcRepairDataNodePlugin> ACTIVE = new ConcurrentHashMap<>();

  private DataNode datanode;
  private ReconstructionMetrics metrics;
  private ReconstructionContext ctx;
  private ReconstructionHook hook;
  private EcRepairBlockRecoveryWorker leaseRecovery;
  private LeftoverReplicaReporter leftovers;
  private RepairBudgetBean budgetBean;
  private AdaptiveRepairBudget adaptive;
  private volatile RepairAgent agent;
  private PolicyPreparer preparer;

  @Override
  public synchronized void start(Object service) {
    if (!(service instanceof DataNode dn)) {
      throw new IllegalArgumentException("hadoop-ec-repair's DataNode plugin runs in a DataNode (dfs.datanode.plugins), "
          + "not in " + (service == null ? "null" : service.getClass().getName()));
    }
    String otherLine = HadoopLine.mismatch();
    if (otherLine != null) {
      LOG.error("ec-repair: DataNode plugin NOT started: {}", otherLine);
      return;
    }
    try {
      if (dn.getErasureCodingWorker() == null) {
        throw new IllegalStateException("this DataNode has no ErasureCodingWorker");
      }
      ctx = null;
      metrics = new ReconstructionMetrics(ReconstructionContext.nameOf(dn));
      ctx = new ReconstructionContext(dn, dn.getConf(), metrics, dn.getErasureCodingWorker().getXmitWeight());
      hook = ReconstructionHook.install(dn, ctx);
      EcRepairBlockRecoveryWorker.check();
      long leftoverCheck = dn.getConf().getLong(DataNodeKeys.RECOVERY_LEFTOVER_CHECK_SECONDS_KEY,
          DataNodeKeys.RECOVERY_LEFTOVER_CHECK_SECONDS_DEFAULT);
      if (leftoverCheck > 0) {
        leftovers = LeftoverReplicaReporter.install(dn, TimeUnit.SECONDS.toMillis(leftoverCheck));
      }
      leaseRecovery = EcRepairBlockRecoveryWorker.install(dn, new DecodableSafeLength(), leftovers);
      agent = startAgent(dn, ctx);
      if (agent != null) {
        RepairAgent a = agent;
        metrics.agent(a::counters);
      }
      preparer = PolicyPreparer.start(dn.getConf(), ctx.rebuildRs(), ctx.name(),
          dn.getConf().getLong(DataNodeKeys.PREPARE_INTERVAL_SECONDS_KEY, DataNodeKeys.PREPARE_INTERVAL_SECONDS_DEFAULT));
      metrics.hookInstalled(true);
      metrics.register();
      adaptive = startAdaptive(dn, ctx);
      budgetBean = new RepairBudgetBean(ctx.name(), ctx.budget(), adaptive != null).register();
      datanode = dn;
      ACTIVE.put(dn, this);
      LOG.info("ec-repair: DataNode plugin active on {}: reconstruction of clay, butterfly and lrc-* policies reads "
          + "only what each code needs; RS and other policies stay with HDFS (metrics: {}; repair bandwidth in {}, "
          + "out {} bytes/s, 0 = unlimited, changed live through JMX {})", ctx.name(), metrics.sourceName(),
          ctx.budget().inBytesPerSecond(), ctx.budget().outBytesPerSecond(), budgetBean.objectName());
    } catch (Throwable t) {
      release();
      String msg = "ec-repair: DataNode plugin NOT active: Hadoop " + VersionInfo.getVersion()
          + " does not offer the reconstruction hook it needs (" + t + "). NameNode-driven reconstruction of Clay and "
          + "Butterfly policies will fail on this DataNode and LRC will read k blocks; use Hadoop " + HadoopLine.built()
          + ".x (built and tested against " + HadoopLine.builtVersion() + ") or remove "
          + "io.ecrepair.hdfs.datanode.EcRepairDataNodePlugin from dfs.datanode.plugins";
      LOG.error(msg, t);
      throw new IllegalStateException(msg, t);
    }
  }

  /**
   * The adaptive repair budget if configured; a setting it refuses leaves the budget as the
   * operator's limits set it, and repair working, rather than the plugin off.
   */
  private static AdaptiveRepairBudget startAdaptive(DataNode dn, ReconstructionContext ctx) {
    try {
      return AdaptiveRepairBudget.start(dn, dn.getConf(), ctx.budget(), ctx.name());
    } catch (RuntimeException e) {
      LOG.error("ec-repair: the adaptive repair budget of {} is NOT on, repair runs within the configured limits "
          + "only: {}", ctx.name(), e.getMessage());
      return null;
    }
  }

  /** The repair agent when pipelining is configured and possible here; null otherwise (logged). */
  private static RepairAgent startAgent(DataNode dn, ReconstructionContext ctx) {
    int offset = ctx.agentPortOffset();
    if (offset == 0) {
      return null;
    }
    String why = RepairAgent.unsupportedBecause(dn.getConf());
    int port = dn.getXferPort() + offset;
    if (why == null && port > 65535) {
      why = "data transfer port " + dn.getXferPort() + " + offset " + offset + " is past 65535";
    }
    if (why == null) {
      try {
        RepairAgent a = RepairAgent.start(ctx, dn.getXferAddress().getAddress(), port);
        LOG.info("ec-repair: repair agent on {} listens on port {}: RS and LRC blocks are rebuilt along helper chains",
            ctx.name(), a.port());
        return a;
      } catch (IOException e) {
        why = e.getMessage();
      }
    }
    LOG.warn("ec-repair: no repair agent on {} ({}): chains through it break and their tasks read every helper "
        + "themselves", ctx.name(), why);
    return null;
  }

  /** Stops the repair agent on {@code dn}, if any (tests: a helper whose agent is gone). */
  public static void stopAgent(DataNode dn) {
    EcRepairDataNodePlugin p = ACTIVE.get(dn);
    if (p != null) {
      synchronized (p) {
        if (p.agent != null) {
          p.agent.close();
          p.agent = null;
        }
      }
    }
  }

  /** The port of the repair agent on {@code dn}, -1 when it runs none. */
  public static int agentPort(DataNode dn) {
    EcRepairDataNodePlugin p = ACTIVE.get(dn);
    RepairAgent a = p == null ? null : p.agent;
    return a == null ? -1 : a.port();
  }

  /** Parts of distributed repairs (chain hops, parallel plans) this DataNode's agent served (0 without an agent). */
  public static long partsServed(DataNode dn) {
    EcRepairDataNodePlugin p = ACTIVE.get(dn);
    return p == null || p.agent == null ? 0 : p.agent.partsServed();
  }

  /** Parts of clients' degraded reads this DataNode's agent refused at its limit. */
  public static long clientPartsRefused(DataNode dn) {
    EcRepairDataNodePlugin p = ACTIVE.get(dn);
    return p == null || p.agent == null ? 0 : p.agent.clientPartsRefused();
  }

  /** Value streams this DataNode's agent refused: their sender did not prove it is the DataNode the plan names. */
  public static long streamsRefused(DataNode dn) {
    EcRepairDataNodePlugin p = ACTIVE.get(dn);
    return p == null || p.agent == null ? 0 : p.agent.streamsRefused();
  }

  /** Distributed repairs this DataNode takes part in right now, as coordinator or helper. */
  public static int sessions(DataNode dn) {
    EcRepairDataNodePlugin p = ACTIVE.get(dn);
    return p == null || p.ctx == null ? 0 : p.ctx.sessions().size();
  }

  /** Connections this DataNode's agent is serving right now (0 without an agent). */
  public static int connectionsServing(DataNode dn) {
    EcRepairDataNodePlugin p = ACTIVE.get(dn);
    return p == null || p.agent == null ? 0 : p.agent.connectionsServing();
  }

  /** Range requests (helper reads of central repairs) this DataNode's agent served (0 without an agent). */
  public static long rangeRequestsServed(DataNode dn) {
    EcRepairDataNodePlugin p = ACTIVE.get(dn);
    return p == null || p.agent == null ? 0 : p.agent.rangeRequestsServed();
  }

  @Override
  public synchronized void stop() {
    release();
    if (metrics != null) {
      metrics.hookInstalled(false);
      metrics.unregister();
    }
    if (datanode != null) {
      ACTIVE.remove(datanode);
      datanode = null;
    }
  }

  @Override
  public void close() {
    stop();
  }

  /** Stops what start set up and puts HDFS's own pieces back. */
  private void release() {
    if (adaptive != null) {
      adaptive.close();
      adaptive = null;
    }
    if (budgetBean != null) {
      budgetBean.unregister();
      budgetBean = null;
    }
    if (preparer != null) {
      preparer.close();
      preparer = null;
    }
    if (agent != null) {
      agent.close();
      agent = null;
    }
    if (hook != null) {
      hook.uninstall();
      hook = null;
    }
    if (leftovers != null) {
      leftovers.uninstall();
      leftovers = null;
    }
    if (leaseRecovery != null) {
      leaseRecovery.uninstall();
      leaseRecovery = null;
    }
    if (ctx != null) {
      ctx.shutdown();
      ctx = null;
    }
  }

  /** Whether the plugin's hook is installed on {@code dn}. */
  public static boolean isActive(DataNode dn) {
    return ACTIVE.containsKey(dn);
  }

  /** The plugin's counters on {@code dn} (as JMX shows them), empty when it is not active there. */
  public static Map<String, Long> metrics(DataNode dn) {
    EcRepairDataNodePlugin p = ACTIVE.get(dn);
    return p == null ? Map.of() : p.metrics.snapshot();
  }

  /** The metrics2 source (and JMX {@code name=}) of the plugin on {@code dn}. */
  public static String metricsSourceName(DataNode dn) {
    return ReconstructionMetrics.sourceName(ReconstructionContext.nameOf(dn));
  }
}
