package io.ecrepair.cli;

import io.ecrepair.bench.cluster.ClusterOptions;
import io.ecrepair.bench.thrash.FaultKind;
import io.ecrepair.bench.thrash.ThrashReport;
import io.ecrepair.bench.thrash.ThrashResult;
import io.ecrepair.bench.thrash.ThrashRun;
import io.ecrepair.harness.ShippedPolicies;
import io.ecrepair.hdfs.task.DataNodeKeys;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "thrash", mixinStandardHelpOptions = true,
    description = {"Faults against a live workload on the benchmark cluster (needs root: network namespaces and tc). "
        + "Starts the multi-process cluster (separate NameNode and DataNode JVMs, each DataNode in its own network "
        + "namespace on shaped links, the repair agents on), then for --minutes runs a workload in the client "
        + "namespace (writers of every policy given, each completed write's SHA-256 recorded; whole, positional and "
        + "small random reads through hadoop-ec-repair's client and, for RS and LRC, the stock one; deletes and "
        + "re-creates) while a fault injector, seeded by --seed, kills, wipes, isolates, pauses and slows DataNodes, "
        + "corrupts replicas on disk, restarts the NameNode and kills clients mid-write and mid-read, never leaving a block "
        + "group with more units out than its code rebuilds.",
        "Then the faults stop, HDFS settles (at most --settle seconds; every file is scrubbed so corrupt replicas "
            + "are reported), and the run checks: every completed file equals its SHA-256, fsck is healthy and "
            + "nothing is low on redundancy, every replica corrupted on purpose was replaced, every replica on every "
            + "disk equals the re-encoding of its file, the agents' threads, sockets and descriptors are back to "
            + "their baseline, and no DataNode died that was not killed. Prints a table (or --json) and a PNG "
            + "timeline; exits 1 when a check failed (the seed and the cluster's logs are printed and kept)."})
final class ThrashBenchCommand implements Callable<Integer> {
  static final String PENDING_TIMEOUT_KEY = "dfs.namenode.reconstruction.pending.timeout-sec";

  @Spec
  CommandSpec spec;

  @Option(names = "--minutes", defaultValue = "10", description = "Minutes of faults (default ${DEFAULT-VALUE}).")
  double minutes;

  @Option(names = "--seed", description = "Seed of the fault schedule and the workload (default: from the clock, "
      + "printed).")
  Long seed;

  @Option(names = "--datanodes", defaultValue = "17", description = "DataNodes (default ${DEFAULT-VALUE}); the "
      + "default policies are the shipped families that fit with a spare.")
  int dataNodes;

  @Option(names = "--policies", split = ",", description = "Policies to write (default: " + "RS-6-3-64k, "
      + "CLAY-6-3-1024k, BUTTERFLY-4-2-1024k, CLAY-D11-10-4-1024k, LRC-L2-10-4-1024k, those that fit).")
  List<String> policies;

  @Option(names = "--faults", split = ",", description = "Fault kinds (default all): dn-kill, dn-kill-in-repair, "
      + "dn-wipe, dn-isolate, dn-pause, agent-stall, disk-full, link-slow, replica-corrupt, replica-corrupt-silent, "
      + "nn-restart, client-kill, client-kill-read.")
  List<String> faults;

  @Option(names = "--disk", defaultValue = "3072", description = "Each DataNode's own disk, MiB: an ext4 file "
      + "system in a sparse file on a loop device, which disk-full fills (default ${DEFAULT-VALUE}; 0 = this "
      + "machine's disk, and no disk-full).")
  int diskMiB;

  @Option(names = "--max-node-faults", defaultValue = "2", description = "DataNodes under a fault at once at most "
      + "(default ${DEFAULT-VALUE}; the layout may allow fewer).")
  int maxNodeFaults;

  @Option(names = "--rate", defaultValue = "200", description = "Each link, Mbit/s (default ${DEFAULT-VALUE}).")
  int rate;

  @Option(names = "--block-size", defaultValue = "2m", description = "HDFS block size (default ${DEFAULT-VALUE}).")
  String blockSize;

  @Option(names = "--max-file", defaultValue = "16m", description = "Largest file written (default "
      + "${DEFAULT-VALUE}).")
  String maxFile;

