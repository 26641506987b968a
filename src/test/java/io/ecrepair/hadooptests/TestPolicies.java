package io.ecrepair.hadooptests;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.util.ECPolicyLoader;

/** The small-cell policies of ec-repair-test-policies.xml (on this execution's classpath). */
final class TestPolicies {
  static final String CLAY = "CLAY-4-2-64k";
  static final String LRC = "LRC-L2-4-3-64k";
  static final String BUTTERFLY = "BUTTERFLY-4-2-64k";

  private TestPolicies() {}

  static List<ErasureCodingPolicy> all() {
    try {
      Path file = Path.of(TestPolicies.class.getClassLoader().getResource("ec-repair-test-policies.xml").toURI());
      return new ECPolicyLoader().loadPolicy(file.toString());
    } catch (URISyntaxException | NullPointerException e) {
      throw new IllegalStateException("ec-repair-test-policies.xml is not on the classpath (src/test/hadoop-site)", e);
    }
  }

  static ErasureCodingPolicy named(String name) {
    return all().stream().filter(p -> p.getName().equals(name)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no test policy " + name + " in " + all()));
  }
}
