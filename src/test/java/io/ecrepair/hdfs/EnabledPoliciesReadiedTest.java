package io.ecrepair.hdfs;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.harness.MiniHdfs;
import io.ecrepair.hdfs.task.DataNodeKeys;
import io.ecrepair.testing.ClusterTest;
import java.nio.file.Path;
import java.util.stream.IntStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.io.erasurecode.ECSchema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The DataNode plugin readies the repairs of the policies the NameNode has enabled before any
 * of their blocks is lost, and leaves the policies that are only added alone.
 */
@ClusterTest
class EnabledPoliciesReadiedTest {
  @TempDir
  Path tmp;

  @Test
  void anEnabledPolicyIsReadiedBeforeItsFirstRepair() throws Exception {
    // Codes no other test uses, so nothing of them is cached before.
    CodeSpec enabled = new CodeSpec("clay", 3, 2);
    CodeSpec added = new CodeSpec("clay", 3, 3);
    assertFalse(RepairCatalog.isReadying(enabled));
    Configuration look = new Configuration(false);
    look.setInt(DataNodeKeys.PREPARE_INTERVAL_SECONDS_KEY, 1);
    try (MiniHdfs hdfs = new MiniHdfs(tmp.toFile(), 1, MiniHdfs.pluginConf(look), x -> { })) {
      hdfs.fileSystem().addErasureCodingPolicies(new ErasureCodingPolicy[] {
          new ErasureCodingPolicy(new ECSchema("clay", 3, 3), 64 * 1024)});
      hdfs.enable(new ErasureCodingPolicy(new ECSchema("clay", 3, 2), 64 * 1024));
      long deadline = System.currentTimeMillis() + 60_000;
      for (int lost = 0; lost < enabled.n(); lost++) {
        int l = lost;
        int[] others = IntStream.range(0, enabled.n()).filter(u -> u != l).toArray();
        while (!RepairCatalog.isCached(enabled, new int[] {lost}, others)) {
          assertTrue(System.currentTimeMillis() < deadline, "the repair of block " + lost + " was not readied in 60 s");
          Thread.sleep(50);
        }
      }
      while (RepairCatalog.centralPlanIfReady(enabled, enabled.n() - 1).isEmpty()) {
        assertTrue(System.currentTimeMillis() < deadline, "the parallel plans were not readied in 60 s");
        Thread.sleep(50);
      }
      assertTrue(RepairCatalog.parallelPlansOfIndex(enabled, 0).size() > 0, "no parallel plan for block 0");
      Thread.sleep(2_000); // two more looks
      assertFalse(RepairCatalog.isReadying(added), "a policy that is not enabled was readied");
      assertFalse(RepairCatalog.isCached(added, new int[] {0}, IntStream.range(1, added.n()).toArray()));
    }
  }
}