  @Option(names = "--settle", defaultValue = "300", description = "Seconds HDFS may take to settle after the faults "
      + "(default ${DEFAULT-VALUE}).")
  int settleSeconds;

  @Option(names = "--heap", defaultValue = "384m", description = "Heap of each JVM (default ${DEFAULT-VALUE}).")
  String heap;

  @Option(names = "--policy-file", description = "Policies to add (default: the shipped conf/user_ec_policies.xml).")
  Path policyFile;

  @Mixin
  ClusterPlaces places;

  @Option(names = "--png-prefix", defaultValue = "ec-repair-bench-thrash", description = "The timeline is written "
      + "as PREFIX-timeline.png (default ${DEFAULT-VALUE}).")
  String pngPrefix;

  @Mixin
  JsonOption json;

  @Override
  public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    LogFile.divert("bench thrash", err);
    long runSeed = seed != null ? seed : System.currentTimeMillis() % 1_000_000;
    // A reconstruction task dies with the DataNode killed while it runs it, and the NameNode
    // schedules it again only after the pending timeout: 60 s instead of 300 s, so a run whose
    // last kill hits a repair settles within minutes (at 2 MiB blocks no task takes that long).
    // A unit a lease recovery left behind blocks its rebuild on that DataNode until reported, so
    // the report comes before the NameNode's next try (20 s against 60, as 120 s against 300).
    ClusterOptions cluster = new ClusterOptions(dataNodes, 0, rate, rate, rate,
        ClusterBenchCommand.parseSize(blockSize), heap, Map.of(PENDING_TIMEOUT_KEY, "60",
            DataNodeKeys.RECOVERY_LEFTOVER_CHECK_SECONDS_KEY, "20"), List.of(), rate, diskMiB)
        .withDist(LineDistribution.home());
    List<String> chosen = policies != null ? policies : ThrashRun.defaultPolicies(dataNodes);
    List<FaultKind> kinds = faults == null
        ? Arrays.stream(FaultKind.values()).filter(k -> k != FaultKind.DISK_FULL || diskMiB > 0).toList()
        : faults.stream().map(f -> Arrays.stream(FaultKind.values()).filter(k -> k.label().equals(f)).findFirst()
            .orElseThrow(() -> new IllegalArgumentException("no fault kind '" + f + "'"))).toList();
    if (kinds.contains(FaultKind.DISK_FULL) && diskMiB == 0) {
      throw new IllegalArgumentException("disk-full needs a disk per DataNode (--disk MIB)");
    }
    Path stateDir = places.stateDir("ec-repair-thrash");
    ThrashRun.Settings settings = new ThrashRun.Settings(minutes, runSeed, cluster, chosen,
        policyFile != null ? policyFile.toAbsolutePath() : ShippedPolicies.defaultPolicyFile(),
        places.script(), stateDir, settleSeconds, ClusterBenchCommand.parseSize(maxFile),
        kinds, maxNodeFaults);
    err.println("bench thrash: seed " + runSeed + "; state, confs and JVM logs in " + stateDir);
    err.flush();
    long start = System.nanoTime();
    Path png = Path.of(pngPrefix + "-timeline.png");
    ThrashResult r = new ThrashRun(settings, msg -> {
      long s = (System.nanoTime() - start) / 1_000_000_000L;
      err.printf(Locale.ROOT, "bench thrash [%d:%02d] %s%n", s / 60, s % 60, msg);
      err.flush();
    }).run(png);
    PrintWriter out = spec.commandLine().getOut();
    if (json.enabled) {
      JsonOutput.print(out, ThrashReport.json(r, png));
    } else {
      Table t = new Table("check", "result").leftAligned();
      ThrashReport.rows(r).forEach(row -> t.row((Object[]) row));
      t.print(out);
      out.println("chart: " + png.toAbsolutePath());
      out.flush();
    }
    if (!r.passed()) {
      err.println("bench thrash: FAILED with seed " + runSeed + " (logs kept in " + stateDir + "/logs):");
      r.failures().forEach(f -> err.println("  " + f));
      err.flush();
      return EcRepairCli.FAILED;
    }
    return 0;
  }
}
