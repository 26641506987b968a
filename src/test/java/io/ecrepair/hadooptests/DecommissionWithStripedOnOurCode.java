package io.ecrepair.hadooptests;

import org.apache.hadoop.hdfs.TestDecommissionWithStriped;
import org.junit.After;
import org.junit.Test;

/**
 * Hadoop 3.3.6's TestDecommissionWithStriped on one of our (k, m) policies, set by the subclass:
 * decommissioning with busy and stopped nodes finishes, decommissioned replicas are listed last,
 * and every internal block is byte-equal afterwards. checkFile's RS-6-3 block counts are
 * translated to the policy (DecommissionStorageCounts); methods that assert RS-6-3's group in
 * their own body are skipped with the reason.
 */
abstract class DecommissionWithStripedOnOurCode extends TestDecommissionWithStriped {
  @Override
  @Test
  public void testCountNodes() throws Exception {
    Unfit.skip(Unfit.SIX_CELLS_ONE_EACH);
  }

  @Override
  @Test
  public void testDecommissionWithFailedReplicating() throws Exception {
    Unfit.skip(Unfit.SIX_CELLS_ONE_EACH);
  }

  @Override
  @Test
  public void testDecommissionWithMissingBlock() throws Exception {
    Unfit.skip(Unfit.SIX_CELLS_ONE_EACH);
  }

  @Override
  @Test
  public void testRecoveryWithDecommission() throws Exception {
    Unfit.skip(Unfit.RS_NINE_LIVE);
  }

  @Override
  @Test
  public void testDecommission2NodeWithBusyNode() throws Exception {
    Unfit.skip(Unfit.RS_PARITY_INDICES);
  }

  @After
  public void ranOnOurPolicy() {
    DefaultPolicyOverride.assertUsedBy(TestDecommissionWithStriped.class, this, "ecPolicy");
  }
}
