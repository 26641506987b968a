package io.ecrepair.hdfs.task;

/**
 * The DataNode side's settings ({@code hdfs-site.xml} of every DataNode), in one place: read
 * when the plugin starts, mostly by {@link ReconstructionContext}. docs/configuration.md says
 * what each does and why its default is what it is; the cost model's {@code ecrepair.costs} is
 * in {@link io.ecrepair.hdfs.CostKeys}.
 */
public final class DataNodeKeys {
  private DataNodeKeys() {}

  /** Diagnostics: also time HDFS's own reconstruction tasks and report them in {@link ReconstructionLog}. */
  public static final String TIME_STOCK_TASKS_KEY = "ecrepair.datanode.time-stock-tasks";
  public static final boolean TIME_STOCK_TASKS_DEFAULT = false;
  /** Also rebuild Hadoop's {@code rs} policies (else HDFS does, already reading the minimum, k blocks). */
  public static final String REBUILD_RS_KEY = "ecrepair.datanode.rebuild.rs";
  public static final boolean REBUILD_RS_DEFAULT = false;
  /** MiB of idle cell buffers kept for the next tasks (at most a quarter of the heap; 0 = fresh ones per task). */
  public static final String BUFFER_POOL_MB_KEY = "ecrepair.datanode.buffer.pool.mb";
  public static final long BUFFER_POOL_MB_DEFAULT = 128;

  /**
   * Repair agents on the transfer port plus this offset (0 = off; one value for the cluster). They
   * run under the DataNode's own data transfer protection (encryption, SASL, block tokens; see
   * docs/security.md) and stay off only on a Kerberos cluster that relies on privileged ports.
   */
  public static final String AGENT_PORT_OFFSET_KEY = "ecrepair.datanode.agent.port-offset";
  public static final int AGENT_PORT_OFFSET_DEFAULT = 0;
  /** KiB of TCP receive buffer per helper connection (0 = autotuned); small windows avoid incast at the rebuilding node. */
  public static final String HELPER_RECEIVE_BUFFER_KB_KEY = "ecrepair.datanode.helper.receive-buffer.kb";
  public static final int HELPER_RECEIVE_BUFFER_KB_DEFAULT = 32;
  /** KiB per slice flowing along a repair chain. */
  public static final String PIPELINE_SLICE_KB_KEY = "ecrepair.datanode.pipeline.slice.kb";
  public static final int PIPELINE_SLICE_KB_DEFAULT = 128;

