package io.ecrepair.bench;

import io.ecrepair.harness.MiniClusterRepairs;
import io.ecrepair.harness.ShippedPolicies;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;

/**
 * {@code bench reconstruction}: NameNode-driven rebuilding of one internal block on an
 * in-process HDFS, our policies through the DataNode plugin beside RS through HDFS's own
 * reconstruction, every repair under the same {@code dfs.datanode.ec.reconstruct.read.bandwidthPerSec}
 * so that what a repair reads, not this machine's CPU, sets its time. Each policy writes one
 * full block group and loses internal block 0 (a data block) with its DataNode.
 *
 * <p>Warm-up rounds first repair every policy once, unmeasured: a DataNode that has run for a
 * while serves reads with compiled code, while a fresh JVM interprets its read path (perf on
 * this machine: the C2 compiler and the interpreter dominate a first repair that makes
 * thousands of small block reads). Without warm-up the first policy measured pays for it.
 */
public final class ReconstructionBenchmark {
  /** Our policy and the RS policy stock HDFS rebuilds beside it. */
  public record Pair(String policy, String baseline) {}

  /**
   * HDFS's read throttle ({@code DataTransferThrottler}) lets its first period's bytes through
   * at once: 500 ms of the rate.
   */
  public static final double THROTTLE_PERIOD_SECONDS = 0.5;

  /** One timed repair; {@code route} as the task reported it ({@code hdfs}, {@code central}, {@code parallel}, ...). */
  public record Point(String policy, String engine, int lostIndex, long bytesRead, long blockBytes, double seconds,
                      boolean verified, String route) {
    public double blocksRead() {
      return (double) bytesRead / blockBytes;
    }

    /** MB (10^6 bytes) of rebuilt block per second. */
    public double mbPerSec() {
      return blockBytes / seconds / 1e6;
    }
  }

  /** Ours against its baseline: how much sooner, and how many times fewer bytes read. */
  public record Comparison(String policy, String baseline, double speedup, double readRatio) {}

  public static final List<Pair> DEFAULT_PAIRS = List.of(
      new Pair("CLAY-10-4-1024k", "RS-10-4-1024k"),
      new Pair("LRC-L2-12-4-1024k", "RS-12-4-1024k"));

  private final List<Pair> pairs;
  private final int cellsPerBlock;
  private final long readBandwidth;
  private final int warmupRounds;
  private final Consumer<String> progress;

  public ReconstructionBenchmark(List<Pair> pairs, int cellsPerBlock, long readBandwidth, int warmupRounds,
                                 Consumer<String> progress) {
    if (cellsPerBlock < 1 || cellsPerBlock > 256) {
      throw new IllegalArgumentException("--cells-per-block must be between 1 and 256");
    }
    if (readBandwidth < 64 * 1024) {
      throw new IllegalArgumentException("--read-bandwidth must be at least 65536 bytes/s");
    }
    this.pairs = pairs;
    this.cellsPerBlock = cellsPerBlock;
    if (warmupRounds < 0 || warmupRounds > 10) {
      throw new IllegalArgumentException("--warmup must be between 0 and 10");
    }
    this.readBandwidth = readBandwidth;
    this.warmupRounds = warmupRounds;
    this.progress = progress;
  }

  public long readBandwidth() {
    return readBandwidth;
  }

  public int cellsPerBlock() {
    return cellsPerBlock;
  }

  public int warmupRounds() {
    return warmupRounds;
  }

