package io.ecrepair.bench.thrash;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reconstruction tasks by route, summed over DataNode JVMs whose counters restart at zero when
 * the JVM does: each sample adds what grew since the last one, or all of it after a restart.
 * Routes: the plugin's parallel plans, chains, and central repairs (its other tasks), and
 * HDFS's own (every EC task HDFS counted minus the plugin's).
 */
final class RepairCounts {
  static final String[] KEYS = {"EcReconstructionTasks", "Tasks", "ParallelTasks", "ChainedTasks", "FailedTasks",
      "HelperReplacements", "BrokenChains", "BrokenParallelRepairs"};

  private final Map<String, long[]> last = new HashMap<>();
  private final long[] total = new long[KEYS.length];

  /** One sample of a DataNode's counters (missing ones count as 0). */
  synchronized void sample(String node, Map<String, Long> counters) {
    long[] v = new long[KEYS.length];
    for (int i = 0; i < KEYS.length; i++) {
      v[i] = Math.max(0, counters.getOrDefault(KEYS[i], 0L));
    }
    long[] before = last.put(node, v);
    boolean restarted = before != null && v[0] < before[0];
    for (int i = 0; i < KEYS.length; i++) {
      total[i] += before == null || restarted ? v[i] : Math.max(0, v[i] - before[i]);
    }
  }

  synchronized Map<String, Long> byRoute() {
    Map<String, Long> out = new TreeMap<>();
    out.put("parallel", total[2]);
    out.put("chain", total[3]);
    out.put("central", Math.max(0, total[1] - total[2] - total[3]));
    out.put("stock", Math.max(0, total[0] - total[1]));
    return out;
  }

  /** Helpers replaced, chains and parallel plans broken and finished another way, and failed tasks. */
  synchronized long fallbacks() {
    return total[4] + total[5] + total[6] + total[7];
  }
}
