package io.ecrepair.hdfs.datanode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.hdfs.task.DataNodeKeys;
import io.ecrepair.hdfs.transfer.RepairBudget;
import org.junit.jupiter.api.Test;

class AdaptiveRepairBudgetTest {
  private static final long LINK = 12_500_000;  // 100 Mbit/s

  @Test
  void repairGetsWhatTheForegroundLeavesOfTheLinksShare() {
    assertEquals(0, AdaptiveRepairBudget.limit(LINK, 80, 10, 0), "no foreground: unlimited");
    assertEquals(0, AdaptiveRepairBudget.limit(LINK, 80, 10, LINK * 0.004), "a trickle counts as none");
    assertEquals(10_000_000 - 3_000_000, AdaptiveRepairBudget.limit(LINK, 80, 10, 3_000_000));
    assertEquals(1_250_000, AdaptiveRepairBudget.limit(LINK, 80, 10, 9_500_000), "never under the floor");
    assertEquals(1_250_000, AdaptiveRepairBudget.limit(LINK, 80, 10, LINK));
    assertEquals(RepairBudget.MIN_BYTES_PER_SECOND, AdaptiveRepairBudget.limit(1000, 80, 1, 900),
        "never under what the budget takes");
  }

  @Test
  void theForegroundEstimateRisesAtOnceAndFallsSlowly() {
    assertEquals(5e6, AdaptiveRepairBudget.estimate(1e6, 5e6));
    assertEquals(2.5e6, AdaptiveRepairBudget.estimate(5e6, 0));
    double e = LINK;
    int periods = 0;
    while (AdaptiveRepairBudget.limit(LINK, 80, 10, e) != 0) {
      e = AdaptiveRepairBudget.estimate(e, 0);
      periods++;
    }
    assertTrue(periods * AdaptiveRepairBudget.PERIOD_MS <= 4000, "full speed within 4 s of the foreground stopping: "
        + periods + " periods");
  }

  @Test
  void smallStepsAreNotApplied() {
    assertTrue(AdaptiveRepairBudget.differs(0, 1_000_000));
    assertTrue(AdaptiveRepairBudget.differs(1_000_000, 0));
    assertFalse(AdaptiveRepairBudget.differs(0, 0));
    assertFalse(AdaptiveRepairBudget.differs(1_000_000, 1_050_000));
    assertTrue(AdaptiveRepairBudget.differs(1_000_000, 1_200_000));
    assertTrue(AdaptiveRepairBudget.differs(1_000_000, 800_000));
  }

  @Test
  void itNeedsTheLinkRateAndSaneShares() {
    org.apache.hadoop.conf.Configuration conf = new org.apache.hadoop.conf.Configuration(false);
    assertEquals(null, AdaptiveRepairBudget.start(null, conf, RepairBudget.UNLIMITED, "dn"), "off by default");
    conf.setBoolean(DataNodeKeys.REPAIR_ADAPTIVE_KEY, true);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> AdaptiveRepairBudget.start(null, conf, RepairBudget.UNLIMITED, "dn"));
    assertTrue(e.getMessage().contains(DataNodeKeys.REPAIR_LINK_MBIT_KEY), e.getMessage());
    conf.setLong(DataNodeKeys.REPAIR_LINK_MBIT_KEY, 100);
    conf.setInt(DataNodeKeys.REPAIR_FLOOR_PERCENT_KEY, 90);
    assertThrows(IllegalArgumentException.class, () -> AdaptiveRepairBudget.start(null, conf, RepairBudget.UNLIMITED,
        "dn"));
  }
}
