package io.ecrepair.cli;

import io.ecrepair.bench.BenchResult;
import io.ecrepair.bench.CoderBenchmark;
import io.ecrepair.gf.RegionCoders;
import io.ecrepair.layout.Policy;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

@Command(name = "coder", mixinStandardHelpOptions = true,
    description = {"Encode, decode and repair throughput of our native ISA-L path, our Java path, Hadoop's rs_java "
        + "and raw ISA-L (isal-bench), one after another in one run, with ratios.",
        "MB = 10^6 bytes: of data for encode and decode (decode rebuilds 1, 2, ... lost data units, up to as many as the code always survives: m for MDS codes), of rebuilt data for "
        + "repair (one lost data block, with the code's cheapest repair).",
        "Each non-RS policy is measured beside RS with the same (k, m) and cell."})
final class CoderBenchCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--policy", split = ",", defaultValue = "RS-6-3-1024k,RS-10-4-1024k",
      description = "Policies to measure (default ${DEFAULT-VALUE}).")
  List<String> policies;

  @Option(names = "--cell", description = "Cell size in bytes, overriding the policies'.")
  Integer cell;

  @Option(names = "--op", split = ",", defaultValue = "encode,decode,repair",
      description = "encode, decode, repair (default all).")
  List<String> ops;

  @Option(names = "--threads", split = ",",
      description = "Thread counts (default: 1 and all cores).")
  List<Integer> threads;

  @Option(names = "--seconds", defaultValue = "1.0", description = "Measured time per point (default ${DEFAULT-VALUE}).")
  double seconds;

  @Option(names = "--quick", description = "A short run: 0.2 s per point, RS-10-4 only unless --policy is given.")
  boolean quick;

  @Mixin
  JsonOption json;

  @Override
  public Integer call() throws Exception {
    RegionCoders.requireNativeIfConfigured();
    List<Policy> parsed = new ArrayList<>();
    boolean policyGiven = spec.commandLine().getParseResult().hasMatchedOption("--policy");
    for (String p : quick && !policyGiven ? List.of("RS-10-4-1024k") : policies) {
      Policy policy = Policy.parse(p);
      parsed.add(cell == null ? policy : policy.withCellSize(cell));
    }
    for (String op : ops) {
      if (!CoderBenchmark.OPS.contains(op)) {
        throw new IllegalArgumentException("unknown --op '" + op + "' (" + String.join(", ", CoderBenchmark.OPS) + ")");
      }
    }
    parsed = withRsBaselines(parsed);
    if (threads == null) {
      int cores = Runtime.getRuntime().availableProcessors();
      threads = cores > 1 ? List.of(1, cores) : List.of(1);
    }
    if (threads.stream().anyMatch(t -> t < 1 || t > 256)) {
      throw new IllegalArgumentException("--threads must be between 1 and 256");
    }
    double measured = quick ? 0.2 : seconds;
    if (!(measured > 0)) {
      throw new IllegalArgumentException("--seconds must be positive");
    }
    CoderBenchmark bench = new CoderBenchmark(
        new CoderBenchmark.Config(parsed, ops, threads, measured, Math.min(0.5, measured)));
    PrintWriter err = spec.commandLine().getErr();
    LogFile.divert("bench coder", err);
    if (!bench.hasRawIsal()) {
      err.println("ec-repair bench coder: isal-bench not found (build native/ with Maven); the isal-c column is empty");
    }
    if (!RegionCoders.nativeAvailable()) {
      err.println("ec-repair bench coder: native library not loaded (" + RegionCoders.nativeUnavailableReason()
          + "); the native column is empty");
    }
    List<BenchResult> results;
    try (ProgressLine progress = new ProgressLine(err, "bench coder", 1)) {
      results = bench.run(progress::status);
    }
    PrintWriter out = spec.commandLine().getOut();
    List<Map<String, Object>> ratios = ratios(results);
    if (json.enabled) {
      Map<String, Object> j = new LinkedHashMap<>();
      j.put("results", results);
      j.put("ratios", ratios);
      j.put("note", NOTE);
      JsonOutput.print(out, j);
    } else {
      Table t = new Table("code", "op", "lost", "threads", "native", "java", "hadoop rs_java", "isal-c",
          "native/isal-c", "native/rs_java", "java/rs_java", "native/RS native");
      for (Map<String, Object> r : ratios) {
        t.row(r.get("code"), r.get("op"), r.get("erasures"), r.get("threads"), mb(r.get("native")), mb(r.get("java")),
            mb(r.get("hadoop-rs_java")), mb(r.get("isal-c")), pct(r.get("nativeVsIsalC")),
            times(r.get("nativeVsHadoopRsJava")), times(r.get("javaVsHadoopRsJava")), pct(r.get("nativeVsRsNative")));
      }
      out.println("Throughput in MB/s (10^6 bytes/s) of data (encode, decode) or of rebuilt data (repair), cell "
          + parsed.get(0).cellSize() + " bytes:");
      t.print(out);
      out.println(NOTE);
    }
    return 0;
  }

  /** What each column is measured against, and why there is no floor column. */
  static final String NOTE = "peers: isal-c = raw ISA-L (the same arithmetic in C, no JVM), hadoop rs_java = "
      + "Hadoop's own Java coder, RS native = our native RS of the same (k, m) for another code; repair has none of "
      + "the first two (they decode whole stripes: their nearest figure is decode with 1 lost, whose MB count the k "
      + "data cells, a repair's the one rebuilt cell). No floor: a point's stripes stay in the CPU caches from one "
      + "operation to the next, so main memory's bandwidth does not bound these figures, and this bench does not "
      + "measure the caches'.";

  /** Puts RS with the same (k, m) and cell before every other code, once. */
  static List<Policy> withRsBaselines(List<Policy> policies) {
    java.util.LinkedHashSet<Policy> all = new java.util.LinkedHashSet<>();
    for (Policy p : policies) {
      if (!p.code().codec().equals("rs")) {
        all.add(new Policy(new io.ecrepair.codes.CodeSpec("rs", p.code().k(), p.code().m()), p.cellSize()));
      }
      all.add(p);
    }
    return new ArrayList<>(all);
  }

  /** One row per (code, op, erasures, threads) with every implementation side by side. */
  static List<Map<String, Object>> ratios(List<BenchResult> results) {
    Map<String, Map<String, Object>> rows = new LinkedHashMap<>();
    for (BenchResult r : results) {
      String key = r.codec() + r.k() + "," + r.m() + r.op() + r.erasures() + "/" + r.threads();
      Map<String, Object> row = rows.computeIfAbsent(key, x -> {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("code", r.codec().toUpperCase() + "(" + r.k() + "," + r.m() + ")");
        m.put("op", r.op());
        m.put("erasures", r.erasures());
        m.put("threads", r.threads());
        m.put("kmKey", r.k() + "," + r.m());
        return m;
      });
      row.put(r.impl(), r.mbPerSec());
    }
    for (Map<String, Object> row : rows.values()) {
      String rsKey = "rs" + row.get("kmKey") + row.get("op") + row.get("erasures") + "/" + row.get("threads");
      Map<String, Object> rs = rows.get(rsKey);
      row.put("nativeVsRsNative", rs == null || row.get("code").toString().startsWith("RS(") ? null
          : ratio(row.get("native"), rs.get("native")));
      row.remove("kmKey");
      row.put("nativeVsIsalC", ratio(row.get("native"), row.get(CoderBenchmark.ISAL_C)));
      row.put("nativeVsHadoopRsJava", ratio(row.get("native"), row.get("hadoop-rs_java")));
      row.put("javaVsHadoopRsJava", ratio(row.get("java"), row.get("hadoop-rs_java")));
    }
    return new ArrayList<>(rows.values());
  }

  private static Double ratio(Object a, Object b) {
    return a == null || b == null ? null : (Double) a / (Double) b;
  }

  private static String mb(Object v) {
    return v == null ? null : String.format("%.0f", (Double) v);
  }

  private static String pct(Object v) {
    return v == null ? null : String.format("%.0f%%", 100 * (Double) v);
  }

  private static String times(Object v) {
    return Objects.isNull(v) ? null : String.format("%.1fx", (Double) v);
  }
}
