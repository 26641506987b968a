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
 * {@code bench degraded-read}: reading the cells of a lost internal block on an in-process HDFS,
 * our policies through the client FileSystem beside HDFS's own client on RS with the same (k, m).
 * Each policy writes one full block group; one internal data block (0 by default) is read once
 * while readable and once right after its DataNode stopped. The NameNode schedules no reconstruction
 * here, so every degraded read really is one.
 */
public final class DegradedReadBenchmark {
  /** Our policy and the RS policy of the same (k, m) that stock HDFS reads. */
  public record Pair(String policy, String baseline) {}

  /** One policy's healthy and degraded reads of block 0. */
  public record Point(String policy, ErasureCodingPolicy hdfsPolicy, MiniClusterRepairs.DegradedRead read) {}

  /** Ours against its baseline: degraded throughput ratio and bytes fetched ratio. */
  public record Comparison(String policy, String baseline, double speedup, double fetchedRatio) {}

  public static final List<Pair> DEFAULT_PAIRS = List.of(
      new Pair("CLAY-10-4-1024k", "RS-10-4-1024k"),
      new Pair("LRC-L2-12-4-1024k", "RS-12-4-1024k"),
      new Pair("BUTTERFLY-6-2-1024k", "RS-6-2-1024k"));

  private final List<Pair> pairs;
  private final int cellsPerBlock;
  private final int lostIndex;
  private final Consumer<String> progress;

  public DegradedReadBenchmark(List<Pair> pairs, int cellsPerBlock, int lostIndex, Consumer<String> progress) {
    if (cellsPerBlock < 1 || cellsPerBlock > 256) {
      throw new IllegalArgumentException("--cells-per-block must be between 1 and 256");
    }
    for (Pair p : pairs) {
      for (String name : List.of(p.policy(), p.baseline())) {
        if (lostIndex < 0 || lostIndex >= ShippedPolicies.byName(name).getNumDataUnits()) {
          throw new IllegalArgumentException("--lost " + lostIndex + " is not a data block of " + name);
        }
      }
    }
    this.lostIndex = lostIndex;
    this.pairs = pairs;
    this.cellsPerBlock = cellsPerBlock;
    this.progress = progress;
  }

  public int cellsPerBlock() {
    return cellsPerBlock;
  }

  public int lostIndex() {
    return lostIndex;
  }

  /** Runs every policy once, ours then its baseline; keyed by policy name in that order. */
  public Map<String, Point> run() throws Exception {
    List<String> names = new ArrayList<>();
    for (Pair p : pairs) {
      names.add(p.policy());
      names.add(p.baseline());
    }
    List<ErasureCodingPolicy> policies = ShippedPolicies.distinctByName(names);
    int dataNodes = ShippedPolicies.dataNodesFor(policies);
    Configuration noReconstruction = new Configuration(false);
    noReconstruction.setInt(DFSConfigKeys.DFS_NAMENODE_REDUNDANCY_INTERVAL_SECONDS_KEY, 3600);
    Map<String, Point> points = new LinkedHashMap<>();
    try (MiniClusterRepairs cluster = new MiniClusterRepairs(dataNodes, noReconstruction, progress)) {
      long seed = 1;
      for (ErasureCodingPolicy p : policies) {
        ErasureCodingPolicy enabled = cluster.enable(p);
        long blockSize = (long) p.getCellSize() * cellsPerBlock;
        long fileLength = p.getNumDataUnits() * blockSize;
        boolean baseline = pairs.stream().anyMatch(x -> x.baseline().equals(p.getName()));
        points.put(p.getName(), new Point(p.getName(), enabled,
            cluster.degradedRead(enabled, blockSize, fileLength, lostIndex, seed++, baseline, 120_000)));
      }
    }
    return points;
  }

  /**
   * The least a degraded read served by {@code strategy} must fetch per byte it returns: the
   * finished cells where the helpers' agents rebuild them ({@code pararc}, {@code pipeline}),
   * else the code's cheapest repair read of the block ({@code fetch}: our client reading the
   * read set) or k blocks ({@code stock}: HDFS's decoder).
   */
  public static double fetchFloor(String policy, int lostIndex, String strategy) {
    return switch (strategy) {
      case "pararc", "pipeline" -> 1.0;
      case "stock" -> io.ecrepair.bench.cluster.RepairTheory.stockBlocksRead(policy);
      default -> io.ecrepair.bench.cluster.RepairTheory.blocksRead(policy, lostIndex);
    };
  }

  public List<Comparison> compare(Map<String, Point> points) {
    List<Comparison> out = new ArrayList<>();
    for (Pair p : pairs) {
      MiniClusterRepairs.DegradedRead ours = points.get(p.policy()).read();
      MiniClusterRepairs.DegradedRead base = points.get(p.baseline()).read();
      out.add(new Comparison(p.policy(), p.baseline(), ours.degraded().mbPerSec() / base.degraded().mbPerSec(),
          ours.degraded().fetchedPerReturned() / base.degraded().fetchedPerReturned()));
    }
    return out;
  }
}
