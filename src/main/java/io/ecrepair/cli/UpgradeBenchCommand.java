package io.ecrepair.cli;

import io.ecrepair.bench.cluster.ClusterOptions;
import io.ecrepair.bench.cluster.UpgradeRun;
import io.ecrepair.bench.thrash.ThrashRun;
import io.ecrepair.hdfs.HadoopLine;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "upgrade", mixinStandardHelpOptions = true,
    description = {"An upgrade of Hadoop under files of hadoop-ec-repair's policies, on the multi-process cluster "
        + "(needs root, like bench cluster). Writes a file of each policy on the cluster running the --from line's "
        + "build, stops every JVM and starts the --to line's build on the same metadata and data (the NameNode with "
        + "-upgrade), then reads every file, reads them again with the DataNode holding the most of their blocks "
        + "killed, waits until its blocks are rebuilt and compares each with the replica written before the "
        + "upgrade, reads once more and finalizes the upgrade. Each line's build is its own distribution side by "
        + "side (mvn -DskipTests package -Dhadoop.version=3.4.2 makes hadoop-ec-repair-hadoop3.4)."})
final class UpgradeBenchCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--from", paramLabel = "LINE", description = "The Hadoop line the files are written on (3.3, 3.4 or "
      + "3.5; default: this build's).")
  String from;

  @Option(names = "--to", paramLabel = "LINE", required = true, description = "The Hadoop line upgraded to.")
  String to;

  @Option(names = "--datanodes", defaultValue = "17", description = "DataNodes (default ${DEFAULT-VALUE}); the "
      + "default policies are those whose groups leave a DataNode to rebuild onto.")
  int dataNodes;

  @Option(names = "--policies", split = ",", description = "Policies to write (default: one of each family, as bench "
      + "thrash writes).")
  List<String> policies;

  @Option(names = "--groups", defaultValue = "2", description = "Full block groups per file, and a short one "
      + "(default ${DEFAULT-VALUE}).")
  int groups;

  @Option(names = "--block-size", defaultValue = "4m", description = "HDFS block size (default ${DEFAULT-VALUE}).")
  String blockSize;

  @Option(names = "--rate", defaultValue = "200", description = "Each link, Mbit/s (default ${DEFAULT-VALUE}).")
  int rate;

  @Option(names = "--heap", defaultValue = "384m", description = "Heap of each JVM (default ${DEFAULT-VALUE}).")
  String heap;

  @Option(names = "--timeout", defaultValue = "600", description = "Seconds the repair may take (default "
      + "${DEFAULT-VALUE}).")
  int timeoutSeconds;

  @Mixin
  ClusterPlaces places;

  @Mixin
  JsonOption json;

  @Override
  public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    LogFile.divert("bench upgrade", err);
    String fromLine = from != null ? from : HadoopLine.built();
    if (fromLine.equals(to)) {
      throw new IllegalArgumentException("--from and --to name the same Hadoop line " + to);
    }
    Path fromDist = LineDistribution.of(fromLine);
    Path toDist = LineDistribution.of(to);
    if (toDist == null) {
      throw new IllegalArgumentException("run bench upgrade from a distribution (bin/ec-repair)");
    }
    ClusterOptions cluster = new ClusterOptions(dataNodes, 0, rate, rate, rate,
        ClusterBenchCommand.parseSize(blockSize), heap, Map.of()).withDist(fromDist);
    Path stateDir = places.stateDir("ec-repair-upgrade");
    UpgradeRun.Settings settings = new UpgradeRun.Settings(cluster, toDist,
        policies != null ? policies : ThrashRun.defaultPolicies(dataNodes), groups,
        places.script(), stateDir, timeoutSeconds * 1000L);
    err.println("bench upgrade: Hadoop " + cluster.hadoopVersion() + " to " + cluster.withDist(toDist).hadoopVersion()
        + "; state, confs and JVM logs in " + stateDir);
    err.flush();
    long start = System.nanoTime();
    UpgradeRun.Result r = new UpgradeRun(settings, msg -> {
      long s = (System.nanoTime() - start) / 1_000_000_000L;
      err.printf(Locale.ROOT, "bench upgrade [%d:%02d] %s%n", s / 60, s % 60, msg);
      err.flush();
    }).run();
    PrintWriter out = spec.commandLine().getOut();
    if (json.enabled) {
      Map<String, Object> j = new LinkedHashMap<>();
      j.put("from", r.from());
      j.put("to", r.to());
      j.put("steps", r.steps());
      j.put("passed", r.passed());
      JsonOutput.print(out, j);
    } else {
      Table t = new Table("step", "Hadoop", "what", "seconds", "result").leftAligned();
      for (UpgradeRun.Step s : r.steps()) {
        t.row(s.name(), s.hadoop(), s.detail(), String.format(Locale.ROOT, "%.1f", s.seconds()),
            s.passed() ? "ok" : "FAILED");
      }
      t.print(out);
      out.flush();
    }
    if (!r.passed()) {
      err.println("bench upgrade: FAILED (logs kept in " + stateDir + "/logs)");
      err.flush();
      return EcRepairCli.FAILED;
    }
    return 0;
  }
}
