package io.ecrepair.hadooptests;

import org.apache.hadoop.hdfs.TestReconstructStripedFile;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.junit.Test;

/** Hadoop 3.3.6's TestReconstructStripedFile on CLAY-4-2-64k, the DataNodes running the plugin and its agents. */
public class TestReconstructStripedFileOnClay extends TestReconstructStripedFile {
  @Override
  public ErasureCodingPolicy getEcPolicy() {
    return TestPolicies.named(TestPolicies.CLAY);
  }

  @Override
  @Test
  public void testTimeoutReadBlockInReconstruction() {
    Unfit.skip(Unfit.STOCK_READER_HOOKS);
  }

  @Override
  @Test
  public void testAbnormallyCloseDoesNotWriteBufferAgain() {
    Unfit.skip(Unfit.STOCK_READER_HOOKS);
  }

  @Override
  @Test
  public void testRecoverAllParityBlocks() {
    Unfit.skip(Unfit.CORRUPTION_FOUND_BY_READING);
  }

  @Override
  @Test
  public void testRecoverAllDataBlocks() {
    Unfit.skip(Unfit.CORRUPTION_FOUND_BY_READING);
  }

  @Override
  @Test
  public void testRecoverAllDataBlocks1() {
    Unfit.skip(Unfit.CORRUPTION_FOUND_BY_READING);
  }

  @Override
  @Test
  public void testRecoverAnyBlocks() {
    Unfit.skip(Unfit.CORRUPTION_FOUND_BY_READING);
  }

  @Override
  @Test
  public void testRecoverAnyBlocks1() {
    Unfit.skip(Unfit.CORRUPTION_FOUND_BY_READING);
  }
}
