package io.ecrepair.bench.cluster;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.codes.RepairableCode;
import io.ecrepair.ecdag.Ecdag;
import io.ecrepair.gf.RegionCoders;
import io.ecrepair.layout.Policy;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * What a code says one lost internal block costs to rebuild, in blocks read over the network:
 * the distinct sub-chunks its cheapest repair graph reads, over alpha. This is the centralized
 * repair's bandwidth and, since everything flows to the rebuilding node, its maximum load too.
 * Stock HDFS reconstruction (any RS, or a code the plugin does not rebuild) reads k blocks.
 */
public final class RepairTheory {
  private RepairTheory() {}

  /** Blocks read to rebuild internal block {@code lost} of {@code policy} with the code's best repair. */
  public static double blocksRead(String policy, int lost) {
    CodeSpec spec = Policy.parse(policy).code();
    if (lost < 0 || lost >= spec.n()) {
      throw new IllegalArgumentException(policy + " has no internal block " + lost);
    }
    RepairableCode code = spec.create(RegionCoders.java());
    int[] available = IntStream.range(0, spec.n()).filter(i -> i != lost).toArray();
    Ecdag graph = code.repairGraph(new int[] {lost}, available);
    Set<Long> read = new HashSet<>();
    for (Ecdag.Vertex v : graph.leaves()) {
      read.add(((long) v.block() << 32) | v.subchunk());
    }
    return (double) read.size() / spec.subPacketization();
  }

  /**
   * Blocks moved between nodes to rebuild internal block {@code lost} with the code's parallel
   * plans (their mean repair bandwidth: a task runs one of them, chosen by load, and they differ
   * by at most 10%), or the central repair's when no plan is stored.
   */
  public static double parallelBlocks(String policy, int lost) {
    CodeSpec spec = Policy.parse(policy).code();
    return io.ecrepair.hdfs.RepairCatalog.parallelPlans(spec, lost).stream()
        .mapToDouble(p -> (double) p.traffic().bandwidth() / p.graph().subchunkCount())
        .average().orElseGet(() -> blocksRead(policy, lost));
  }

  /** What HDFS's own reconstruction reads for any lost block: k whole blocks. */
  public static double stockBlocksRead(String policy) {
    return Policy.parse(policy).code().k();
  }
}
