package io.ecrepair.hdfs.task;

import io.ecrepair.gf.BufferPool;
import io.ecrepair.gf.RegionCoder;
import io.ecrepair.gf.RegionCoders;
import io.ecrepair.hdfs.CostKeys;
import io.ecrepair.hdfs.NodeCosts;
import io.ecrepair.hdfs.StaticCosts;
import io.ecrepair.hdfs.agent.AgentContext;
import io.ecrepair.hdfs.agent.AgentLimits;
import io.ecrepair.hdfs.agent.FrameBuffers;
import io.ecrepair.hdfs.agent.PlanPartRequest;
import io.ecrepair.hdfs.agent.PlanSessions;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.util.DataChecksum;

/**
 * What the reconstruction tasks of one DataNode share: the DataNode, its configuration and
 * the settings read from it, the helper-read threads, the cell buffers and the metrics.
 */
public final class ReconstructionContext implements AgentContext {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ReconstructionContext.class);
  private final DataNode datanode;
  private final Configuration conf;
  private final String name;
  private final ReconstructionMetrics metrics;
  private final ThreadPoolExecutor readPool;
  private final ThreadPoolExecutor taskThreads;
  private final boolean validation;
  private final int readTimeoutMillis;
  private final float xmitWeight;
  private final boolean timeStockTasks;
  private final boolean rebuildRs;
  private final BufferPool buffers;
  private final FrameBuffers frames;
  private final int agentPortOffset;
  private final int pipelineSliceBytes;
  private final int helperReceiveBufferBytes;
  private final NodeCosts costs;
  private final PlanSessions sessions = new PlanSessions();
  /** Bytes this DataNode's repairs (its tasks and the parts its agent runs) still expect to receive. */
  private final java.util.concurrent.atomic.AtomicLong inbound = new java.util.concurrent.atomic.AtomicLong();
  /**
   * What this DataNode's tasks chose to receive, until their repairs count it in {@link #inbound}
   * (within milliseconds of the choice; counted for a second).
   */
  private final io.ecrepair.hdfs.agent.LoadIntents planned = new io.ecrepair.hdfs.agent.LoadIntents(1_000);
  /** Reconstruction tasks handed to this DataNode and not yet ended. */
  private final java.util.concurrent.atomic.AtomicInteger tasks = new java.util.concurrent.atomic.AtomicInteger();
  /** This DataNode's tasks that run centrally as its share of a recovery ({@link ParallelChoice}). */
  private final java.util.concurrent.atomic.AtomicInteger centralShares = new java.util.concurrent.atomic.AtomicInteger();
  /** Held while a task weighs and announces its plan, so this DataNode's tasks choose one after another. */
  private final java.util.concurrent.locks.ReentrantLock choosing = new java.util.concurrent.locks.ReentrantLock();
  private final boolean parallel;
  private final boolean centralShare;
  private final int planPieceBytes;
  private final int clientParts;
  private final AgentLimits agentLimits;
  private final io.ecrepair.hdfs.transfer.RepairBudget budget;
  /** Threads of the reconstruction tasks' blocking work at most; one more is refused and its task fails. */
  static final int MAX_READ_THREADS = 1024;
  /** More than HDFS's reconstruction threads (dfs.datanode.ec.reconstruction.threads) would ever hand over at once. */
  static final int MAX_TASK_THREADS = 256;

  public ReconstructionContext(DataNode datanode, Configuration conf, ReconstructionMetrics metrics, float xmitWeight) {
    this.datanode = datanode;
    this.conf = conf;
    this.name = nameOf(datanode);
    this.metrics = metrics;
    this.xmitWeight = xmitWeight;
    this.validation = conf.getBoolean(DFSConfigKeys.DFS_DN_EC_RECONSTRUCTION_VALIDATION_KEY,
        DFSConfigKeys.DFS_DN_EC_RECONSTRUCTION_VALIDATION_VALUE);
    this.readTimeoutMillis = conf.getInt(DFSConfigKeys.DFS_DN_EC_RECONSTRUCTION_STRIPED_READ_TIMEOUT_MILLIS_KEY,
        DFSConfigKeys.DFS_DN_EC_RECONSTRUCTION_STRIPED_READ_TIMEOUT_MILLIS_DEFAULT);
    this.timeStockTasks = conf.getBoolean(DataNodeKeys.TIME_STOCK_TASKS_KEY, DataNodeKeys.TIME_STOCK_TASKS_DEFAULT);
    this.rebuildRs = conf.getBoolean(DataNodeKeys.REBUILD_RS_KEY, DataNodeKeys.REBUILD_RS_DEFAULT);
    long poolMb = conf.getLong(DataNodeKeys.BUFFER_POOL_MB_KEY, DataNodeKeys.BUFFER_POOL_MB_DEFAULT);
    if (poolMb < 0) {
      throw new IllegalArgumentException(DataNodeKeys.BUFFER_POOL_MB_KEY + " must be >= 0, not " + poolMb);
    }
    this.agentPortOffset = conf.getInt(DataNodeKeys.AGENT_PORT_OFFSET_KEY, DataNodeKeys.AGENT_PORT_OFFSET_DEFAULT);
    if (agentPortOffset < 0 || agentPortOffset > 65535) {
      throw new IllegalArgumentException(DataNodeKeys.AGENT_PORT_OFFSET_KEY + " must be 0 (off) or a port "
          + "offset 1..65535, not " + agentPortOffset);
    }
    int sliceKb = conf.getInt(DataNodeKeys.PIPELINE_SLICE_KB_KEY, DataNodeKeys.PIPELINE_SLICE_KB_DEFAULT);
    if (sliceKb * 1024L < PlanPartRequest.MIN_PIECE || sliceKb * 1024L > PlanPartRequest.MAX_PIECE) {
      throw new IllegalArgumentException(DataNodeKeys.PIPELINE_SLICE_KB_KEY + " must be "
          + PlanPartRequest.MIN_PIECE / 1024 + ".." + PlanPartRequest.MAX_PIECE / 1024 + ", not " + sliceKb);
    }
    this.pipelineSliceBytes = sliceKb * 1024;
    int receiveKb = conf.getInt(DataNodeKeys.HELPER_RECEIVE_BUFFER_KB_KEY,
        DataNodeKeys.HELPER_RECEIVE_BUFFER_KB_DEFAULT);
    if (receiveKb < 0 || receiveKb > 1 << 20) {
      throw new IllegalArgumentException(DataNodeKeys.HELPER_RECEIVE_BUFFER_KB_KEY
          + " must be 0 (the system's autotuning) or 1..1048576 KiB, not " + receiveKb);
    }
    this.helperReceiveBufferBytes = receiveKb * 1024;
    this.clientParts = conf.getInt(DataNodeKeys.AGENT_CLIENT_PARTS_KEY, DataNodeKeys.AGENT_CLIENT_PARTS_DEFAULT);
    if (clientParts < 0) {
      throw new IllegalArgumentException(DataNodeKeys.AGENT_CLIENT_PARTS_KEY + " must be >= 0, not " + clientParts);
    }
    this.agentLimits = agentLimits(conf);
    this.budget = new io.ecrepair.hdfs.transfer.RepairBudget(
        bandwidth(conf, DataNodeKeys.REPAIR_BANDWIDTH_IN_KEY,
            DFSConfigKeys.DFS_DATANODE_EC_RECONSTRUCT_READ_BANDWIDTHPERSEC_KEY),
        bandwidth(conf, DataNodeKeys.REPAIR_BANDWIDTH_OUT_KEY,
            DFSConfigKeys.DFS_DATANODE_EC_RECONSTRUCT_WRITE_BANDWIDTHPERSEC_KEY),
        ranged(conf, DataNodeKeys.REPAIR_DSCP_KEY, DataNodeKeys.REPAIR_DSCP_DEFAULT, 63, "a DSCP, 0 (unmarked)"),
        new io.ecrepair.hdfs.transfer.RepairNice(ranged(conf, DataNodeKeys.REPAIR_NICE_KEY,
            DataNodeKeys.REPAIR_NICE_DEFAULT, 19, "0 (the DataNode's priority)")));
    this.parallel = conf.getBoolean(DataNodeKeys.PARALLEL_KEY, DataNodeKeys.PARALLEL_DEFAULT);
    this.centralShare = conf.getBoolean(DataNodeKeys.CENTRAL_SHARE_KEY, DataNodeKeys.CENTRAL_SHARE_DEFAULT);
    int pieceKb = conf.getInt(DataNodeKeys.PLAN_PIECE_KB_KEY, DataNodeKeys.PLAN_PIECE_KB_DEFAULT);
    if (pieceKb < 1 || pieceKb > PlanPartRequest.MAX_PIECE / 1024) {
      throw new IllegalArgumentException(DataNodeKeys.PLAN_PIECE_KB_KEY + " must be 1.."
          + PlanPartRequest.MAX_PIECE / 1024 + ", not " + pieceKb);
    }
    this.planPieceBytes = pieceKb * 1024;
    // The operator's costs only: a task's helper reads share one row window, so each helper's
    // throughput is the slowest one's and measuring it would tell the helpers apart by nothing.
    this.costs = new NodeCosts(StaticCosts.from(conf), null);
    this.buffers = new BufferPool(Math.min(poolMb << 20, Runtime.getRuntime().maxMemory() / 4));
    this.frames = new FrameBuffers(Math.min(64L << 20, Runtime.getRuntime().maxMemory() / 16));
    this.readPool = budget.nice().pool("ec-repair-lo-read-" + name, MAX_READ_THREADS, 60);
    this.taskThreads = budget.nice().pool("ec-repair-lo-task-" + name, MAX_TASK_THREADS, 60);
  }

  /** The cost of a byte from each DataNode ({@value CostKeys#COSTS_KEY}): helper choice and plan choice weigh it. */
  public NodeCosts costs() {
    return costs;
  }

  /** The DataNode as HDFS names its own metrics ({@code DataNodeActivity-<host>-<port>}): host:port. */
  public static String nameOf(DataNode dn) {
    return dn.getDisplayName();
  }

  @Override
  public DataNode datanode() {
    return datanode;
  }

  @Override
  public Configuration conf() {
    return conf;
  }

  /** The DataNode's transfer address, naming it in logs and reports. */
  @Override
  public String name() {
    return name;
  }

  public ReconstructionMetrics metrics() {
    return metrics;
  }

  @Override
  public void reportCorrupt(ExtendedBlock block, DatanodeInfo holder) {
    try {
      if (holder.getDatanodeUuid() != null && holder.getDatanodeUuid().equals(datanode.getDatanodeUuid())) {
        datanode.reportBadBlocks(block);
      } else {
        datanode.reportRemoteBadBlock(holder, block);
      }
      metrics.corruptReplicaReported();
      LOG.warn("ec-repair: reported {} on {} to the NameNode: its bytes fail their stored checksums", block, holder);
    } catch (IOException e) {
      LOG.warn("ec-repair: cannot report the corrupt replica of {} on {} to the NameNode: {}", block, holder,
          e.toString());
    }
  }

  @Override
  public ExecutorService readPool() {
    return readPool;
  }

  /** Where tasks run at repair's CPU priority while HDFS's reconstruction thread waits (it also runs HDFS's own). */
  public ExecutorService taskThreads() {
    return taskThreads;
  }

  /** Cell buffers the DataNode's tasks reuse ({@code ecrepair.datanode.buffer.pool.mb}). */
  @Override
  public BufferPool buffers() {
    return buffers;
  }

  /** Value frames the DataNode's distributed repairs reuse (at most 64 MiB idle, a sixteenth of the heap). */
  @Override
  public FrameBuffers frames() {
    return frames;
  }

  @Override
  public RegionCoder coder() {
    return RegionCoders.best();
  }

  public boolean timeStockTasks() {
    return timeStockTasks;
  }

  public boolean rebuildRs() {
    return rebuildRs;
  }

  boolean validation() {
    return validation;
  }

  /** {@code dfs.datanode.ec.reconstruction.stripedread.timeout.millis}: a helper silent this long fails. */
  int readTimeoutMillis() {
    return readTimeoutMillis;
  }

  /** A helper short of the current row that delivered nothing this long is given up. */
  @Override
  public long stallMillis() {
    return Math.max(2L * readTimeoutMillis, 1000L);
  }

  /** The xmits HDFS charges a task of {@code xmits} (ErasureCodingWorker: weighted, at least 1). */
  public int xmitsCharged(int xmits) {
    return Math.max((int) (xmits * xmitWeight), 1);
  }

  /**
   * {@code ecrepair.datanode.agent.port-offset}: every DataNode's repair agent listens on its
   * data transfer port plus this; 0 = no agents, no pipelined repair.
   */
  public int agentPortOffset() {
    return agentPortOffset;
  }

  /** {@code ecrepair.datanode.helper.receive-buffer.kb} in bytes: the receive buffer of a helper connection; 0 = autotuned. */
  @Override
  public int helperReceiveBufferBytes() {
    return helperReceiveBufferBytes;
  }

  /** {@code ecrepair.datanode.agent.client-parts}: parts of clients' degraded reads the agent runs at once. */
  @Override
  public int clientPartsLimit() {
    return clientParts;
  }

  @Override
  public io.ecrepair.hdfs.transfer.RepairBudget budget() {
    return budget;
  }

  /** {@code key}'s value, refused unless 0 ({@code zero}, what 0 means) to {@code max}. */
  private static int ranged(Configuration conf, String key, int dflt, int max, String zero) {
    int v = conf.getInt(key, dflt);
    if (v < 0 || v > max) {
      throw new IllegalArgumentException(key + " must be " + zero + " to " + max + ", not " + v);
    }
    return v;
  }

  /** Bytes per second from our key, else HDFS's; 0 (unlimited) when neither is set. */
  private static long bandwidth(Configuration conf, String ours, String hdfs) {
    long v = conf.getLongBytes(ours, conf.getLongBytes(hdfs, 0));
    try {
      return io.ecrepair.hdfs.transfer.RepairBudget.check(v);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException((conf.get(ours) != null ? ours : hdfs) + ": " + e.getMessage());
    }
  }

  @Override
  public AgentLimits limits() {
    return agentLimits;
  }

  /** The {@code ecrepair.datanode.agent.*} bounds, checked. */
  private static AgentLimits agentLimits(Configuration conf) {
    long memoryMb = positive(conf, DataNodeKeys.AGENT_MEMORY_MB_KEY, DataNodeKeys.AGENT_MEMORY_MB_DEFAULT);
    long partMb = positive(conf, DataNodeKeys.AGENT_PART_MEMORY_MB_KEY, DataNodeKeys.AGENT_PART_MEMORY_MB_DEFAULT);
    long seconds = positive(conf, DataNodeKeys.AGENT_PART_MAX_SECONDS_KEY,
        DataNodeKeys.AGENT_PART_MAX_SECONDS_DEFAULT);
    long memory = Math.min(memoryMb << 20, Runtime.getRuntime().maxMemory() / 2);
    int maxCell = conf.getInt(DFSConfigKeys.DFS_NAMENODE_EC_POLICIES_MAX_CELLSIZE_KEY,
        DFSConfigKeys.DFS_NAMENODE_EC_POLICIES_MAX_CELLSIZE_DEFAULT);
    return new AgentLimits(memory, Math.min(partMb << 20, memory), seconds * 1000, maxCell,
        conf.getBoolean(DataNodeKeys.AGENT_HOPS_ANY_PORT_KEY, DataNodeKeys.AGENT_HOPS_ANY_PORT_DEFAULT));
  }

  private static long positive(Configuration conf, String key, long defaultValue) {
    long v = conf.getLong(key, defaultValue);
    if (v < 1) {
      throw new IllegalArgumentException(key + " must be at least 1, not " + v);
    }
    return v;
  }

  /** Where {@code helper}'s repair agent listens: its address as DataNodes reach it, transfer port plus the offset. */
  @Override
  public InetSocketAddress agentAddress(DatanodeInfo helper) {
    String host = datanode.getDnConf().getConnectToDnViaHostname() ? helper.getHostName() : helper.getIpAddr();
    return new InetSocketAddress(host, helper.getXferPort() + agentPortOffset);
  }

  /** Bytes per slice of a repair chain ({@code ecrepair.datanode.pipeline.slice.kb}). */
  int pipelineSliceBytes() {
    return pipelineSliceBytes;
  }

  /** Whether single Clay and Butterfly losses run parallel plans across the agents (needs the agents). */
  boolean parallel() {
    return parallel && agentPortOffset > 0;
  }

  /** Whether a DataNode's first task of a recovery runs centrally ({@link DataNodeKeys#CENTRAL_SHARE_KEY}). */
  boolean centralShare() {
    return centralShare;
  }

  /** Bytes of each sub-chunk per slice of a parallel repair. */
  int planPieceBytes() {
    return planPieceBytes;
  }

  /**
   * Bytes this DataNode's repairs still expect to receive: what its downlink has yet to carry
   * for them. Its agent answers load probes with it; tasks choose plans with it.
   */
  @Override
  public java.util.concurrent.atomic.AtomicLong inbound() {
    return inbound;
  }

  @Override
  public long plannedInbound() {
    return planned.othersThenAdd(0, System.currentTimeMillis());
  }

  /** A task of this DataNode chose a plan that brings it {@code bytes}. */
  void planned(long bytes) {
    planned.othersThenAdd(Math.min(bytes, io.ecrepair.hdfs.agent.LoadIntents.MAX_BYTES), System.currentTimeMillis());
  }

  /** Reconstruction tasks handed to this DataNode and not yet ended. */
  java.util.concurrent.atomic.AtomicInteger tasks() {
    return tasks;
  }

  /** This DataNode's tasks running centrally as its share of a recovery. */
  java.util.concurrent.atomic.AtomicInteger centralShares() {
    return centralShares;
  }

  /** The lock a task holds from weighing its plans to announcing its choice. */
  java.util.concurrent.locks.ReentrantLock choosing() {
    return choosing;
  }

  /** The distributed repairs this DataNode takes part in, coordinator or helper. */
  @Override
  public PlanSessions sessions() {
    return sessions;
  }

  DataChecksum defaultChecksum() {
    DataChecksum.Type type = DataChecksum.Type.valueOf(conf.get(DFSConfigKeys.DFS_CHECKSUM_TYPE_KEY,
        DFSConfigKeys.DFS_CHECKSUM_TYPE_DEFAULT));
    return DataChecksum.newDataChecksum(type, conf.getInt(DFSConfigKeys.DFS_BYTES_PER_CHECKSUM_KEY,
        DFSConfigKeys.DFS_BYTES_PER_CHECKSUM_DEFAULT));
  }

  public void shutdown() {
    readPool.shutdownNow();
    taskThreads.shutdownNow();
  }
}