  /** Parallel repair of Clay and Butterfly blocks across the helpers' agents (needs the agents; false = central). */
  public static final String PARALLEL_KEY = "ecrepair.datanode.parallel";
  public static final boolean PARALLEL_DEFAULT = true;
  /**
   * A DataNode's first task of a full-node recovery runs centrally ({@link io.ecrepair.plan.RecoveryShare});
   * false: every task weighs the parallel plans.
   */
  public static final String CENTRAL_SHARE_KEY = "ecrepair.datanode.parallel.central-share";
  public static final boolean CENTRAL_SHARE_DEFAULT = true;
  /** KiB of each sub-chunk per slice of a parallel repair: a value flows on before its sub-chunk is done. */
  public static final String PLAN_PIECE_KB_KEY = "ecrepair.datanode.plan.piece.kb";
  public static final int PLAN_PIECE_KB_DEFAULT = 4;
  /**
   * Bytes per second of repair traffic a DataNode receives (0: unlimited), over every route of
   * ours; unset: HDFS's dfs.datanode.ec.reconstruct.read.bandwidthPerSec.
   */
  public static final String REPAIR_BANDWIDTH_IN_KEY = "ecrepair.datanode.repair.bandwidth.in";
  /** The same for repair traffic it sends; unset: dfs.datanode.ec.reconstruct.write.bandwidthPerSec. */
  public static final String REPAIR_BANDWIDTH_OUT_KEY = "ecrepair.datanode.repair.bandwidth.out";
  /**
   * The DSCP (0-63) every packet of repair traffic leaves with, so a network with QoS can send it
   * after the clients' (0: unmarked, the default; 1 is RFC 8622's Lower Effort, which a network
   * that does not know it forwards as best effort). Clients' degraded reads are never marked.
   */
  public static final String REPAIR_DSCP_KEY = "ecrepair.datanode.repair.dscp";
  public static final int REPAIR_DSCP_DEFAULT = 0;
  /**
   * How many steps nicer than the DataNode's other threads its repair work runs (0 to 19; 0: at
   * the DataNode's priority): where the CPU is short, the threads serving clients run first.
   * Needs the native library (Linux); clients' degraded reads are never lowered. Off by default:
   * it trades a slower repair, and a longer time short of redundancy, for the clients' latency.
   */
  public static final String REPAIR_NICE_KEY = "ecrepair.datanode.repair.nice";
  public static final int REPAIR_NICE_DEFAULT = 0;
  /**
   * Whether the repair budget adapts to the DataNode's foreground traffic (what its data transfer
   * serves readers and receives from writers): repair gets what the foreground leaves of
   * {@value #REPAIR_LINK_SHARE_PERCENT_KEY} of the link, never less than the floor, all of it
   * when there is no foreground. Needs {@value #REPAIR_LINK_MBIT_KEY}.
   */
  public static final String REPAIR_ADAPTIVE_KEY = "ecrepair.datanode.repair.bandwidth.adaptive";
  public static final boolean REPAIR_ADAPTIVE_DEFAULT = false;
  /** The DataNode's link in Mbit/s, each way (what the adaptive budget shares out). */
  public static final String REPAIR_LINK_MBIT_KEY = "ecrepair.datanode.repair.link.mbit";
  /** The share of the link foreground and repair together may fill while there is foreground traffic. */
  public static final String REPAIR_LINK_SHARE_PERCENT_KEY = "ecrepair.datanode.repair.adaptive.link-share.percent";
  public static final int REPAIR_LINK_SHARE_PERCENT_DEFAULT = 80;
  /** The least share of the link repair keeps, however busy the foreground: a recovery is never starved. */
  public static final String REPAIR_FLOOR_PERCENT_KEY = "ecrepair.datanode.repair.adaptive.floor.percent";
  public static final int REPAIR_FLOOR_PERCENT_DEFAULT = 10;
  /** Parts of clients' degraded reads an agent runs at once (0 = none), so readers cannot crowd out repairs. */
  public static final String AGENT_CLIENT_PARTS_KEY = "ecrepair.datanode.agent.client-parts";
  public static final int AGENT_CLIENT_PARTS_DEFAULT = 16;
  /** MiB the agent's requests and parts may hold at once (at most half the heap); a part that does not fit is refused. */
  public static final String AGENT_MEMORY_MB_KEY = "ecrepair.datanode.agent.memory.mb";
  public static final long AGENT_MEMORY_MB_DEFAULT = 192;
  /** MiB one agent part may hold; a part that would need more is refused. */
  public static final String AGENT_PART_MEMORY_MB_KEY = "ecrepair.datanode.agent.part.memory.mb";
  public static final long AGENT_PART_MEMORY_MB_DEFAULT = 48;
  /** Seconds an agent part may run before it is ended and its requester finishes centrally. */
  public static final String AGENT_PART_MAX_SECONDS_KEY = "ecrepair.datanode.agent.part.max.seconds";
  public static final int AGENT_PART_MAX_SECONDS_DEFAULT = 600;
  /** Whether a part may send values to an agent on another port than this one's (DataNodes on different ports). */
  public static final String AGENT_HOPS_ANY_PORT_KEY = "ecrepair.datanode.agent.hops.any-port";
  public static final boolean AGENT_HOPS_ANY_PORT_DEFAULT = false;
  /** Seconds between looks at the NameNode's enabled EC policies, whose repairs are readied when first seen (0 = never). */
  public static final String PREPARE_INTERVAL_SECONDS_KEY = "ecrepair.datanode.prepare.interval.seconds";
  public static final int PREPARE_INTERVAL_SECONDS_DEFAULT = 60;

  /** Seconds after a unit of a striped group entered lease recovery here before a leftover of it is reported (0 = never). */
  public static final String RECOVERY_LEFTOVER_CHECK_SECONDS_KEY = "ecrepair.datanode.recovery.leftover-check.seconds";
  public static final int RECOVERY_LEFTOVER_CHECK_SECONDS_DEFAULT = 120;
}
