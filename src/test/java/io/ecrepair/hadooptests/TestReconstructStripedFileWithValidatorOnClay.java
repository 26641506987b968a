package io.ecrepair.hadooptests;

import org.apache.hadoop.hdfs.TestReconstructStripedFileWithValidator;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.junit.Test;

/**
 * Hadoop 3.3.6's TestReconstructStripedFileWithValidator on CLAY-4-2-64k: with
 * dfs.datanode.ec.reconstruction.validation the plugin recomputes every rebuilt cell a second
 * way, and a decoded cell corrupted through HDFS's badDecoding hook fails that task, counted in
 * the DataNode's ECInvalidReconstructionTasks, and the next task rebuilds the block right.
 */
public class TestReconstructStripedFileWithValidatorOnClay extends TestReconstructStripedFileWithValidator {
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

  @Override
  @Test
  public void testValidatorWithBadDecoding() {
    Unfit.skip(Unfit.CORRUPTION_FOUND_BY_READING);
  }
}
