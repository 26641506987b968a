package io.ecrepair.hdfs.client;

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
 * Which policies the client FileSystem reads itself when a block is missing, and the repairs
 * it runs for them: one code per (codec, k, m) and a bounded cache of compiled repairs per
 * (lost, available) pattern, shared by every stream of the JVM. The same choice as the
 * DataNode plugin's: clay, butterfly and lrc-* are ours; Hadoop's rs (whatever coder serves
 * it) and codecs we do not know stay with HDFS.
 */
public final class ClientPolicies {
  private static final int MAX_CACHED = 256;
  private static final Map<CodeSpec, RepairableCode> CODES = new ConcurrentHashMap<>();
  private static final Map<String, CellRowRepair> PLANS = new LinkedHashMap<>(64, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, CellRowRepair> eldest) {
      return size() > MAX_CACHED;
    }
  };

  private ClientPolicies() {}

  /** Whether degraded reads of files under {@code policy} go through hadoop-ec-repair. */
  public static boolean owns(ErasureCodingPolicy policy) {
    if (policy == null || policy.getCodecName() == null) {
      return false;
    }
    try {
      CodecFamily family = Codecs.family(policy.getCodecName().toLowerCase(Locale.ROOT));
      return !(family instanceof RsFamily);
    } catch (IllegalArgumentException unknown) {
      return false;
    }
  }

  static CodeSpec spec(ErasureCodingPolicy policy) {
    return new CodeSpec(policy.getCodecName(), policy.getNumDataUnits(), policy.getNumParityUnits());
  }

  static RepairableCode code(CodeSpec spec) {
    return CODES.computeIfAbsent(spec, s -> s.create(RegionCoders.best()));
  }

  /**
   * The code's cheapest repair of {@code lost} from {@code available} (sorted).
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
}
