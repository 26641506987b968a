package io.ecrepair.cli;

import io.ecrepair.bench.cluster.ClusterBenchmark;
import io.ecrepair.bench.cluster.ClusterOptions;
import io.ecrepair.bench.cluster.ClusterReport;
import io.ecrepair.bench.cluster.ForegroundLoad;
import io.ecrepair.bench.cluster.Scenario;
import io.ecrepair.harness.ShippedPolicies;
import io.ecrepair.hdfs.task.DataNodeKeys;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "cluster", mixinStandardHelpOptions = true,
    description = {"The repair race on a real multi-process HDFS with shaped links (needs root: network namespaces "
        + "and tc). Starts a NameNode and --datanodes DataNodes (hadoop-ec-repair's plugin on each) as separate JVMs, "
        + "each DataNode in its own network namespace with tbf on its uplink and downlink, and for every scenario: "
        + "writes --groups full block groups, kills the DataNode holding the most internal blocks and times the "
        + "NameNode-driven reconstruction (from the NameNode dropping the dead node's replicas until it reports "
        + "nothing low-redundancy or missing), compares every rebuilt replica with the original, and counts the bytes "
        + "every node sent and received on its interface; then degraded reads of one lost data block from a "
        + "client namespace. Prints tables (or --json), each time beside its peer (stock HDFS) and its physical "
        + "floor (the busiest shaped link's time for what the run's layout forces through it), and PNG charts. "
        + "Everything it made is torn down at the end, on failure and on Ctrl-C.",
        "Scenarios: POLICY, RS-...+plugin (the DataNodes restarted with ecrepair.datanode.rebuild.rs=true) or "
            + "CLAY-...+central / BUTTERFLY-...+central (restarted with ecrepair.datanode.parallel=false: the central "
            + "sub-chunk repair instead of parallel plans)."})
