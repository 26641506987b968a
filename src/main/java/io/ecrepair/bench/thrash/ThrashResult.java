package io.ecrepair.bench.thrash;

import java.util.List;
import java.util.Map;

/**
 * What a thrash run did and found.
 *
 * @param faultsByKind faults injected, by {@link FaultKind#label()}
 * @param faultsDeferred moments a fault was due but none fitted the layout's tolerance
 * @param repairsByRoute reconstruction tasks the DataNodes ran, by route (parallel, chain,
 *     central: the plugin's; stock: HDFS's own), summed over every DataNode JVM's counters
 * @param fallbacks plugin repairs that lost a helper or broke a chain or parallel plan and went
 *     on another way, and failed tasks (the NameNode schedules them again)
 * @param degradedReads the client's streams that rebuilt cells (and agent reads among them)
 * @param filesWritten completed writes (files closed)
 * @param filesVerified live files whose every byte was read back right at the end
 * @param lostBytes bytes of live files that could not be read at the end
 * @param wrongBytes bytes that differed: in reads during the run, in the final reads, and
 *     in replicas on disk that differ from the re-encoding of the file
 * @param corruptedReplaced replicas corrupted on purpose that HDFS replaced (of those whose
 *     file still exists)
 * @param healthyAfterSettle fsck healthy and no block group low on redundancy, missing, corrupt or with a
 *     reconstruction pending
 * @param resourcesBaseline every DataNode's agent threads, agent sockets and descriptors back
 *     to what they were before the faults
 * @param unexpectedDeaths DataNodes that exited without being killed
 */
public record ThrashResult(long seed, double minutes, int dataNodes, List<String> policies,
                           Map<String, Integer> faultsByKind, int faultsDeferred, Map<String, Long> repairsByRoute,
                           long fallbacks, Map<String, Long> degradedReads, int filesWritten, int writeFailures,
                           int filesDeleted, int filesVerified, long bytesVerified, int stockVerified,
                           Map<String, Long> readsByOutcome, long lostBytes, long wrongBytes, long replicasChecked,
                           List<String> wrongReplicas, int corruptedReplicas, int corruptedReplaced,
                           int corruptedMoot, List<String> corruptedNotReplaced, double settleSeconds,
                           boolean fsckHealthy, long lowRedundancyGroups, boolean healthyAfterSettle,
                           boolean resourcesBaseline, Map<String, String> resources, List<String> unexpectedDeaths,
                           List<String> problems, String stateDir, List<String> events) {
  /** Every end check passed. */
  public boolean passed() {
    return failures().isEmpty();
  }

  /** Why the run failed, one line per check that did not hold; empty when it passed. */
  public List<String> failures() {
    List<String> out = new java.util.ArrayList<>();
    if (filesWritten == 0) {
      out.add("no write completed");
    }
    if (lostBytes > 0) {
      out.add(lostBytes + " bytes lost (files that could not be read back)");
    }
    if (wrongBytes > 0) {
      out.add(wrongBytes + " wrong bytes");
    }
    if (!wrongReplicas.isEmpty()) {
      out.add(wrongReplicas.size() + " replicas on disk differ from the re-encoded file: " + head(wrongReplicas));
    }
    if (!corruptedNotReplaced.isEmpty()) {
      out.add(corruptedNotReplaced.size() + " replicas corrupted on purpose still on disk: "
          + head(corruptedNotReplaced));
    }
    if (!healthyAfterSettle) {
      out.add("not healthy after the settle (fsck " + (fsckHealthy ? "healthy" : "NOT healthy") + ", "
          + lowRedundancyGroups + " groups low on redundancy, missing, corrupt or being rebuilt)");
    }
    if (!resourcesBaseline) {
      out.add("agent resources not back to baseline: " + resources);
    }
    if (!unexpectedDeaths.isEmpty()) {
      out.add("DataNodes died without being killed: " + unexpectedDeaths);
    }
    out.addAll(problems);
    return out;
  }

  private static String head(List<String> l) {
    return String.join("; ", l.subList(0, Math.min(3, l.size()))) + (l.size() > 3 ? "; ..." : "");
  }

  /** Faults injected, all kinds. */
  public int faultsTotal() {
    return faultsByKind.values().stream().mapToInt(Integer::intValue).sum();
  }
}
