package io.ecrepair.hadooptests;

import org.apache.hadoop.hdfs.TestFileChecksum;
import org.junit.After;

/**
 * Hadoop 3.3.6's TestFileChecksum on LRC-L2-4-3-64k: file checksums, whole and of ranges, in MD5MD5CRC
 * mode, with DataNodes holding blocks of the file stopped, equal the healthy file's.
 */
public class TestFileChecksumOnLrc extends TestFileChecksum {
  static {
    DefaultPolicyOverride.install(TestPolicies.named(TestPolicies.LRC));
  }

  @After
  public void ranOnOurPolicy() {
    DefaultPolicyOverride.assertUsedBy(TestFileChecksum.class, this, "ecPolicy");
  }
}
