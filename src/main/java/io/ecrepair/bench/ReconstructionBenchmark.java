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
  /** Our policy against an RS baseline with the speedup the issue asks for. */
  public record Pair(String policy, String baseline, double required) {}

  /** One timed repair. */
  public record Point(String policy, String engine, int lostIndex, long bytesRead, long blockBytes, double seconds,
                      boolean verified) {
    public double blocksRead() {
      return (double) bytesRead / blockBytes;
    }

    /** MB (10^6 bytes) of rebuilt block per second. */
    public double mbPerSec() {
      return blockBytes / seconds / 1e6;
    }
  }

  /** A pair's outcome. */
  public record Comparison(String policy, String baseline, double speedup, double required, double readRatio) {
    public boolean pass() {
      return speedup >= required;
    }
  }

  public static final List<Pair> DEFAULT_PAIRS = List.of(
      new Pair("CLAY-10-4-1024k", "RS-10-4-1024k", 2.5),
      new Pair("LRC-L2-12-4-1024k", "RS-12-4-1024k", 1.8));

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
            r.verified() && run.fileVerified()));
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
      out.add(new Comparison(p.policy(), p.baseline(), base.seconds() / ours.seconds(), p.required(),
          base.blocksRead() / ours.blocksRead()));
    }
    return out;
  }
}
