package io.ecrepair.hadooptests;

import org.apache.hadoop.hdfs.TestDFSStripedInputStream;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.junit.Test;

/** Hadoop 3.3.6's TestDFSStripedInputStream on CLAY-4-2-64k. */
public class TestDFSStripedInputStreamOnClay extends TestDFSStripedInputStream {
  @Override
  public ErasureCodingPolicy getEcPolicy() {
    return TestPolicies.named(TestPolicies.CLAY);
  }

  @Override
  @Test
  public void testPreadWithDNFailure() {
    Unfit.skip(Unfit.STOCK_STREAM_VECTOR);
  }

  @Override
  @Test
  public void testStatefulReadWithDNFailure() {
    Unfit.skip(Unfit.STOCK_STREAM_VECTOR);
  }

  @Override
  @Test
  public void testReadWhenLastIncompleteCellComeInToDecodeAlignedStripe() {
    Unfit.skip(Unfit.SIMULATED_NO_CHECKSUMS);
  }
}
