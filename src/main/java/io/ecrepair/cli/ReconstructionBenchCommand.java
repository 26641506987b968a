package io.ecrepair.cli;

import io.ecrepair.bench.BarChart;
import io.ecrepair.bench.ReconstructionBenchmark;
import io.ecrepair.harness.ShippedPolicies;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
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

@Command(name = "reconstruction", mixinStandardHelpOptions = true,
    description = {"NameNode-driven rebuilding of one internal block on an in-process HDFS: CLAY-10-4 and "
        + "LRC(12,2,2) through hadoop-ec-repair's DataNode plugin beside RS-10-4 and RS-12-4 through HDFS's own "
        + "reconstruction, one run, every repair under the same dfs.datanode.ec.reconstruct.read.bandwidthPerSec.",
        "Each policy writes one full block group and loses internal block 0 (a data block); the time is the "
        + "reconstruction task's own (NameNode scheduling delay excluded). Prints a table (or --json) and writes "
        + "a PNG bar chart.",
        "Each time stands beside its peer (RS through HDFS) and its floor: what the code's cheapest repair reads, "
            + "at the read limit, through the rebuilding DataNode's throttle (less the throttle's free first half "
            + "second); a chain or a parallel plan, limited on every node its values arrive at, has none."})
final class ReconstructionBenchCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--read-bandwidth", defaultValue = "4194304",
      description = "dfs.datanode.ec.reconstruct.read.bandwidthPerSec for every repair, bytes/s (default ${DEFAULT-VALUE}).")
  long readBandwidth;

  @Option(names = "--cells-per-block", defaultValue = "4",
      description = "Block size in cells (1 MiB each; default ${DEFAULT-VALUE}).")
  int cellsPerBlock;

  @Option(names = "--warmup", defaultValue = "1",
      description = "Unmeasured rounds that repair every policy first, so the DataNodes' read paths are compiled "
          + "as in a long-running DataNode (default ${DEFAULT-VALUE}; 0 with --quick unless given).")
  int warmup;

  @Option(names = "--png", defaultValue = "ec-repair-bench-reconstruction.png",
      description = "Where to write the bar chart (default ${DEFAULT-VALUE}).")
  Path png;

  @Option(names = "--quick", description = "Smaller blocks (2 cells): a short run.")
  boolean quick;

  @Mixin
  JsonOption json;

  @Override
  public Integer call() throws Exception {
    ShippedPolicies.requireMiniCluster();
    boolean cellsGiven = spec.commandLine().getParseResult().hasMatchedOption("--cells-per-block");
    boolean warmupGiven = spec.commandLine().getParseResult().hasMatchedOption("--warmup");
    PrintWriter err = spec.commandLine().getErr();
    LogFile.divert("bench reconstruction", err);
    ReconstructionBenchmark bench = new ReconstructionBenchmark(ReconstructionBenchmark.DEFAULT_PAIRS,
        quick && !cellsGiven ? 2 : cellsPerBlock, readBandwidth, quick && !warmupGiven ? 0 : warmup, msg -> {
          err.println("bench reconstruction: " + msg);
          err.flush();
        });
    Map<String, ReconstructionBenchmark.Point> points = bench.run();
    List<ReconstructionBenchmark.Comparison> comparisons = bench.compare(points);
    writeChart(points, comparisons, bench);
    PrintWriter out = spec.commandLine().getOut();
    if (json.enabled) {
      JsonOutput.print(out, toJson(points, comparisons, bench));
    } else {
      print(out, points, comparisons, bench);
    }
    boolean ok = points.values().stream().allMatch(ReconstructionBenchmark.Point::verified);
    return ok ? 0 : EcRepairCli.FAILED;
  }

  private void print(PrintWriter out, Map<String, ReconstructionBenchmark.Point> points,
                     List<ReconstructionBenchmark.Comparison> comparisons, ReconstructionBenchmark bench) {
    out.printf("rebuilding internal block 0 of a full group, blocks of %d MiB, reads limited to %.1f MB/s "
        + "(dfs.datanode.ec.reconstruct.read.bandwidthPerSec), after %d warm-up round(s)%n", bench.cellsPerBlock(),
        bench.readBandwidth() / 1e6, bench.warmupRounds());
    table(points, comparisons, bench.readBandwidth()).print(out);
    out.println("floor s = the code's cheapest repair's reads at the read limit through the rebuilding DataNode's "
        + "throttle, less its free first 0.5 s; '-' where the repair ran as a chain or a parallel plan, limited on "
        + "every node its values arrive at; vs peer = the RS peer's seconds / these, reads vs peer = its bytes read "
        + "/ these");
    out.println("chart: " + png.toAbsolutePath());
  }

  /** One row per repair: its time beside its floor and, for ours, beside its RS peer. */
  static Table table(Map<String, ReconstructionBenchmark.Point> points,
                     List<ReconstructionBenchmark.Comparison> comparisons, long readBandwidth) {
    Table t = new Table("policy", "rebuilt by", "route", "bytes read", "x block", "seconds", "floor s", "x floor",
        "peer", "vs peer", "reads vs peer", "MB/s rebuilt", "verified");
    for (ReconstructionBenchmark.Point p : points.values()) {
      double floor = ReconstructionBenchmark.floorSeconds(p, readBandwidth);
      ReconstructionBenchmark.Comparison c = comparisons.stream().filter(x -> x.policy().equals(p.policy()))
          .findFirst().orElse(null);
      t.row(p.policy(), p.engine().equals("hdfs") ? "HDFS (stock)" : "ec-repair plugin", p.route(), p.bytesRead(),
          String.format(Locale.ROOT, "%.2f", p.blocksRead()), String.format(Locale.ROOT, "%.3f", p.seconds()),
          Double.isNaN(floor) ? "-" : String.format(Locale.ROOT, "%.3f", floor),
          Double.isNaN(floor) || floor == 0 ? "-" : String.format(Locale.ROOT, "%.2fx", p.seconds() / floor),
          c == null ? "-" : c.baseline(), c == null ? "-" : String.format(Locale.ROOT, "%.2fx", c.speedup()),
          c == null ? "-" : String.format(Locale.ROOT, "%.2fx", c.readRatio()),
          String.format(Locale.ROOT, "%.1f", p.mbPerSec()), p.verified() ? "yes" : "NO");
    }
    return t;
  }

  private Map<String, Object> toJson(Map<String, ReconstructionBenchmark.Point> points,
                                     List<ReconstructionBenchmark.Comparison> comparisons,
                                     ReconstructionBenchmark bench) {
    List<Object> results = new ArrayList<>();
    for (ReconstructionBenchmark.Point p : points.values()) {
      io.ecrepair.layout.Policy policy = io.ecrepair.layout.Policy.parse(p.policy());
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("suite", "reconstruction");
      m.put("codec", policy.code().codec());
      m.put("k", policy.code().k());
      m.put("m", policy.code().m());
      m.put("op", "rebuild-block");
      m.put("impl", p.engine().equals("hdfs") ? "hdfs-stock" : "ec-repair-plugin");
      m.put("threads", 1);
      m.put("cellBytes", policy.cellSize());
      m.put("mbPerSec", p.mbPerSec());
      m.put("policy", p.policy());
      m.put("lostIndex", p.lostIndex());
      m.put("bytesRead", p.bytesRead());
      m.put("blockBytes", p.blockBytes());
      m.put("blocksRead", p.blocksRead());
      m.put("seconds", p.seconds());
      m.put("route", p.route());
      double floor = ReconstructionBenchmark.floorSeconds(p, bench.readBandwidth());
      m.put("floorSeconds", Double.isNaN(floor) ? null : floor);
      m.put("verified", p.verified());
      results.add(m);
    }
    List<Object> cmp = new ArrayList<>();
    for (ReconstructionBenchmark.Comparison x : comparisons) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("policy", x.policy());
      m.put("baseline", x.baseline());
      m.put("speedup", x.speedup());
      m.put("readRatio", x.readRatio());
      cmp.add(m);
    }
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("readBandwidthPerSec", bench.readBandwidth());
    j.put("warmupRounds", bench.warmupRounds());
    j.put("blockBytes", (long) bench.cellsPerBlock() << 20);
    j.put("results", results);
    j.put("comparisons", cmp);
    j.put("png", png.toAbsolutePath().toString());
    return j;
  }

  private void writeChart(Map<String, ReconstructionBenchmark.Point> points,
                          List<ReconstructionBenchmark.Comparison> comparisons, ReconstructionBenchmark bench)
      throws java.io.IOException {
    List<BarChart.Bar> bars = new ArrayList<>();
    for (ReconstructionBenchmark.Comparison x : comparisons) {
      ReconstructionBenchmark.Point ours = points.get(x.policy());
      ReconstructionBenchmark.Point base = points.get(x.baseline());
      bars.add(new BarChart.Bar(x.policy() + "\n" + String.format(Locale.ROOT, "%.2f blocks read", ours.blocksRead()),
          ours.seconds(), String.format(Locale.ROOT, "%.2f s (%.2fx)", ours.seconds(), x.speedup()), 0));
      floorBar(bars, ours, bench.readBandwidth());
      bars.add(new BarChart.Bar(x.baseline() + "\n" + String.format(Locale.ROOT, "%.2f blocks read", base.blocksRead()),
          base.seconds(), String.format(Locale.ROOT, "%.2f s", base.seconds()), 1));
      floorBar(bars, base, bench.readBandwidth());
    }
    BarChart.write(png, String.format(Locale.ROOT, "Rebuilding one %d MiB internal block, reads limited to %.1f MB/s",
        bench.cellsPerBlock(), bench.readBandwidth() / 1e6), "repair time (s)", bars,
        List.of("hadoop-ec-repair DataNode plugin", "HDFS stock reconstruction (RS)", "read-limit floor"));
  }

  /** The repair's floor beside it, where the read limit governs its reads. */
  private static void floorBar(List<BarChart.Bar> bars, ReconstructionBenchmark.Point p, long readBandwidth) {
    double floor = ReconstructionBenchmark.floorSeconds(p, readBandwidth);
    if (!Double.isNaN(floor)) {
      bars.add(new BarChart.Bar("floor", floor, String.format(Locale.ROOT, "%.2f s", floor), 2));
    }
  }
}