final class ClusterBenchCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--datanodes", defaultValue = "17", description = "DataNodes (default ${DEFAULT-VALUE}: LRC's 16 "
      + "blocks and a spare).")
  int dataNodes;

  @Option(names = "--rate", defaultValue = "100", description = "Each DataNode's uplink and downlink, Mbit/s "
      + "(default ${DEFAULT-VALUE}).")
  int rate;

  @Option(names = "--client-rate", description = "The degraded-read client's link, Mbit/s (default: --rate).")
  Integer clientRate;

  @Option(names = "--priority-links", description = "Links that send repair traffic last, as a network with QoS "
      + "does: every shaped link sends packets marked Lower Effort (DSCP 1) only when no other packet waits, and "
      + "the DataNodes mark their repair traffic so (" + DataNodeKeys.REPAIR_DSCP_KEY + "=1 unless "
      + "--datanode-conf says otherwise). Default: one queue in arrival order.")
  boolean priorityLinks;

  @Option(names = "--racks", defaultValue = "0", description = "Racks behind a router (0 = one flat network; "
      + "default ${DEFAULT-VALUE}). With racks the default scenarios are " + Scenario.RACK_DEFAULTS + ".")
  int racks;

  @Option(names = "--rack-rate", defaultValue = "50", description = "Each rack gateway's rate, Mbit/s (default "
      + "${DEFAULT-VALUE}).")
  int rackRate;

  @Option(names = "--block-size", defaultValue = "16m", description = "HDFS block size (k, m suffixes; default "
      + "${DEFAULT-VALUE}); a multiple of every policy's cell size.")
  String blockSize;

  @Option(names = "--groups", defaultValue = "20", description = "Block groups written per recovery scenario "
      + "(default ${DEFAULT-VALUE}).")
  int groups;

  @Option(names = "--warmup-groups", description = "Block groups of each of the two unmeasured warm-up recoveries run "
      + "before each measured one, so every DataNode's JVM has compiled the repair paths (default: --groups; 0 = none).")
  Integer warmupGroups;

  @Option(names = "--scenarios", split = ",", description = "Scenarios in order (default " + Scenario.DEFAULTS
      + "; with --slow-nodes " + Scenario.SLOW_DEFAULTS + "; with --racks " + Scenario.RACK_DEFAULTS + "). A scenario "
      + "is a policy, with +plugin (RS rebuilt by our plugin), +central (Clay, Butterfly without parallel plans) or "
      + "+hdfs-placement (LRC placed as HDFS places it, not with combined locality), and +costs (the cost model on).")
  List<String> scenarios;

  @Option(names = "--slow-nodes", defaultValue = "0", description = "DataNodes given slower links (--slow-rate), "
      + "spread evenly over the DataNodes so a run with the same options slows the same ones (default "
      + "${DEFAULT-VALUE}). With slow nodes the run races each scenario without and with the cost model "
      + "(+costs) and reads whole groups degraded; no single-block races.")
  int slowNodes;

  @Option(names = "--slow-rate", defaultValue = "25", description = "The slow DataNodes' uplink and downlink, "
      + "Mbit/s (default ${DEFAULT-VALUE}).")
  int slowRate;

  @Option(names = "--no-degraded-read", description = "Skip the degraded reads.")
  boolean noDegradedRead;

  @Option(names = "--no-single-block", description = "Skip the single-block races (one block rebuilt on an idle "
      + "cluster against one healthy block read).")
  boolean noSingleBlock;

  @Option(names = "--decommission", description = "Also decommission, per scenario, the DataNode holding the most "
      + "blocks of a freshly written file (its address in the NameNode's exclude file, then -refreshNodes), time it "
      + "until the NameNode reports it decommissioned, verify every block it held, and put it back in service.")
  boolean decommission;

  @Option(names = "--foreground", description = "Also run every scenario's recovery a second time under a "
      + "foreground workload: a client in the client namespace reading and writing healthy replicated files at a "
      + "steady offered load, with its read and write latency (p50, p99, p99.9) and throughput before the failure, "
      + "during the repair and after it, and a chart of its latency over time.")
  boolean foreground;

  @Option(names = "--foreground-load", defaultValue = "30", paramLabel = "PERCENT", description = "The foreground's "
      + "offered load as a share of the client's link, two thirds reads and one third writes (default "
      + "${DEFAULT-VALUE}).")
  int foregroundLoad;

  @Option(names = "--foreground-window", defaultValue = "15", paramLabel = "SECONDS", description = "Seconds the "
      + "foreground is measured before the failure and after the recovery (default ${DEFAULT-VALUE}).")
  int foregroundWindow;

  @Option(names = "--datanode-conf", paramLabel = "KEY=VALUE", description = "A setting for every DataNode's "
      + "hdfs-site.xml (repeatable), e.g. " + DataNodeKeys.REPAIR_ADAPTIVE_KEY + "=true. The run always sets "
      + DataNodeKeys.REPAIR_LINK_MBIT_KEY + " to --rate unless given here.")
  Map<String, String> dataNodeConf = new java.util.LinkedHashMap<>();

  @Option(names = "--policy-file", description = "Policies to add (default: the shipped conf/user_ec_policies.xml).")
  Path policyFile;

  @Option(names = "--hadoop-line", paramLabel = "LINE", description = "Run the NameNode, DataNodes and client probes "
      + "on Hadoop LINE (3.3, 3.4 or 3.5) with the plugin built for it: the distribution next to this one, e.g. "
      + "hadoop-ec-repair-hadoop3.4 from mvn -DskipTests package -Dhadoop.version=3.4.2 (default: this build's line).")
  String hadoopLine;

  @Mixin
  ClusterPlaces places;

  @Option(names = "--timeout", defaultValue = "900", description = "Seconds one recovery may take (default "
      + "${DEFAULT-VALUE}).")
  int timeoutSeconds;

  @Option(names = "--heap", defaultValue = "512m", description = "Heap of each NameNode/DataNode JVM (default "
      + "${DEFAULT-VALUE}).")
  String heap;

  @Option(names = "--png-prefix", defaultValue = "ec-repair-bench-cluster",
      description = "Charts are written as PREFIX-*.png (default ${DEFAULT-VALUE}).")
  String pngPrefix;

  @Mixin
  JsonOption json;

  @Override
  public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    LogFile.divert("bench cluster", err);
    long start = System.nanoTime();
    ClusterOptions cluster = new ClusterOptions(dataNodes, racks, rate, rackRate, clientRate == null ? rate : clientRate,
        parseSize(blockSize), heap, dataNodeSettings(), ClusterOptions.spread(slowNodes, dataNodes), slowRate)
        .withDist(LineDistribution.of(hadoopLine)).withPriorityLinks(priorityLinks);
    String scenarioList = scenarios != null ? String.join(",", scenarios)
        : slowNodes > 0 ? Scenario.SLOW_DEFAULTS : racks > 0 ? Scenario.RACK_DEFAULTS : Scenario.DEFAULTS;
    ClusterBenchmark.Settings settings = new ClusterBenchmark.Settings(cluster, Scenario.parseList(scenarioList), groups, warmupGroups == null ? groups : warmupGroups,
        !noDegradedRead, !noSingleBlock && slowNodes == 0, decommission,
        foreground ? new ForegroundLoad.Settings(foregroundLoad, foregroundWindow) : null,
        policyFile != null ? policyFile.toAbsolutePath() : ShippedPolicies.defaultPolicyFile(), places.script(),
        places.stateDir("ec-repair-cluster"),
        timeoutSeconds * 1000L);
    err.println("bench cluster: state, confs and JVM logs in " + settings.stateDir());
    if (cluster.dist() != null) {
      err.println("bench cluster: NameNode and DataNodes run Hadoop " + cluster.hadoopVersion() + " from "
          + cluster.dist());
    }
    err.flush();
    ClusterBenchmark.Report report;
    try (ProgressLine line = new ProgressLine(err, "writing", 1)) {
      long[] lastDraw = {0};
      report = new ClusterBenchmark(settings, msg -> {
        line.close();
        long s = (System.nanoTime() - start) / 1_000_000_000L;
        err.printf(Locale.ROOT, "bench cluster [%d:%02d] %s%n", s / 60, s % 60, msg);
        err.flush();
      }, written -> {
        // a live byte count while a file is written (terminals only; logs get the step lines above)
        long now = System.nanoTime();
        if (now - lastDraw[0] > 500_000_000L) {
          lastDraw[0] = now;
          line.status(String.format(Locale.ROOT, "writing: %d MiB", written >> 20));
        }
      }).run();
    }
    ClusterReport r = new ClusterReport(report);
    List<Path> charts = r.writeCharts(pngPrefix);
    PrintWriter out = spec.commandLine().getOut();
    if (json.enabled) {
      JsonOutput.print(out, r.json(charts));
    } else {
      if (!cluster.slowNodes().isEmpty()) {
        out.printf(Locale.ROOT, "slow DataNodes: %s at %d Mbit/s; +costs = the cost model on (DataNodes: the "
                + "operator's costs of the slow nodes in %s; client: costs measured as it reads)%n",
            String.join(", ", cluster.slowNodes().stream().map(i -> "dn" + i).toList()), cluster.slowRateMbit(),
            io.ecrepair.hdfs.CostKeys.COSTS_KEY);
      }
      if (cluster.priorityLinks()) {
        out.printf(Locale.ROOT, "priority links: every link sends packets marked Lower Effort (DSCP 1: the "
            + "plugin's repair traffic) only when no other packet waits; stock HDFS's reconstruction is not marked%n");
      }
      if (cluster.racks() > 0) {
        int perRack = (cluster.dataNodes() + cluster.racks() - 1) / cluster.racks();
        out.printf(Locale.ROOT, "racks: %d behind a router, each rack's uplink and downlink %d Mbit/s for up to %d "
                + "DataNodes of %d Mbit/s (oversubscribed %.0f:1, as top-of-rack uplinks are); cross-rack bytes are "
                + "counted on the router's rack legs; +hdfs-placement = the LRC files placed as HDFS places them, "
                + "the others with combined locality%n", cluster.racks(), cluster.rackRateMbit(), perRack,
            cluster.rateMbit(), (double) perRack * cluster.rateMbit() / cluster.rackRateMbit());
      }
      out.printf(Locale.ROOT, "%d DataNodes, links %d Mbit/s (client %d), racks %d, blocks %d MiB, %d groups per "
              + "scenario after two warm-up recoveries of %d; NameNode: heartbeat 1 s, dead after 11 s, redundancy "
              + "monitor every 1 s, reconstruction targets spread, %s (CombinedLocalityPlacementPolicy)%n%n",
          cluster.dataNodes(), cluster.rateMbit(), cluster.clientRateMbit(), cluster.racks(), cluster.blockSize() >> 20,
          groups, settings.warmupGroups(), cluster.racks() > 1 ? "LRC groups with combined locality where the racks "
              + "suffice" : "groups placed as by HDFS (one rack)");
      out.println("Full-node recovery (detect s = from the kill to the NameNode dropping the node's replicas; "
          + "repair s = from then to nothing low-redundancy; floor s = the time the busiest link needs, at the shaped "
          + "rates, for what this run's own layout forces through it (where the lost blocks' helpers and rebuilt "
          + "copies are), each block rebuilt the cheapest way its strategy allows (HDFS: any k helpers; chains: any "
          + "helpers and head; Clay, Butterfly: the central repair or a stored parallel plan), chosen knowing every "
          + "other block's choice; busiest link = that link, a DataNode's or a rack gateway's in or out; x floor = "
          + "repair s / floor s; vs peer = the peer's repair s / this one's, the peer being stock RS-10-4 (HDFS's own "
          + "reconstruction), or for +costs the same scenario without the cost model; recv/block = bytes all "
          + "DataNodes received per rebuilt block, in blocks; max load = the busiest rebuilding node's bytes received per block it rebuilt; CPU idle = the host's idle share while the "
          + "blocks were rebuilt, SATURATED under 10%: then the result is bound by this host's CPU, not the links):");
      print(out, r.recoveries());
      out.println();
      out.println("Bytes per node during each recovery (interface counters in the namespaces; the counts the "
          + "tables above are made of, so no peer or floor here):");
      print(out, r.nodeBytes());
      if (!report.singles().isEmpty()) {
        out.println();
        out.println("Single-block race on an idle cluster (data block 0 lost; repair s = the reconstruction task's own "
            + "time, or (NN) the NameNode-observed time for HDFS's own tasks; healthy read s = one healthy block read "
            + "into the client namespace over a link like every DataNode's; floor s = one block through the rebuilding "
            + "DataNode's downlink at the link rate, which no repair of a block goes below; vs RS = stock RS-10-4's "
            + "repair s / this one's; busiest recv = the most any live DataNode received"
            + (cluster.racks() > 0 ? "; cross-rack blocks = bytes that left any rack, in blocks" : "")
            + "):");
        print(out, r.singles());
      }
      if (settings.foreground() != null) {
        out.println();
        out.println("Foreground load during the recovery (each scenario's recovery run again under a client "
            + "reading " + ClusterReport.foregroundReadKib() + " KiB ranges and writing "
            + ClusterReport.foregroundWriteKib() + " KiB files of healthy replicated files at a steady offered load, "
            + "from the client namespace; latency from when an operation was due to its end, in ms; before = the "
            + foregroundWindow + " s before the failure, during = the repair (from the NameNode dropping the dead "
            + "node's replicas until nothing is left to rebuild), after = the " + foregroundWindow + " s after it; "
            + "x quiet = repair s under load / repair s of the same recovery without load (the table above); "
            + "short s = the time a group spent short of its redundancy, from the failure until it was whole, mean "
            + "/ longest; CPU idle = the host's idle share during the repair under load, SATURATED under 10%: then "
            + "this host's CPU, shared by every JVM of the cluster and the client, decided the clients' latency; "
            + "sent LE = the share of what the DataNodes sent during the recovery without load that left marked "
            + "Lower Effort, with --priority-links):");
        print(out, r.foreground());
      }
      if (!report.decommissions().isEmpty()) {
        out.println();
        out.println("Decommissioning the DataNode holding the most blocks of a fresh file (seconds from -refreshNodes "
            + "until the NameNode reports it decommissioned; HDFS copies its blocks from it, so floor s = its uplink "
            + "carrying all of them at its link rate; x RS = time / stock RS-10-4's):");
        print(out, r.decommissions());
      }
      if (!report.reads().isEmpty()) {
        out.println();
        out.println("Degraded read of one whole lost data block (or of the whole group, every read spanning the lost "
            + "block) from the client namespace (floor s = the bytes read through the client's link at its rate; "
            + "vs RS stock = degraded s / stock RS-10-4's through HDFS's client; fetched = bytes the client's "
            + "interface received per block read, in blocks):");
        print(out, r.reads());
      }
      for (String n : report.notes()) {
        out.println("note: " + n);
      }
      for (Path p : charts) {
        out.println("chart: " + p.toAbsolutePath());
      }
      out.flush();
    }
    boolean verified = report.recoveries().stream().allMatch(x -> x.verified())
        && report.reads().stream().allMatch(x -> x.verified())
        && report.singles().stream().allMatch(x -> x.verified())
        && report.decommissions().stream().allMatch(x -> x.verified());
    if (!verified) {
      err.println("bench cluster: a rebuilt block or a degraded read did not match the original data");
    }
    return verified ? 0 : EcRepairCli.FAILED;
  }

  /**
   * The --datanode-conf settings, with the link rate the adaptive repair budget shares out and,
   * on priority links, repair traffic marked Lower Effort.
   */
  private Map<String, String> dataNodeSettings() {
    Map<String, String> conf = new java.util.LinkedHashMap<>(dataNodeConf);
    conf.putIfAbsent(DataNodeKeys.REPAIR_LINK_MBIT_KEY, Integer.toString(rate));
    if (priorityLinks) {
      conf.putIfAbsent(DataNodeKeys.REPAIR_DSCP_KEY, "1");
    }
    return conf;
  }

  private static void print(PrintWriter out, ClusterReport.Rows rows) {
    Table t = new Table(rows.header().toArray(new String[0]));
    rows.rows().forEach(row -> t.row(row.toArray()));
    t.print(out);
  }

  static long parseSize(String s) {
    String t = s.strip().toLowerCase(Locale.ROOT);
    long mult = 1;
    if (t.endsWith("k")) {
      mult = 1024;
    } else if (t.endsWith("m")) {
      mult = 1024 * 1024;
    }
    try {
      long v = Long.parseLong(mult == 1 ? t : t.substring(0, t.length() - 1)) * mult;
      if (v <= 0) {
        throw new NumberFormatException();
      }
      return v;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not a size: '" + s + "' (e.g. 16m, 1024k)");
    }
  }
}
