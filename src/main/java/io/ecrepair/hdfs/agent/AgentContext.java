package io.ecrepair.hdfs.agent;

import io.ecrepair.gf.BufferPool;
import io.ecrepair.gf.RegionCoder;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;

/**
 * What a repair agent, and a task talking to agents, needs of its DataNode: the DataNode and
 * its configuration, shared threads and buffers, and the load it reports. The task side's
 * context implements it, so the agent knows nothing of reconstruction tasks.
 */
public interface AgentContext {
  DataNode datanode();

  Configuration conf();

  /** The DataNode's transfer address, naming it in logs and reports. */
  String name();

  /** Threads for the reconstruction tasks' blocking work (helper reads, streams, probes); bounded. */
  ExecutorService readPool();

  /** Buffers the DataNode's repairs reuse. */
  BufferPool buffers();

  /** Arrays the value frames of distributed repairs reuse. */
  FrameBuffers frames();

  RegionCoder coder();

  /** A participant that delivered nothing this long is given up. */
  long stallMillis();

  /** The receive buffer of a helper connection, bytes; 0 = autotuned. */
  int helperReceiveBufferBytes();

  /** Parts of clients' degraded reads the agent runs at once; one more is refused. */
  int clientPartsLimit();

  /** The DataNode's budget for repair traffic in and out, shared by every repair route. */
  io.ecrepair.hdfs.transfer.RepairBudget budget();

  /** The bounds the agent holds every request to: memory, a part's time, cells, hops. */
  AgentLimits limits();

  /** Where {@code helper}'s repair agent listens. */
  InetSocketAddress agentAddress(DatanodeInfo helper);

  /**
   * Bytes this DataNode's repairs (its tasks and the parts its agent runs) still expect to
   * receive: what its downlink has yet to carry for them. The agent answers load probes with it.
   */
  AtomicLong inbound();

  /**
   * Bytes this DataNode's own reconstruction tasks chose to receive in the last moment and may not
   * count in {@link #inbound()} yet: a task announces its choice so that the next one weighs it.
   */
  long plannedInbound();

  /** The distributed repairs this DataNode takes part in, coordinator or helper. */
  PlanSessions sessions();

  /**
   * Tells the NameNode that {@code holder}'s replica of {@code block} failed its stored
   * checksums, as HDFS's own readers do (it then rebuilds that replica), and counts it.
   */
  void reportCorrupt(ExtendedBlock block, DatanodeInfo holder);
}
