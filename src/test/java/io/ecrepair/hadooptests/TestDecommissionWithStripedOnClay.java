package io.ecrepair.hadooptests;

/**
 * Hadoop 3.3.6's TestDecommissionWithStriped on CLAY-4-2-64k: DataNodes holding striped blocks (one or two
 * at a time, with a busy or a stopped node) finish decommissioning, their replicas are listed last, and every
 * internal block is byte-equal afterwards (parity checked per cell row: CellRowParityOracle).
 */
public class TestDecommissionWithStripedOnClay extends DecommissionWithStripedOnOurCode {
  static {
    DefaultPolicyOverride.install(TestPolicies.named(TestPolicies.CLAY));
    CellRowParityOracle.install();
    DecommissionStorageCounts.install(TestPolicies.named(TestPolicies.CLAY));
  }
}
