package io.ecrepair.hadooptests;

import org.apache.hadoop.hdfs.TestDFSStripedInputStream;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.junit.Test;

/** Hadoop 3.3.6's TestDFSStripedInputStream on LRC-L2-4-3-64k (HDFS's own striped stream decodes LRC). */
public class TestDFSStripedInputStreamOnLrc extends TestDFSStripedInputStream {
  @Override
  public ErasureCodingPolicy getEcPolicy() {
    return TestPolicies.named(TestPolicies.LRC);
  }

  @Override
  @Test
  public void testPreadWithDNFailure() {
    Unfit.skip(Unfit.LRC_FIRST_K);
  }

  @Override
  @Test
  public void testStatefulReadWithDNFailure() {
    Unfit.skip(Unfit.LRC_FIRST_K);
  }

  @Override
  @Test
  public void testReadWhenLastIncompleteCellComeInToDecodeAlignedStripe() {
    Unfit.skip(Unfit.SIMULATED_NO_CHECKSUMS);
  }
}
