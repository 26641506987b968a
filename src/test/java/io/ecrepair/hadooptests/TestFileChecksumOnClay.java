package io.ecrepair.hadooptests;

import org.apache.hadoop.hdfs.TestFileChecksum;
import org.junit.After;

/**
 * Hadoop 3.3.6's TestFileChecksum on CLAY-4-2-64k: file checksums, whole and of ranges, with DataNodes
 * holding blocks of the file stopped, equal the healthy file's.
 */
public class TestFileChecksumOnClay extends TestFileChecksum {
  static {
    DefaultPolicyOverride.install(TestPolicies.named(TestPolicies.CLAY));
  }

  @After
  public void ranOnOurPolicy() {
    DefaultPolicyOverride.assertUsedBy(TestFileChecksum.class, this, "ecPolicy");
  }
}
