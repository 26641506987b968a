package io.ecrepair.hdfs.task;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.codes.UndecodableException;
import io.ecrepair.exec.CellRowRepair;
import io.ecrepair.gf.RegionCoder;
import io.ecrepair.gf.RegionCoders;
import io.ecrepair.hdfs.RepairCatalog;
import java.util.Arrays;

/**
 * The second, independent computation of a repair's cells that
 * {@code dfs.datanode.ec.reconstruction.validation} compares the repair with.
 */
final class RepairPlans {
  private RepairPlans() {}

  /** A second, independent way to compute the same cells, for validation. */
  record Check(CellRowRepair repair, RegionCoder coder, String how) {}

  /**
   * For {@code dfs.datanode.ec.reconstruction.validation}: a repair that leaves out one of
   * {@code primary}'s helpers (so it is a different graph over a different read set, computed
   * separately), else the same graph run by the pure-Java coder.
   */
  static Check check(CodeSpec spec, int[] lost, int[] available, CellRowRepair primary, int[] freeUnits) {
    for (int helper : primary.helpers()) {
      if (Arrays.binarySearch(freeUnits, helper) >= 0) {
        continue;
      }
      int[] fewer = Arrays.stream(available).filter(u -> u != helper).toArray();
      try {
        return new Check(RepairCatalog.plan(spec, lost, fewer), RegionCoders.best(), "without helper " + helper);
      } catch (UndecodableException e) {
        // try leaving out another helper
      }
    }
    return new Check(primary, RegionCoders.java(), "same graph, Java coder");
  }
}
