package io.ecrepair.hdfs.datanode;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.codes.CodecFamily;
import io.ecrepair.codes.Codecs;
import io.ecrepair.codes.RepairableCode;
import io.ecrepair.codes.UndecodableException;
import io.ecrepair.codes.rs.RsFamily;
import io.ecrepair.exec.CellRowRepair;
import io.ecrepair.gf.RegionCoder;
import io.ecrepair.gf.RegionCoders;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;

/**
 * Which policies the plugin rebuilds, and the repairs it runs for them: one code instance per
 * (codec, k, m) and a bounded cache of compiled repairs per (lost, available) pattern, shared
 * by all reconstruction threads of the JVM (building a repair is synchronized on its code).
 */
final class RepairPlans {
  private static final int MAX_CACHED = 256;
  private static final Map<CodeSpec, RepairableCode> CODES = new ConcurrentHashMap<>();
  private static final Map<String, CellRowRepair> PLANS = new LinkedHashMap<>(64, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, CellRowRepair> eldest) {
      return size() > MAX_CACHED;
    }
  };

  private RepairPlans() {}

  /**
   * Whether the plugin rebuilds the policy's blocks: our codecs that HDFS's own reconstruction
   * cannot do well (clay, butterfly, lrc-*), and Hadoop's {@code rs} only when {@code rebuildRs}
   * ({@link EcRepairDataNodePlugin#REBUILD_RS_KEY}). Codecs we do not know stay with HDFS.
   */
  static boolean owns(ErasureCodingPolicy policy, boolean rebuildRs) {
    if (policy == null || policy.getCodecName() == null) {
      return false;
    }
    try {
      CodecFamily family = Codecs.family(policy.getCodecName().toLowerCase(Locale.ROOT));
      return rebuildRs || !(family instanceof RsFamily);
    } catch (IllegalArgumentException unknown) {
      return false;
    }
  }

  static RepairableCode code(CodeSpec spec) {
    return CODES.computeIfAbsent(spec, s -> s.create(RegionCoders.best()));
  }

  /**
   * The cheapest repair of {@code lost} from {@code available} (sorted).
   *
   * @throws UndecodableException when {@code available} cannot rebuild {@code lost}
   */
  static CellRowRepair plan(CodeSpec spec, int[] lost, int[] available) {
    String key = spec + Arrays.toString(lost) + Arrays.toString(available);
    synchronized (PLANS) {
      CellRowRepair p = PLANS.get(key);
      if (p != null) {
        return p;
      }
    }
    RepairableCode code = code(spec);
    CellRowRepair p;
    synchronized (code) {
      p = CellRowRepair.plan(code, lost, available);
    }
    synchronized (PLANS) {
      PLANS.put(key, p);
    }
    return p;
  }

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
        return new Check(plan(spec, lost, fewer), RegionCoders.best(), "without helper " + helper);
      } catch (UndecodableException e) {
        // try leaving out another helper
      }
    }
    return new Check(primary, RegionCoders.java(), "same graph, Java coder");
  }
}
