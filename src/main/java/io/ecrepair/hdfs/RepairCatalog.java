package io.ecrepair.hdfs;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.codes.CodecFamily;
import io.ecrepair.codes.Codecs;
import io.ecrepair.codes.RepairableCode;
import io.ecrepair.codes.UndecodableException;
import io.ecrepair.codes.rs.RsFamily;
import io.ecrepair.exec.CellRowRepair;
import io.ecrepair.gf.RegionCoders;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;

/**
 * Which HDFS policies hadoop-ec-repair repairs itself, and the repairs it runs for them, shared
 * by the DataNode plugin and the client FileSystem: one code per (codec, k, m) and a bounded
 * cache of compiled repairs per (lost, available) pattern for the whole JVM (building a repair
 * is synchronized on its code).
 */
public final class RepairCatalog {
  private static final int MAX_CACHED = 256;
  private static final Map<CodeSpec, RepairableCode> CODES = new ConcurrentHashMap<>();
  private static final Map<String, CellRowRepair> PLANS = new LinkedHashMap<>(64, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, CellRowRepair> eldest) {
      return size() > MAX_CACHED;
    }
  };

  private RepairCatalog() {}

  /**
   * Whether the policy's codec is one of ours that HDFS's own paths cannot do well (clay,
   * butterfly, lrc-*), or Hadoop's {@code rs} when {@code includeRs}. Codecs we do not know
   * stay with HDFS.
   */
  public static boolean owns(ErasureCodingPolicy policy, boolean includeRs) {
    if (policy == null || policy.getCodecName() == null) {
      return false;
    }
    try {
      CodecFamily family = Codecs.family(policy.getCodecName().toLowerCase(Locale.ROOT));
      return includeRs || !(family instanceof RsFamily);
    } catch (IllegalArgumentException unknown) {
      return false;
    }
  }

  public static CodeSpec spec(ErasureCodingPolicy policy) {
    return new CodeSpec(policy.getCodecName(), policy.getNumDataUnits(), policy.getNumParityUnits());
  }

  public static RepairableCode code(CodeSpec spec) {
    return CODES.computeIfAbsent(spec, s -> s.create(RegionCoders.best()));
  }

  /**
   * The code's cheapest repair of {@code lost} from {@code available} (sorted).
   *
   * @throws UndecodableException when {@code available} cannot rebuild {@code lost}
   */
  public static CellRowRepair plan(CodeSpec spec, int[] lost, int[] available) {
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
}
