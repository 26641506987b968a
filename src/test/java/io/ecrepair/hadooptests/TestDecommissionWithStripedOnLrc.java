package io.ecrepair.hadooptests;

/**
 * Hadoop 3.3.6's TestDecommissionWithStriped on LRC-L2-4-3-64k: DataNodes holding striped blocks (one or two
 * at a time, with a busy or a stopped node) finish decommissioning, their replicas are listed last, and every
 * internal block is byte-equal afterwards (parity checked by Hadoop's own oracle).
 */
public class TestDecommissionWithStripedOnLrc extends DecommissionWithStripedOnOurCode {
  static {
    DefaultPolicyOverride.install(TestPolicies.named(TestPolicies.LRC));
    DecommissionStorageCounts.install(TestPolicies.named(TestPolicies.LRC));
  }
}
