package io.ecrepair.cli;

import io.ecrepair.bench.BarChart;
import io.ecrepair.bench.DegradedReadBenchmark;
import io.ecrepair.harness.DegradedReadProbe;
import io.ecrepair.harness.MiniClusterRepairs;
import io.ecrepair.harness.ShippedPolicies;
import io.ecrepair.layout.Policy;
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

@Command(name = "degraded-read", mixinStandardHelpOptions = true,
    description = {"Reading a lost internal block on an in-process HDFS: CLAY-10-4, LRC(12,2,2) and BUTTERFLY-6-2 "
        + "through hadoop-ec-repair's client FileSystem beside RS of the same (k, m) through HDFS's own client.",
        "Each policy writes one full block group; the cells of one data block (--lost, default 0) are read with one "
        + "positional read per cell, once while readable and once right after its DataNode stopped (no "
        + "reconstruction runs). Prints bytes fetched per degraded MiB and throughput healthy vs degraded "
        + "(or --json), and writes a PNG bar chart.",
        "Each figure stands beside its peer (RS through HDFS's client) and, for bytes fetched, its floor (what the "
            + "read's path must fetch at least); the times have no floor: the in-process cluster has no link rate."})
final class DegradedReadBenchCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--cells-per-block", defaultValue = "8",
      description = "Block size in cells (1 MiB each; default ${DEFAULT-VALUE}).")
  int cellsPerBlock;

  @Option(names = "--lost", defaultValue = "0",
      description = "The data block read while lost (default ${DEFAULT-VALUE}: Clay's worst-placed block, whose "
          + "sub-chunks come in the shortest runs).")
  int lostIndex;

  @Option(names = "--png", defaultValue = "ec-repair-bench-degraded-read.png",
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
    PrintWriter err = spec.commandLine().getErr();
    LogFile.divert("bench degraded-read", err);
    DegradedReadBenchmark bench = new DegradedReadBenchmark(DegradedReadBenchmark.DEFAULT_PAIRS,
        quick && !cellsGiven ? 2 : cellsPerBlock, lostIndex, msg -> {
          err.println("bench degraded-read: " + msg);
          err.flush();
        });
    Map<String, DegradedReadBenchmark.Point> points = bench.run();
    List<DegradedReadBenchmark.Comparison> comparisons = bench.compare(points);
    writeChart(points, comparisons);
    PrintWriter out = spec.commandLine().getOut();
    if (json.enabled) {
      JsonOutput.print(out, toJson(points, comparisons, bench));
    } else {
      print(out, points, comparisons, bench);
    }
    return points.values().stream().allMatch(p -> p.read().verified()) ? 0 : EcRepairCli.FAILED;
  }

  private static String client(MiniClusterRepairs.DegradedRead r) {
    return r.path().equals("hdfs") ? "HDFS (stock client)" : "ec-repair client";
  }

  private void print(PrintWriter out, Map<String, DegradedReadBenchmark.Point> points,
                     List<DegradedReadBenchmark.Comparison> comparisons, DegradedReadBenchmark bench) {
    out.printf("reading internal block %d of a full group (blocks of %d MiB, one pread per cell), healthy and "
        + "with its DataNode stopped%n", bench.lostIndex(), bench.cellsPerBlock());
    table(points, comparisons, bench.lostIndex()).print(out);
    out.println("floor = the least the read's path must fetch per degraded MiB: the code's cheapest repair read of "
        + "the block where the client fetches the read set, k where HDFS decodes, 1 where the helpers' agents send "
        + "the finished cells; vs peer = degraded MB/s / the RS peer's through HDFS's client, fetched vs peer = the "
        + "peer's bytes fetched / these. No time floor: this cluster runs in one process over loopback, with no "
        + "link rate to bound a read's time.");
    out.println("chart: " + png.toAbsolutePath());
  }

  /** One row per policy: bytes fetched beside the path's floor, throughput beside the RS peer's. */
  static Table table(Map<String, DegradedReadBenchmark.Point> points,
                     List<DegradedReadBenchmark.Comparison> comparisons, int lostIndex) {
    Table t = new Table("policy", "read by", "strategy", "bytes returned", "bytes fetched", "per degraded MiB",
        "floor", "healthy MB/s", "degraded MB/s", "peer", "vs peer", "fetched vs peer", "verified");
    for (DegradedReadBenchmark.Point p : points.values()) {
      MiniClusterRepairs.DegradedRead r = p.read();
      DegradedReadBenchmark.Comparison c = comparisons.stream().filter(x -> x.policy().equals(p.policy()))
          .findFirst().orElse(null);
      t.row(p.policy(), client(r), r.strategy(), r.degraded().bytesReturned(), r.degraded().bytesFetched(),
          String.format(Locale.ROOT, "%.2f MiB", r.degraded().fetchedPerReturned()),
          String.format(Locale.ROOT, "%.2f MiB", DegradedReadBenchmark.fetchFloor(p.policy(), lostIndex, r.strategy())),
          String.format(Locale.ROOT, "%.1f", r.healthy().mbPerSec()),
          String.format(Locale.ROOT, "%.1f", r.degraded().mbPerSec()), c == null ? "-" : c.baseline(),
          c == null ? "-" : String.format(Locale.ROOT, "%.2fx", c.speedup()),
          c == null ? "-" : String.format(Locale.ROOT, "%.2fx", 1 / c.fetchedRatio()), r.verified() ? "yes" : "NO");
    }
    return t;
  }

  private Map<String, Object> toJson(Map<String, DegradedReadBenchmark.Point> points,
                                     List<DegradedReadBenchmark.Comparison> comparisons,
                                     DegradedReadBenchmark bench) {
    List<Object> results = new ArrayList<>();
    for (DegradedReadBenchmark.Point p : points.values()) {
      Policy policy = Policy.parse(p.policy());
      MiniClusterRepairs.DegradedRead r = p.read();
      for (String op : List.of("healthy-read", "degraded-read")) {
        DegradedReadProbe.Result x = op.equals("healthy-read") ? r.healthy() : r.degraded();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("suite", "degraded-read");
        m.put("codec", policy.code().codec());
        m.put("k", policy.code().k());
        m.put("m", policy.code().m());
        m.put("op", op);
        m.put("impl", r.path().equals("hdfs") ? "hdfs-stock" : "ec-repair-client");
        m.put("threads", 1);
        m.put("cellBytes", policy.cellSize());
        m.put("mbPerSec", x.mbPerSec());
        m.put("policy", p.policy());
        m.put("bytesFetched", x.bytesFetched());
        m.put("bytesReturned", x.bytesReturned());
        m.put("fetchedPerReturned", x.fetchedPerReturned());
        if (op.equals("degraded-read")) {
          m.put("strategy", r.strategy());
          m.put("fetchedPerReturnedFloor", DegradedReadBenchmark.fetchFloor(p.policy(), bench.lostIndex(),
              r.strategy()));
        }
        m.put("seconds", x.seconds());
        m.put("cellsRebuilt", x.stream().cellsRebuilt());
        m.put("verified", x.equal() && r.verified());
        results.add(m);
      }
    }
    List<Object> cmp = new ArrayList<>();
    for (DegradedReadBenchmark.Comparison x : comparisons) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("policy", x.policy());
      m.put("baseline", x.baseline());
      m.put("speedup", x.speedup());
      m.put("fetchedRatio", x.fetchedRatio());
      cmp.add(m);
    }
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("blockBytes", (long) bench.cellsPerBlock() << 20);
    j.put("lostIndex", bench.lostIndex());
    j.put("results", results);
    j.put("comparisons", cmp);
    j.put("png", png.toAbsolutePath().toString());
    return j;
  }

  private void writeChart(Map<String, DegradedReadBenchmark.Point> points,
                          List<DegradedReadBenchmark.Comparison> comparisons) throws java.io.IOException {
    List<BarChart.Bar> bars = new ArrayList<>();
    for (DegradedReadBenchmark.Comparison x : comparisons) {
      for (String name : List.of(x.policy(), x.baseline())) {
        MiniClusterRepairs.DegradedRead r = points.get(name).read();
        bars.add(new BarChart.Bar(name + "\n" + String.format(Locale.ROOT, "%.2f MiB fetched/MiB",
            r.degraded().fetchedPerReturned()), r.degraded().mbPerSec(),
            String.format(Locale.ROOT, "%.1f MB/s", r.degraded().mbPerSec()), name.equals(x.policy()) ? 0 : 1));
      }
    }
    BarChart.write(png, "Degraded read of a lost internal block (one pread per cell)", "degraded read MB/s", bars,
        List.of("hadoop-ec-repair client FileSystem", "HDFS stock client (RS)"));
  }
}
