package io.ecrepair.hadooptests;

import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;

/**
 * Hadoop 3.3.6's TestReconstructStripedFile on LRC-L2-4-3-64k, the DataNodes running the plugin
 * and its agents (repair chains); the same methods as on Clay do not fit, for the same reasons.
 */
public class TestReconstructStripedFileOnLrc extends TestReconstructStripedFileOnClay {
  @Override
  public ErasureCodingPolicy getEcPolicy() {
    return TestPolicies.named(TestPolicies.LRC);
  }
}