  /** Runs every policy once, in order (ours, then its baseline), after the warm-up rounds. */
  public Map<String, Point> run() throws Exception {
    List<String> names = new ArrayList<>();
    for (Pair p : pairs) {
      names.add(p.policy());
      names.add(p.baseline());
    }
    List<ErasureCodingPolicy> policies = ShippedPolicies.distinctByName(names);
    int dataNodes = ShippedPolicies.dataNodesFor(policies);
    Configuration conf = new Configuration(false);
    conf.setLong(DFSConfigKeys.DFS_DATANODE_EC_RECONSTRUCT_READ_BANDWIDTHPERSEC_KEY, readBandwidth);
    Map<String, Point> points = new LinkedHashMap<>();
    try (MiniClusterRepairs cluster = new MiniClusterRepairs(dataNodes, conf, progress)) {
      List<ErasureCodingPolicy> enabled = new ArrayList<>();
      for (ErasureCodingPolicy p : policies) {
        enabled.add(cluster.enable(p));
      }
      long seed = 11;
      for (int round = 1; round <= warmupRounds; round++) {
        for (ErasureCodingPolicy p : enabled) {
          progress.accept(String.format(java.util.Locale.ROOT, "warm-up %d/%d: %s", round, warmupRounds, p.getName()));
          MiniClusterRepairs.PolicyRun run = repairBlockZero(cluster, p, seed++);
          if (!blockZero(run, p).verified() || !run.fileVerified()) {
            throw new IllegalStateException("warm-up: " + p.getName() + ": the rebuilt block or the file did not verify");
          }
        }
      }
      for (ErasureCodingPolicy p : enabled) {
        MiniClusterRepairs.PolicyRun run = repairBlockZero(cluster, p, seed++);
        MiniClusterRepairs.Repair r = blockZero(run, p);
        points.put(p.getName(), new Point(p.getName(), r.engine(), 0, r.bytesRead(), r.blockBytes(), r.seconds(),
            r.verified() && run.fileVerified(), r.route()));
        progress.accept(String.format(java.util.Locale.ROOT, "%s: block 0 rebuilt by %s in %.3f s reading %.2f blocks",
            p.getName(), r.engine(), r.seconds(), r.blocksRead()));
      }
    }
    return points;
  }

  /** Writes one full block group under {@code p}, loses block 0 with its DataNode, waits for the repair. */
  private MiniClusterRepairs.PolicyRun repairBlockZero(MiniClusterRepairs cluster, ErasureCodingPolicy p, long seed)
      throws Exception {
    long blockSize = (long) p.getCellSize() * cellsPerBlock;
    return cluster.run(p, blockSize, p.getNumDataUnits() * blockSize, 0, seed, 600_000);
  }

  private static MiniClusterRepairs.Repair blockZero(MiniClusterRepairs.PolicyRun run, ErasureCodingPolicy p) {
    return run.repairs().stream().filter(x -> x.group() == 0 && x.lostIndex() == 0).findFirst()
        .orElseThrow(() -> new IllegalStateException(p.getName() + ": no repair of block 0 recorded"));
  }

  public List<Comparison> compare(Map<String, Point> points) {
    List<Comparison> out = new ArrayList<>();
    for (Pair p : pairs) {
      Point ours = points.get(p.policy());
      Point base = points.get(p.baseline());
      out.add(new Comparison(p.policy(), p.baseline(), base.seconds() / ours.seconds(),
          base.blocksRead() / ours.blocksRead()));
    }
    return out;
  }

  /**
   * The least time the read limit allows: what the code's cheapest repair reads of the lost
   * block (k blocks for HDFS's own reconstruction), through the rebuilding DataNode's throttle,
   * less the throttle's free first period. NaN for chains and parallel plans, whose values the
   * limit governs on every node they arrive at: their least time depends on the plan.
   */
  public static double floorSeconds(Point p, long readBandwidth) {
    double blocks;
    if (p.route().equals("hdfs")) {
      blocks = io.ecrepair.bench.cluster.RepairTheory.stockBlocksRead(p.policy());
    } else if (p.route().equals("central")) {
      blocks = io.ecrepair.bench.cluster.RepairTheory.blocksRead(p.policy(), p.lostIndex());
    } else {
      return Double.NaN;
    }
    return Math.max(0, blocks * p.blockBytes() / readBandwidth - THROTTLE_PERIOD_SECONDS);
  }
}
