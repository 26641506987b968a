package io.ecrepair.hadooptests;

import org.apache.hadoop.hdfs.TestDFSStripedOutputStreamWithFailure;
import org.apache.hadoop.io.erasurecode.ECSchema;
import org.junit.Test;

/** Hadoop 3.3.6's TestDFSStripedOutputStreamWithFailure on Clay(4,2): DataNodes failing while a file is written. */
public class TestDFSStripedOutputStreamWithFailureOnClay extends TestDFSStripedOutputStreamWithFailure {
  @Override
  public ECSchema getEcSchema() {
    return TestPolicies.named(TestPolicies.CLAY).getSchema();
  }

  @Override
  @Test
  public void testMultipleDatanodeFailure56() {
    Unfit.skip(Unfit.WHOLE_BLOCK_PARITY);
  }

  @Override
  @Test
  public void testBlockTokenExpired() {
    Unfit.skip(Unfit.WHOLE_BLOCK_PARITY);
  }

  @Override
  @Test
  public void testCloseWithExceptionsInStreamer() {
    Unfit.skip(Unfit.WHOLE_BLOCK_PARITY);
  }
}
