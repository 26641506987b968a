package io.ecrepair.hdfs.task;

import io.ecrepair.hdfs.agent.AgentRangeReader;
import io.ecrepair.hdfs.agent.DataNodeConnector;
import io.ecrepair.hdfs.transfer.BlockRangeReader;
import io.ecrepair.hdfs.transfer.FallbackRangeSource;
import io.ecrepair.hdfs.transfer.RangeListener;
import io.ecrepair.hdfs.transfer.RangeSource;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a task's helper ranges come from: the helper's repair agent when agents run (one
 * request for all of them), else, or when the agent cannot serve them, HDFS's block reads.
 */
final class HelperReaders {
  private static final Logger LOG = LoggerFactory.getLogger(ReconstructionTask.class);

  private final ReconstructionContext ctx;
  private final DataNodeConnector connector;
  private final Object task;

  HelperReaders(ReconstructionContext ctx, DataNodeConnector connector, Object task) {
    this.ctx = ctx;
    this.connector = connector;
    this.task = task;
  }

  RangeSource open(DatanodeInfo source, ExtendedBlock block, RangeListener listener) {
    BlockRangeReader hdfs = new BlockRangeReader(connector, source, block, listener);
    if (ctx.agentPortOffset() == 0) {
      return hdfs;
    }
    AgentRangeReader viaAgent = new AgentRangeReader(source, ctx.agentAddress(source), block, connector,
        ctx.datanode().getDnConf().getSocketTimeout(), ctx.readTimeoutMillis(), listener);
    return new FallbackRangeSource(viaAgent, hdfs, e -> LOG.warn(
        "ec-repair: the repair agent of {} did not serve {} of {}: {}; reading it through HDFS", source, block, task,
        e.toString()));
  }
}
