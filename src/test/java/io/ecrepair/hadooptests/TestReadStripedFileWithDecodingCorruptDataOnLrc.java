package io.ecrepair.hadooptests;

import java.io.IOException;
import java.util.Collection;
import org.apache.hadoop.hdfs.TestReadStripedFileWithDecodingCorruptData;
import org.junit.After;
import org.junit.Test;
import org.junit.runners.Parameterized;

/**
 * Hadoop 3.3.6's TestReadStripedFileWithDecodingCorruptData on LRC-L2-4-3-64k: reads around corrupt
 * replicas return the written bytes, and the corrupt replicas are reported.
 */
public class TestReadStripedFileWithDecodingCorruptDataOnLrc extends TestReadStripedFileWithDecodingCorruptData {
  static {
    DefaultPolicyOverride.install(TestPolicies.named(TestPolicies.LRC));
  }

  /** LRC(4,2,1) survives any two losses. */
  private static final int GUARANTEED = 2;
  private final int losses;

  public TestReadStripedFileWithDecodingCorruptDataOnLrc(int fileLength, int dataDelNum, int parityDelNum) {
    super(fileLength, dataDelNum, parityDelNum);
    this.losses = dataDelNum + parityDelNum;
  }

  @Override
  @Test
  public void testReadCorruptedData() throws IOException {
    if (losses > GUARANTEED) {
      Unfit.skip(Unfit.LRC_BEYOND_GUARANTEE);
    }
    super.testReadCorruptedData();
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
