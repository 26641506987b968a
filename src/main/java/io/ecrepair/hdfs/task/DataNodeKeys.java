package io.ecrepair.hdfs.task;

/**
 * The DataNode side's settings ({@code hdfs-site.xml}), in one place: read once by
 * {@link ReconstructionContext} when the plugin starts; conf/hdfs-site.ec-repair.xml and the
 * README document them for operators.
 */
public final class DataNodeKeys {
  private DataNodeKeys() {}

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
   * no link carries more than one block. The agent's connections are protected as the DataNode's
   * own data transfer is (SASL, encryption, block tokens; see docs/security.md). A broken chain
   * costs time, never data: the task goes on reading the helpers itself.
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
  /**
   * Parts of clients' degraded reads an agent runs at once (default 16; 0 serves clients none):
   * one more is refused and that client fetches its read set through HDFS instead, so readers
   * cannot crowd out the reconstructions the agent takes part in, which are not limited here.
   * A part is a client's when its request says so, or, with block tokens, when its requester
   * does not prove it holds the cluster's block keys (only DataNodes do, whatever user a client
   * runs as); without block tokens nothing can be proved and the request's word is taken.
   */
  public static final String AGENT_CLIENT_PARTS_KEY = "ecrepair.datanode.agent.client-parts";
  public static final int AGENT_CLIENT_PARTS_DEFAULT = 16;
  /**
   * MiB of memory the repair agent's requests and parts may hold at once (default 192, and never
   * more than half the JVM's maximum heap, which is also its default direct-memory limit). Before
   * a part allocates anything it reserves the most it may hold (its rows of sub-chunks, its
   * runner's buffers, the queues of its streams full: 2.5 to 19 MiB for the shipped Clay and
   * Butterfly plans with 1 MiB cells, up to 33 MiB with 4 MiB cells); one that does not fit is
   * refused and its requester repairs centrally instead, so no requester can make a DataNode
   * hold more, however many parts it asks for.
   */
  public static final String AGENT_MEMORY_MB_KEY = "ecrepair.datanode.agent.memory.mb";
  public static final long AGENT_MEMORY_MB_DEFAULT = 192;
  /** MiB one part may hold (default 48): a part that would need more is refused. */
  public static final String AGENT_PART_MEMORY_MB_KEY = "ecrepair.datanode.agent.part.memory.mb";
  public static final long AGENT_PART_MEMORY_MB_DEFAULT = 48;
  /**
   * Seconds a part may run (default 600): then it is ended and its requester finishes the repair
   * centrally from the row reached. A part moves at most about its block, so only a requester or
   * peer that stalls it for long reaches this.
   */
  public static final String AGENT_PART_MAX_SECONDS_KEY = "ecrepair.datanode.agent.part.max.seconds";
  public static final int AGENT_PART_MAX_SECONDS_DEFAULT = 600;
  /**
   * Whether a part may send values to an agent on another port than this DataNode's own agent
   * (default false). Agents listen on their DataNode's transfer port plus the cluster's offset,
   * and DataNodes share one transfer port, so a hop to another port cannot be an agent; set it
   * on a cluster whose DataNodes use different transfer ports. (DataNodes on loopback, as in
   * tests, may always.)
   */
  public static final String AGENT_HOPS_ANY_PORT_KEY = "ecrepair.datanode.agent.hops.any-port";
  /**
   * Seconds between this DataNode's looks at the NameNode's enabled erasure coding policies
   * (default 60; 0 never looks): each enabled policy of ours is readied in the background when
   * first seen (every single-loss repair compiled, the parallel plans loaded or searched), so
   * the first failure after a DataNode starts finds its repairs ready. Without it the first
   * task of a code compiled them on its critical path: 5 to 10 s of planning per task in the
   * benchmark cluster's first recovery, about half a second on an idle machine.
   */
  public static final String PREPARE_INTERVAL_SECONDS_KEY = "ecrepair.datanode.prepare.interval.seconds";
  public static final int PREPARE_INTERVAL_SECONDS_DEFAULT = 60;
}
