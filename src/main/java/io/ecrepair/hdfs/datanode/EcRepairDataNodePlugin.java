package io.ecrepair.hdfs.datanode;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.util.ServicePlugin;
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
  /**
   * Diagnostics for benchmarks and the demo (default false): also time HDFS's own
   * reconstruction tasks (those the plugin leaves to HDFS) and report them in
   * {@link ReconstructionLog}. The task itself runs unchanged.
   */
  public static final String TIME_STOCK_TASKS_KEY = "ecrepair.datanode.time-stock-tasks";
  /**
   * Also take over Hadoop's {@code rs} policies (default false: they stay with HDFS, whose
   * reconstruction already reads the minimum, k blocks). With it the plugin rebuilds RS blocks
   * too: its pipelined range reads, ISA-L, and one code path to measure against the others.
   */
  public static final String REBUILD_RS_KEY = "ecrepair.datanode.rebuild.rs";
  /**
   * MiB of idle cell buffers the DataNode keeps for its next reconstruction tasks (default
   * 128, and never more than a quarter of the JVM's maximum heap, which is also its default
   * direct-memory limit; 0 allocates fresh ones for every task). Fresh direct buffers cost
   * page faults that dominated the repair threads' CPU with 4 MiB cells.
   */
  public static final String BUFFER_POOL_MB_KEY = "ecrepair.datanode.buffer.pool.mb";
  public static final long BUFFER_POOL_MB_DEFAULT = 128;

  /**
   * Repair pipelining (default 0 = off): every DataNode runs a repair agent on its data
   * transfer port plus this offset (one offset for the whole cluster, so a DataNode knows its
   * helpers' agents), and a lost block of a scalar code (RS through the plugin, LRC) is rebuilt
   * along a chain of its helpers, each adding its term to the partial sum it passes on (ECPipe):
   * no link carries more than one block. The agent checks a block access token for its block
   * on every request (when tokens are on) and refuses to start where data transfer is
   * encrypted or SASL-protected, since its streams are plain TCP. A broken chain costs time,
   * never data: the task goes on reading the helpers itself.
   */
  public static final String AGENT_PORT_OFFSET_KEY = "ecrepair.datanode.agent.port-offset";
  /**
   * KiB of TCP receive buffer for each helper connection of a repair this DataNode runs
   * (default 32; 0 leaves it to the system's autotuning). A Clay or Butterfly repair reads 10 to
   * 13 helpers at once, and a DataNode rebuilding two blocks twice as many: with autotuned
   * windows of megabytes each, their bursts overflow the switch port in front of this node
   * (TCP incast), and every lost packet stalls its cell row. A small fixed window per helper
   * keeps what is in flight towards this node near what its link and port buffer hold, also
   * for two repairs at once (26 helpers); 32 KiB still lets a helper send 2.6 Gbit/s at a
   * 0.1 ms round trip. Raise it (or 0) on links with a long round trip. The repair agent's
   * incoming value streams (a distributed repair's) get the same buffer.
   */
  public static final String HELPER_RECEIVE_BUFFER_KB_KEY = "ecrepair.datanode.helper.receive-buffer.kb";
  public static final int HELPER_RECEIVE_BUFFER_KB_DEFAULT = 32;
  /** KiB per slice flowing along a repair chain (default 128). */
  public static final String PIPELINE_SLICE_KB_KEY = "ecrepair.datanode.pipeline.slice.kb";
  public static final int PIPELINE_SLICE_KB_DEFAULT = 128;

  /**
   * Parallel repair (default true; needs the agents): a lost Clay or Butterfly block whose
   * code has a stored parallel plan (shipped for the policies of conf/user_ec_policies.xml, else
   * searched in the background after the code's first repair) is rebuilt by the helpers'
   * repair agents together, each computing its part of the plan (ParaRC), instead of by this
   * DataNode alone: the rebuilding node receives about one block instead of d/q blocks' worth.
   * False keeps the central sub-chunk repair.
   */
  public static final String PARALLEL_KEY = "ecrepair.datanode.parallel";
  /**
   * KiB of each sub-chunk per slice of a parallel repair (default 4): values move between
   * agents in slices of this many bytes per sub-chunk, so a value flows on to the next node
   * before its whole sub-chunk is computed.
   */
  public static final String PLAN_PIECE_KB_KEY = "ecrepair.datanode.plan.piece.kb";
  public static final int PLAN_PIECE_KB_DEFAULT = 4;

  private static final Logger LOG = LoggerFactory.getLogger(EcRepairDataNodePlugin.class);
  private static final Map<DataNode, EcRepairDataNodePlugin> ACTIVE = new ConcurrentHashMap<>();

  private DataNode datanode;
  private ReconstructionMetrics metrics;
  private ReconstructionContext ctx;
  private ReconstructionHook hook;
  private volatile RepairAgent agent;

  @Override
  public synchronized void start(Object service) {
    if (!(service instanceof DataNode dn)) {
      throw new IllegalArgumentException("hadoop-ec-repair's DataNode plugin runs in a DataNode (dfs.datanode.plugins), "
          + "not in " + (service == null ? "null" : service.getClass().getName()));
    }
    try {
      if (dn.getErasureCodingWorker() == null) {
        throw new IllegalStateException("this DataNode has no ErasureCodingWorker");
      }
      ctx = null;
      metrics = new ReconstructionMetrics(nameOf(dn));
      ctx = new ReconstructionContext(dn, dn.getConf(), metrics, dn.getErasureCodingWorker().getXmitWeight());
      hook = ReconstructionHook.install(dn, ctx);
      agent = startAgent(dn, ctx);
      metrics.hookInstalled(true);
      metrics.register();
      datanode = dn;
      ACTIVE.put(dn, this);
      LOG.info("ec-repair: DataNode plugin active on {}: reconstruction of clay, butterfly and lrc-* policies reads "
          + "only what each code needs; RS and other policies stay with HDFS (metrics: {})", ctx.name(),
          metrics.sourceName());
    } catch (Throwable t) {
      if (agent != null) {
        agent.close();
        agent = null;
      }
      if (ctx != null) {
        ctx.shutdown();
      }
      String msg = "ec-repair: DataNode plugin NOT active: Hadoop " + VersionInfo.getVersion()
          + " does not offer the reconstruction hook it needs (" + t + "). NameNode-driven reconstruction of Clay and "
          + "Butterfly policies will fail on this DataNode and LRC will read k blocks; use Hadoop 3.3.x (built and "
          + "tested against 3.3.6) or remove io.ecrepair.hdfs.datanode.EcRepairDataNodePlugin from dfs.datanode.plugins";
      LOG.error(msg, t);
      throw new IllegalStateException(msg, t);
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
  static void stopAgent(DataNode dn) {
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

  /** Distributed repairs this DataNode takes part in right now, as coordinator or helper. */
  public static int sessions(DataNode dn) {
    EcRepairDataNodePlugin p = ACTIVE.get(dn);
    return p == null || p.ctx == null ? 0 : p.ctx.sessions().size();
  }

  /** Range requests (helper reads of central repairs) this DataNode's agent served (0 without an agent). */
  public static long rangeRequestsServed(DataNode dn) {
    EcRepairDataNodePlugin p = ACTIVE.get(dn);
    return p == null || p.agent == null ? 0 : p.agent.rangeRequestsServed();
  }

  @Override
  public synchronized void stop() {
    if (agent != null) {
      agent.close();
      agent = null;
    }
    if (hook != null) {
      hook.uninstall();
      hook = null;
    }
    if (ctx != null) {
      ctx.shutdown();
    }
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

  /** Whether the plugin's hook is installed on {@code dn}. */
  public static boolean isActive(DataNode dn) {
    return ACTIVE.containsKey(dn);
  }

  /** The plugin's counters on {@code dn} (as JMX shows them), empty when it is not active there. */
  public static Map<String, Long> metrics(DataNode dn) {
    EcRepairDataNodePlugin p = ACTIVE.get(dn);
    return p == null ? Map.of() : p.metrics.snapshot();
  }

  /** The DataNode as HDFS names its own metrics ({@code DataNodeActivity-<host>-<port>}): host:port. */
  static String nameOf(DataNode dn) {
    return dn.getDisplayName();
  }

  /** The metrics2 source (and JMX {@code name=}) of the plugin on {@code dn}. */
  public static String metricsSourceName(DataNode dn) {
    return ReconstructionMetrics.sourceName(nameOf(dn));
  }
}
