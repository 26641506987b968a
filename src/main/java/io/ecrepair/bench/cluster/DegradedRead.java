package io.ecrepair.bench.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ecrepair.bench.cluster.ClusterHandle.Node;
import io.ecrepair.harness.DegradedReadProbe;
import io.ecrepair.harness.PatternData;
import io.ecrepair.hdfs.CostKeys;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;

/**
 * Degraded read: one full block group; the DataNode of data block 0 is made unreachable from
 * the client namespace; a probe JVM there reads the whole of data block 1 (healthy) and then of
 * block 0 (degraded), each cell by cell, with the stock client or ours; or, on a cluster with
 * slow DataNodes, the whole group row by row (reads that span every block, the lost one too).
 */
public final class DegradedRead {
  /**
   * One probe run.
   *
   * @param blocksRead data blocks the degraded read returned: 1 (the lost block), or k for a
   *     read of the whole group
   * @param costModel whether the client weighed measured costs of the DataNodes
   */
  public record Result(String scenario, String policy, String client, String fileSystem, long blockBytes,
                       double healthySeconds, long healthyRxBytes, double degradedSeconds, long degradedRxBytes,
                       boolean verified, double theoryBlocks, int blocksRead, boolean costModel, String strategy,
                       double healthyClientCpu, double degradedClientCpu, SmallReads small) {
    /** Small random reads' latency inside the healthy and the lost block, ms; null where none ran. */
    public record SmallReads(double healthyP50, double healthyP99, double degradedP50, double degradedP99,
                             boolean verified) {}

    public Result(String scenario, String policy, String client, String fileSystem, long blockBytes,
                  double healthySeconds, long healthyRxBytes, double degradedSeconds, long degradedRxBytes,
                  boolean verified, double theoryBlocks, int blocksRead, boolean costModel, String strategy) {
      this(scenario, policy, client, fileSystem, blockBytes, healthySeconds, healthyRxBytes, degradedSeconds,
          degradedRxBytes, verified, theoryBlocks, blocksRead, costModel, strategy, Double.NaN, Double.NaN, null);
    }

    public Result(String scenario, String policy, String client, String fileSystem, long blockBytes,
                  double healthySeconds, long healthyRxBytes, double degradedSeconds, long degradedRxBytes,
                  boolean verified, double theoryBlocks, int blocksRead, boolean costModel) {
      this(scenario, policy, client, fileSystem, blockBytes, healthySeconds, healthyRxBytes, degradedSeconds,
          degradedRxBytes, verified, theoryBlocks, blocksRead, costModel, client.equals("stock") ? "stock" : "fetch");
    }

    public Result(String scenario, String policy, String client, String fileSystem, long blockBytes,
                  double healthySeconds, long healthyRxBytes, double degradedSeconds, long degradedRxBytes,
                  boolean verified, double theoryBlocks) {
      this(scenario, policy, client, fileSystem, blockBytes, healthySeconds, healthyRxBytes, degradedSeconds,
          degradedRxBytes, verified, theoryBlocks, 1, false);
    }

    /** The degraded read's time over that of as many healthy blocks. */
    public double slowdown() {
      return degradedSeconds / (healthySeconds * blocksRead);
    }

    /** Bytes the client's interface received per block returned, in blocks. */
    public double fetchedBlocks() {
      return (double) degradedRxBytes / blockBytes / blocksRead;
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  private final ClusterHandle cluster;
  private final DistributedFileSystem fs;
  private final Consumer<String> progress;
  private final long timeoutMs;

  public DegradedRead(ClusterHandle cluster, DistributedFileSystem fs, Consumer<String> progress, long timeoutMs) {
    this.cluster = cluster;
    this.fs = fs;
    this.progress = progress;
    this.timeoutMs = timeoutMs;
  }

  /** Whether our client FileSystem is on this build's classpath. */
  public static boolean ourClientPresent() {
    try {
      Class.forName(DegradedReadProbe.ECREPAIR_FS, false, DegradedRead.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /** Writes the file (once per policy); returns the DataNode holding data block 0. */
  public Node prepare(String scenario, ErasureCodingPolicy policy, long blockSize, long seed)
      throws IOException, InterruptedException {
    Path file = file(scenario);
    progress.accept(scenario + ": writing one block group for the degraded reads");
    BenchFiles.write(fs, file, policy, blockSize, (long) policy.getNumDataUnits() * blockSize, new PatternData(seed),
        x -> { });
    LocatedStripedBlock group = BenchFiles.awaitAllBlocks(fs, file, timeoutMs).get(0);
    for (int j = 0; j < group.getBlockIndices().length; j++) {
      if (group.getBlockIndices()[j] == 0) {
        return cluster.dataNodeAt(group.getLocations()[j].getIpAddr());
      }
    }
    throw new IOException("block 0 of " + file + " has no location");
  }

  /** One probe run with the stock client ({@code ours} false) or hadoop-ec-repair's, without measured costs. */
  public Result run(String scenario, ErasureCodingPolicy policy, long blockSize, long seed, Node lostHolder,
                    boolean ours) throws IOException, InterruptedException {
    return run(scenario, policy, blockSize, seed, lostHolder, ours, false, false);
  }

  /**
   * One probe run; {@code costModel}: the client measures the DataNodes' costs and reads around
   * slow ones ({@value CostKeys#COSTS_MEASURED_KEY}); {@code wholeGroup}: the degraded read is of the
   * whole group, row by row, instead of block 0 alone.
   */
  public Result run(String scenario, ErasureCodingPolicy policy, long blockSize, long seed, Node lostHolder,
                    boolean ours, boolean costModel, boolean wholeGroup) throws IOException, InterruptedException {
    String client = ours ? "ec-repair" : "stock";
    progress.accept(String.format("%s: degraded read of %s (%s unreachable from the client), %s client%s",
        scenario, wholeGroup ? "the whole group" : "block 0", lostHolder.name(), client,
        costModel ? " measuring costs" : ""));
    List<String> args = new ArrayList<>(List.of(cluster.nameNodeUri(), file(scenario).toString(),
        Integer.toString(policy.getNumDataUnits()), Integer.toString(policy.getCellSize()), Long.toString(blockSize),
        "0", "1", Long.toString(seed), client, "--conf", CostKeys.COSTS_MEASURED_KEY + "=" + costModel));
    if (wholeGroup) {
      args.add("--whole-group");
    }
    cluster.reach("client", lostHolder.name(), false);
    String out;
    try {
      out = cluster.java("client", DegradedReadProbe.class.getName(), args);
    } finally {
      cluster.reach("client", lostHolder.name(), true);
    }
    JsonNode j = JSON.readTree(out.strip().substring(out.strip().lastIndexOf('\n') + 1));
    JsonNode h = j.path("healthy");
    JsonNode d = j.path("degraded");
    // A whole-group read returns k blocks and cannot fetch fewer (nor need more: the lost block's
    // repair can read the very cells the read returns), so 1 block per block.
    double theory = wholeGroup ? 1.0 : ours ? RepairTheory.blocksRead(policy.getName(), 0)
        : RepairTheory.stockBlocksRead(policy.getName());
    Result.SmallReads small = small(h, d);
    return new Result(scenario, policy.getName(), client, j.path("fileSystem").asText(), blockSize,
        h.path("seconds").asDouble(), h.path("rxBytes").asLong(), d.path("seconds").asDouble(),
        d.path("rxBytes").asLong(), h.path("verified").asBoolean() && d.path("verified").asBoolean()
            && (small == null || small.verified()), theory,
        wholeGroup ? policy.getNumDataUnits() : 1, costModel,
        DegradedReadProbe.strategy(client.equals("stock"), policy, d.path("agentReads").asLong()),
        cpu(h), cpu(d), small);
  }

  /** The small reads of the healthy and the lost block; null where the probe ran none. */
  private static Result.SmallReads small(JsonNode healthy, JsonNode degraded) {
    JsonNode h = healthy.path("smallReads");
    JsonNode d = degraded.path("smallReads");
    if (h.isMissingNode() || d.isMissingNode()) {
      return null;
    }
    return new Result.SmallReads(h.path("p50Ms").asDouble(), h.path("p99Ms").asDouble(), d.path("p50Ms").asDouble(),
        d.path("p99Ms").asDouble(), h.path("verified").asBoolean() && d.path("verified").asBoolean());
  }

  /** The probe's own CPU seconds for one read; NaN where its JVM did not say. */
  private static double cpu(JsonNode read) {
    JsonNode c = read.path("cpuSeconds");
    return c.isNumber() ? c.asDouble() : Double.NaN;
  }

  /**
   * The single-block race's baseline: seconds to read one healthy internal data block (block 1
   * of a one-group file) into the client namespace, over a link like every DataNode's.
   */
  public double healthyRead(String scenario, ErasureCodingPolicy policy, long blockSize, long seed)
      throws IOException, InterruptedException {
    String name = scenario + "-healthy";
    prepare(name, policy, blockSize, seed);
    try {
      String out = cluster.java("client", DegradedReadProbe.class.getName(), List.of(cluster.nameNodeUri(),
          file(name).toString(), Integer.toString(policy.getNumDataUnits()), Integer.toString(policy.getCellSize()),
          Long.toString(blockSize), "-1", "1", Long.toString(seed), "stock"));
      JsonNode h = JSON.readTree(out.strip().substring(out.strip().lastIndexOf('\n') + 1)).path("healthy");
      if (!h.path("verified").asBoolean()) {
        throw new IOException(name + ": the healthy read returned wrong bytes");
      }
      return h.path("seconds").asDouble();
    } finally {
      cleanup(name);
    }
  }

  public void cleanup(String scenario) throws IOException {
    fs.delete(file(scenario).getParent(), true);
  }

  private static Path file(String scenario) {
    return new Path("/bench/" + Scenario.pathName(scenario) + "-read/file");
  }
}
