package io.ecrepair.demo;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.layout.Policy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.util.ECPolicyLoader;
import org.apache.hadoop.io.erasurecode.ECSchema;

/**
 * {@code ec-repair demo}: the shipped policies on an in-process HDFS with the DataNode plugin.
 * For each policy one file (a full block group and one of half its rows), the DataNode holding its
 * internal block 0 stopped, the NameNode-driven reconstruction waited for and every internal
 * block compared with the original, the file read back; per rebuilt block, what the repair
 * read and how long it took. Our policies are rebuilt by the plugin; RS by HDFS itself. Before
 * the DataNode stops and right after (before the reconstruction), block 0 is read through the
 * client FileSystem: what a degraded read fetches and how fast it is, healthy vs degraded.
 */
public final class Demo {
  /** Fails with what to do when Hadoop's MiniDFSCluster (test jars) is not on the classpath. */
  public static void requireMiniCluster() {
    try {
      Class.forName("org.apache.hadoop.hdfs.MiniDFSCluster", false, Demo.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      throw new IllegalStateException("this command runs an in-process HDFS and needs the Hadoop test jars bundled "
          + "in hadoop-ec-repair/lib/hadoop: run it with EC_REPAIR_BUNDLED_HADOOP=1");
    }
  }

  /** The shipped policy file: next to the distribution, in the source tree, or here. */
  public static Path defaultPolicyFile() {
    List<Path> candidates = new ArrayList<>();
    String home = System.getProperty("ecrepair.home");
    if (home != null) {
      candidates.add(Path.of(home, "conf", "user_ec_policies.xml"));
      candidates.add(Path.of(home).toAbsolutePath().getParent().resolve("conf").resolve("user_ec_policies.xml"));
    }
    candidates.add(Path.of("conf", "user_ec_policies.xml"));
    for (Path p : candidates) {
      if (Files.isRegularFile(p)) {
        return p.toAbsolutePath();
      }
    }
    throw new IllegalArgumentException("cannot find conf/user_ec_policies.xml (looked at " + candidates
        + "); give --policy-file");
  }

  /** The policies of an HDFS policy file (Hadoop's own loader). */
  public static List<ErasureCodingPolicy> load(Path file) {
    if (!Files.isRegularFile(file)) {
      throw new IllegalArgumentException("no policy file " + file);
    }
    return new ECPolicyLoader().loadPolicy(file.toAbsolutePath().toString());
  }

  /** The policies named, each once, in order of first mention. */
  public static List<ErasureCodingPolicy> distinctByName(List<String> names) {
    List<ErasureCodingPolicy> out = new ArrayList<>();
    for (String name : names) {
      if (out.stream().noneMatch(x -> x.getName().equals(name))) {
        out.add(byName(name));
      }
    }
    return out;
  }

  /** DataNodes for a mini-cluster that rebuilds blocks of every one of {@code policies}: the widest n, plus a spare. */
  public static int dataNodesFor(List<ErasureCodingPolicy> policies) {
    return policies.stream().mapToInt(p -> p.getNumDataUnits() + p.getNumParityUnits()).max().orElse(0) + 1;
  }

  /** A policy from its HDFS name, e.g. CLAY-10-4-1024k (codec, k, m and cell size). */
  public static ErasureCodingPolicy byName(String name) {
    Policy p = Policy.parse(name);
    return new ErasureCodingPolicy(new ECSchema(p.code().codec(), p.code().k(), p.code().m()), p.cellSize());
  }

  private final List<ErasureCodingPolicy> policies;
  private final int cellsPerBlock;
  private final long timeoutMs;
  private final Consumer<String> progress;

  public Demo(List<ErasureCodingPolicy> policies, int cellsPerBlock, long timeoutMs, Consumer<String> progress) {
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
  }

  /** DataNodes: the widest policy plus one to host a rebuilt block. */
  public int dataNodes() {
    return policies.stream().mapToInt(p -> p.getNumDataUnits() + p.getNumParityUnits()).max().orElse(0) + 1;
  }

  /** The repairs of every policy, then the operator's view of one file per policy with a DataNode down. */
  public record Result(List<MiniClusterRepairs.PolicyRun> runs, MiniClusterRepairs.OperatorView operatorView) {}

  public Result run() throws Exception {
    List<MiniClusterRepairs.PolicyRun> runs = new ArrayList<>();
    try (MiniClusterRepairs cluster = new MiniClusterRepairs(dataNodes(), new Configuration(false), progress)
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
