package io.ecrepair.harness;

import io.ecrepair.SystemProperties;
import io.ecrepair.layout.Policy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.util.ECPolicyLoader;
import org.apache.hadoop.io.erasurecode.ECSchema;

/** The policies hadoop-ec-repair ships (conf/user_ec_policies.xml) and HDFS policies by name. */
public final class ShippedPolicies {
  private ShippedPolicies() {}

  /** Fails with what to do when Hadoop's MiniDFSCluster (test jars) is not on the classpath. */
  public static void requireMiniCluster() {
    try {
      Class.forName("org.apache.hadoop.hdfs.MiniDFSCluster", false, ShippedPolicies.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      throw new IllegalStateException("this command runs an in-process HDFS and needs the Hadoop test jars bundled "
          + "in hadoop-ec-repair/lib/hadoop: run it with EC_REPAIR_BUNDLED_HADOOP=1");
    }
  }

  /** The shipped policy file: next to the distribution, in the source tree, or here. */
  public static Path defaultPolicyFile() {
    List<Path> candidates = new ArrayList<>();
    String home = System.getProperty(SystemProperties.HOME_PROPERTY);
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
}
