package io.ecrepair.plan;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RecoveryShareTest {
  /** CLAY-10-4's central repair brings 13 x 64 of 256 sub-chunks into the rebuilding DataNode. */
  private static final long CLAY = 13 * 64;

  @Test
  void theFirstTaskOfARecoveryOnADataNodeRunsCentrally() {
    assertTrue(RecoveryShare.central(1, false, 0, CLAY, CLAY));
  }

  @Test
  void laterTasksALoneTaskAndMultiBlockRepairsWeighThePlans() {
    assertFalse(RecoveryShare.central(1, false, 1, CLAY, CLAY), "the DataNode already runs its share");
    assertFalse(RecoveryShare.central(1, true, 0, CLAY, CLAY), "a single-block repair on an idle cluster");
    assertFalse(RecoveryShare.central(2, false, 0, 2 * CLAY, CLAY), "two lost blocks of one group");
  }

  @Test
  void aCostlierUnitThanTheUsualOneWeighsThePlans() {
    // BUTTERFLY-10-2: the last parity's central repair reads 10 blocks, the usual one 5.5.
    assertFalse(RecoveryShare.central(1, false, 0, 10 * 512, 11 * 256));
    assertTrue(RecoveryShare.central(1, false, 0, 11 * 256, 11 * 256));
  }
}
