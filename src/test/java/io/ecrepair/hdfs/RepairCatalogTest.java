package io.ecrepair.hdfs;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.exec.CellRowRepair;
import java.util.Arrays;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The JVM-wide repair cache, and compiling every single-loss repair of a code ahead of need. */
class RepairCatalogTest {
  private static int[] allBut(int n, int lost) {
    return IntStream.range(0, n).filter(u -> u != lost).toArray();
  }

  @Test
  void preparesEverySingleLossRepairInTheBackground() throws InterruptedException {
    // A code no other test uses, so nothing is cached before.
    CodeSpec spec = new CodeSpec("clay", 5, 3);
    int n = spec.n();
    for (int lost = 0; lost < n; lost++) {
      assertFalse(RepairCatalog.isCached(spec, new int[] {lost}, allBut(n, lost)), "cached before: " + lost);
    }
    RepairCatalog.prepareSingleLosses(spec);
    long deadline = System.currentTimeMillis() + 60_000;
    for (int lost = 0; lost < n; lost++) {
      while (!RepairCatalog.isCached(spec, new int[] {lost}, allBut(n, lost))) {
        assertTrue(System.currentTimeMillis() < deadline, "repair of " + lost + " not prepared within 60 s");
        Thread.sleep(20);
      }
    }
    // The prepared plan is a real repair of its block: the lost block is not among its helpers.
    CellRowRepair prepared = RepairCatalog.plan(spec, new int[] {2}, allBut(n, 2));
    assertTrue(Arrays.stream(prepared.helpers()).noneMatch(u -> u == 2));
    // Patterns with more than one loss are left to the repairs that need them.
    assertFalse(RepairCatalog.isCached(spec, new int[] {0, 1}, IntStream.range(2, n).toArray()));
  }
}
