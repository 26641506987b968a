package io.ecrepair.hadooptests;

import java.util.Collection;
import org.apache.hadoop.hdfs.TestReadStripedFileWithDecodingCorruptData;
import org.junit.After;
import org.junit.runners.Parameterized;

/**
 * Hadoop 3.3.6's TestReadStripedFileWithDecodingCorruptData on CLAY-4-2-64k: reads around corrupt
 * replicas return the written bytes, and the corrupt replicas are reported.
 */
public class TestReadStripedFileWithDecodingCorruptDataOnClay extends TestReadStripedFileWithDecodingCorruptData {
  static {
    DefaultPolicyOverride.install(TestPolicies.named(TestPolicies.CLAY));
  }

  public TestReadStripedFileWithDecodingCorruptDataOnClay(int fileLength, int dataDelNum, int parityDelNum) {
    super(fileLength, dataDelNum, parityDelNum);
  }

  /** Hides the parent's, so that the override is installed before Hadoop's helper sizes its files. */
  @Parameterized.Parameters
  public static Collection<Object[]> getParameters() {
    return TestReadStripedFileWithDecodingCorruptData.getParameters();
  }

  @After
  public void ranOnOurPolicy() {
    DefaultPolicyOverride.assertUsedBy(org.apache.hadoop.hdfs.ReadStripedFileWithDecodingHelper.class, null, "EC_POLICY");
  }
}
