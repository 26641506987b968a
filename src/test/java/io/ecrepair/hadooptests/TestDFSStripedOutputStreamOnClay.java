package io.ecrepair.hadooptests;

import org.apache.hadoop.hdfs.TestDFSStripedOutputStream;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.junit.Test;

/** Hadoop 3.3.6's TestDFSStripedOutputStream on CLAY-4-2-64k: writes through our encoder, read back and checked. */
public class TestDFSStripedOutputStreamOnClay extends TestDFSStripedOutputStream {
  @Override
  public ErasureCodingPolicy getEcPolicy() {
    return TestPolicies.named(TestPolicies.CLAY);
  }

  @Override
  @Test
  public void testFileMoreThanOneStripe1() {
    Unfit.skip(Unfit.WHOLE_BLOCK_PARITY);
  }

  @Override
  @Test
  public void testFileMoreThanOneStripe2() {
    Unfit.skip(Unfit.WHOLE_BLOCK_PARITY);
  }

  @Override
  @Test
  public void testFileMoreThanABlockGroup1() {
    Unfit.skip(Unfit.WHOLE_BLOCK_PARITY);
  }

  @Override
  @Test
  public void testFileMoreThanABlockGroup2() {
    Unfit.skip(Unfit.WHOLE_BLOCK_PARITY);
  }

  @Override
  @Test
  public void testFileMoreThanABlockGroup3() {
    Unfit.skip(Unfit.WHOLE_BLOCK_PARITY);
  }

  @Override
  @Test
  public void testFileFullBlockGroup() {
    Unfit.skip(Unfit.WHOLE_BLOCK_PARITY);
  }

  @Override
  @Test
  public void testFileLessThanFullBlockGroup() {
    Unfit.skip(Unfit.WHOLE_BLOCK_PARITY);
  }
}
