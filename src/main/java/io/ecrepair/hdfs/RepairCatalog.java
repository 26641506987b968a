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

  /** Codes whose single-loss repairs were handed to {@link #PREPARER}. */
  private static final java.util.Set<CodeSpec> PREPARED = ConcurrentHashMap.newKeySet();
  /** One low-priority thread compiles repairs ahead of need, so it never competes with itself. */
  private static final java.util.concurrent.ExecutorService PREPARER =
      java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "ec-repair-plan-preparer");
        t.setDaemon(true);
        t.setPriority(Thread.MIN_PRIORITY);
        return t;
      });

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
   * Compiles, once per code and JVM and in the background, the repair of every single lost
   * internal block from all the others: when a node dies, every DataNode that rebuilds one of
   * its blocks then finds its repair ready instead of compiling it on the repair's critical path
   * (a Clay repair takes a cold JVM up to a second of CPU to compile).
   */
  public static void prepareSingleLosses(CodeSpec spec) {
    if (!PREPARED.add(spec)) {
      return;
    }
    PREPARER.execute(() -> {
      int n = spec.n();
      for (int lost = 0; lost < n; lost++) {
        int[] available = new int[n - 1];
        for (int u = 0, j = 0; u < n; u++) {
          if (u != lost) {
            available[j++] = u;
          }
        }
        try {
          plan(spec, new int[] {lost}, available);
        } catch (RuntimeException e) {
          // only a head start: the repair that needs this plan compiles it and reports any error
        }
      }
    });
  }

  /** Whether the repair of {@code lost} from {@code available} is compiled and cached. */
  static boolean isCached(CodeSpec spec, int[] lost, int[] available) {
    synchronized (PLANS) {
      return PLANS.containsKey(key(spec, lost, available));
    }
  }

  private static String key(CodeSpec spec, int[] lost, int[] available) {
    return spec + Arrays.toString(lost) + Arrays.toString(available);
  }

  /**
   * The code's cheapest repair of {@code lost} from {@code available} (sorted).
   *
   * @throws UndecodableException when {@code available} cannot rebuild {@code lost}
   */
  public static CellRowRepair plan(CodeSpec spec, int[] lost, int[] available) {
    String key = key(spec, lost, available);
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
