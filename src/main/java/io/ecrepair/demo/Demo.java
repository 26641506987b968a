package io.ecrepair.demo;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.harness.MiniClusterRepairs;
import io.ecrepair.harness.ShippedPolicies;
import io.ecrepair.hdfs.task.DataNodeKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;

/**
 * {@code ec-repair demo}: the shipped policies on an in-process HDFS with the DataNode plugin.
 * For each policy one file (a full block group and one of half its rows), the DataNode holding its
 * internal block 0 stopped, the NameNode-driven reconstruction waited for and every internal
 * block compared with the original, the file read back; per rebuilt block, what the repair
 * read and how long it took. Our policies are rebuilt by the plugin; RS by HDFS itself. Before
 * the DataNode stops and right after (before the reconstruction), block 0 is read through the
 * client FileSystem: what a degraded read fetches and how fast it is, healthy vs degraded.
 *
 * <p>The DataNodes run their repair agents (on the shipped configuration's port offset), as on
 * an installed cluster: Clay and Butterfly blocks are rebuilt by parallel plans across the
 * helpers, LRC blocks by chains, and the client has the agents rebuild the cells it reads.
 * Without agents every repair and degraded read is central (the rebuilding node or the client
 * reads the code's read set), as on a cluster that leaves the agents off.
 */
public final class Demo {
  private final List<ErasureCodingPolicy> policies;
  private final int cellsPerBlock;
  private final long timeoutMs;
  private final Consumer<String> progress;
  private final boolean agents;

  /** The agents' port offset on the demo's DataNodes: {@code conf/hdfs-site.ec-repair.xml}'s. */
  static final int AGENT_PORT_OFFSET = 10;

  public Demo(List<ErasureCodingPolicy> policies, int cellsPerBlock, long timeoutMs, boolean agents,
              Consumer<String> progress) {
    if (policies.isEmpty()) {
      throw new IllegalArgumentException("no policies to run");
    }
    if (cellsPerBlock < 1 || cellsPerBlock > 64) {
      throw new IllegalArgumentException("--cells-per-block must be between 1 and 64");
    }
    for (ErasureCodingPolicy p : policies) {
      new CodeSpec(p.getCodecName().toLowerCase(Locale.ROOT), p.getNumDataUnits(), p.getNumParityUnits());
    }
    this.policies = policies;
    this.cellsPerBlock = cellsPerBlock;
    this.timeoutMs = timeoutMs;
    this.progress = progress;
    this.agents = agents;
  }

  /** DataNodes: the widest policy plus one to host a rebuilt block. */
  public int dataNodes() {
    return ShippedPolicies.dataNodesFor(policies);
  }

  /** The repairs of every policy, then the operator's view of one file per policy with a DataNode down. */
  public record Result(List<MiniClusterRepairs.PolicyRun> runs, MiniClusterRepairs.OperatorView operatorView) {}

  public Result run() throws Exception {
    List<MiniClusterRepairs.PolicyRun> runs = new ArrayList<>();
    Configuration conf = new Configuration(false);
    if (agents) {
      conf.setInt(DataNodeKeys.AGENT_PORT_OFFSET_KEY, AGENT_PORT_OFFSET);
      // Each block is rebuilt while a client reads it degraded, whose bytes on the helpers would make
      // the task take itself for part of a full-node recovery and run centrally as its DataNode's
      // share, or not, by timing alone: the demo shows each code's weighed choice every time.
      conf.setBoolean(DataNodeKeys.CENTRAL_SHARE_KEY, false);
    }
    try (MiniClusterRepairs cluster = new MiniClusterRepairs(dataNodes(), conf, progress)
        .withDegradedReads(true)) {
      long seed = 1;
      List<ErasureCodingPolicy> enabled = new ArrayList<>();
      for (ErasureCodingPolicy p : policies) {
        enabled.add(cluster.enable(p));
        long blockSize = (long) p.getCellSize() * cellsPerBlock;
        // A full group and a second one of half the rows: every rebuilt block is made of whole cells.
        long fileLength = p.getNumDataUnits() * (blockSize + (long) p.getCellSize() * Math.max(1, cellsPerBlock / 2));
        runs.add(cluster.run(enabled.get(enabled.size() - 1), blockSize, fileLength, 0, seed++, timeoutMs));
      }
      return new Result(runs, cluster.operatorView(enabled, seed));
    }
  }
}
