package io.ecrepair.bench.thrash;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** A thrash run's result as table rows and as the --json object. */
public final class ThrashReport {
  private ThrashReport() {}

  /** "what: value" rows, in the order a reader checks them. */
  public static List<String[]> rows(ThrashResult r) {
    List<String[]> out = new ArrayList<>();
    out.add(row("seed", Long.toString(r.seed())));
    out.add(row("run", String.format(Locale.ROOT, "%.1f min of faults, %d DataNodes, %s", r.minutes(), r.dataNodes(),
        String.join(", ", r.policies()))));
    out.add(row("faults", r.faultsTotal() + " (" + r.faultsByKind().size() + " kinds; " + r.faultsDeferred()
        + " times none fitted the layout's tolerance)"));
    r.faultsByKind().forEach((k, v) -> out.add(row("  " + k, Integer.toString(v))));
    out.add(row("repairs by route", r.repairsByRoute().toString()));
    out.add(row("fallbacks", Long.toString(r.fallbacks())));
    out.add(row("degraded reads served", r.degradedReads().getOrDefault("degradedStreams", 0L) + " streams, "
        + r.degradedReads().getOrDefault("cellsRebuilt", 0L) + " cells rebuilt, "
        + r.degradedReads().getOrDefault("agentReads", 0L) + " through the agents"));
    out.add(row("writes", r.filesWritten() + " completed, " + r.writeFailures() + " failed, " + r.filesDeleted()
        + " files deleted"));
    out.add(row("reads during faults", r.readsByOutcome().toString()));
    out.add(row("files verified", String.format(Locale.ROOT, "%d (%.1f MiB; %d by the stock client too)",
        r.filesVerified(), r.bytesVerified() / 1048576.0, r.stockVerified())));
    out.add(row("replicas checked", r.replicasChecked() + " (every replica on every disk vs the re-encoded file), "
        + r.wrongReplicas().size() + " wrong"));
    out.add(row("corrupted on purpose", r.corruptedReplicas() + ": " + r.corruptedReplaced() + " replaced, "
        + r.corruptedMoot() + " deleted with their file, " + r.corruptedNotReplaced().size() + " still there"));
    out.add(row("lost bytes", Long.toString(r.lostBytes())));
    out.add(row("wrong bytes", Long.toString(r.wrongBytes())));
    out.add(row("settle", String.format(Locale.ROOT, "%.0f s", r.settleSeconds())));
    out.add(row("healthy after settle", (r.healthyAfterSettle() ? "yes" : "NO") + " (fsck "
        + (r.fsckHealthy() ? "HEALTHY" : "not healthy") + ", " + r.lowRedundancyGroups()
        + " groups low on redundancy, missing, corrupt or being rebuilt)"));
    out.add(row("agents back to baseline", r.resourcesBaseline() ? "yes" : "NO " + r.resources()));
    out.add(row("DataNodes died unkilled", r.unexpectedDeaths().isEmpty() ? "none" : r.unexpectedDeaths().toString()));
    out.add(row("result", r.passed() ? "PASSED" : "FAILED"));
    return out;
  }

  private static String[] row(String a, String b) {
    return new String[] {a, b};
  }

  /** The --json object: every figure as a number or boolean, lists as arrays. */
  public static Map<String, Object> json(ThrashResult r, Path png) {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("seed", r.seed());
    j.put("minutes", r.minutes());
    j.put("dataNodes", r.dataNodes());
    j.put("policies", r.policies());
    j.put("faultsByKind", r.faultsByKind());
    j.put("faultsTotal", r.faultsTotal());
    j.put("faultsDeferred", r.faultsDeferred());
    j.put("repairsByRoute", r.repairsByRoute());
    j.put("fallbacks", r.fallbacks());
    j.put("degradedReads", r.degradedReads());
    j.put("filesWritten", r.filesWritten());
    j.put("writeFailures", r.writeFailures());
    j.put("filesDeleted", r.filesDeleted());
    j.put("filesVerified", r.filesVerified());
    j.put("bytesVerified", r.bytesVerified());
    j.put("stockVerified", r.stockVerified());
    j.put("readsByOutcome", r.readsByOutcome());
    j.put("lostBytes", r.lostBytes());
    j.put("wrongBytes", r.wrongBytes());
    j.put("replicasChecked", r.replicasChecked());
    j.put("wrongReplicas", r.wrongReplicas());
    j.put("corruptedReplicas", r.corruptedReplicas());
    j.put("corruptedReplaced", r.corruptedReplaced());
    j.put("corruptedDeletedWithFile", r.corruptedMoot());
    j.put("corruptedNotReplaced", r.corruptedNotReplaced());
    j.put("settleSeconds", Math.round(r.settleSeconds() * 10) / 10.0);
    j.put("fsckHealthy", r.fsckHealthy());
    j.put("lowRedundancyGroups", r.lowRedundancyGroups());
    j.put("healthyAfterSettle", r.healthyAfterSettle());
    j.put("resourcesBaseline", r.resourcesBaseline());
    j.put("resources", r.resources());
    j.put("unexpectedDeaths", r.unexpectedDeaths());
    j.put("passed", r.passed());
    j.put("failures", r.failures());
    j.put("stateDir", r.stateDir());
    j.put("timeline", png == null ? null : png.toAbsolutePath().toString());
    j.put("faults", r.events());
    return j;
  }
}
