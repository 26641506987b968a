package io.ecrepair.cli;

import io.ecrepair.bench.ReadChoiceBenchmark;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "read-choice", mixinStandardHelpOptions = true,
    description = "FastDR's enumerated greedy (EG) helper choice for degraded reads that span lost and healthy "
        + "blocks, under random per-node costs (1, 2 or 4 per byte): its search time beside the exhaustive "
        + "search's, its read time against the optimum, and the code's own choice's read time against it.")
final class ReadChoiceBenchCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--policy", split = ",",
      defaultValue = "RS-6-3-1024k,RS-10-4-1024k,LRC-L2-12-4-1024k,CLAY-4-2-64k,CLAY-10-4-1024k",
      description = "Policies (default ${DEFAULT-VALUE}).")
  List<String> policies;

  @Option(names = "--span", defaultValue = "6", description = "Data blocks the read spans (default ${DEFAULT-VALUE}).")
  int span;

  @Option(names = "--trials", defaultValue = "50", description = "Random cost vectors per case (default ${DEFAULT-VALUE}).")
  int trials;

  @Option(names = "--seed", defaultValue = "1", description = "Seed of the costs (default ${DEFAULT-VALUE}).")
  long seed;

  @Mixin
  JsonOption json;

  @Override
  public Integer call() {
    if (span < 1 || trials < 1) {
      throw new IllegalArgumentException("--span and --trials must be at least 1");
    }
    PrintWriter err = spec.commandLine().getErr();
    List<ReadChoiceBenchmark.Result> results = ReadChoiceBenchmark.run(policies, span, trials, seed,
        line -> err.println("bench read-choice: " + line));
    PrintWriter out = spec.commandLine().getOut();
    if (json.enabled) {
      List<Map<String, Object>> rows = new ArrayList<>();
      for (ReadChoiceBenchmark.Result r : results) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("suite", "read-choice");
        m.put("policy", r.policy());
        m.put("lost", r.lost());
        m.put("span", r.span());
        m.put("trials", r.trials());
        m.put("egMicros", r.egMicros());
        m.put("exhaustiveMillis", Double.isNaN(r.exhaustiveMillis()) ? null : r.exhaustiveMillis());
        m.put("egOverOptimal", Double.isNaN(r.egOverOptimal()) ? null : r.egOverOptimal());
        m.put("basicOverEg", r.basicOverEg());
        m.put("searchSpace", r.searchSpace());
        rows.add(m);
      }
      JsonOutput.print(out, Map.of("results", rows));
      return 0;
    }
    Table t = new Table("policy", "lost", "span", "EG us", "exhaustive ms", "EG / optimum", "code's choice / EG",
        "search space");
    for (ReadChoiceBenchmark.Result r : results) {
      t.row(r.policy(), java.util.Arrays.toString(r.lost()), r.span(), String.format("%.0f", r.egMicros()),
          Double.isNaN(r.exhaustiveMillis()) ? "-" : String.format("%.1f", r.exhaustiveMillis()),
          Double.isNaN(r.egOverOptimal()) ? "-" : String.format("%.3f", r.egOverOptimal()),
          String.format("%.2fx", r.basicOverEg()), r.searchSpace());
    }
    t.print(out);
    out.println("read times: the slowest node's cost x bytes (nodes read in parallel); EG and exhaustive over every "
        + "survivor (d = n - lost); exhaustive skipped past " + ReadChoiceBenchmark.MAX_COMBINATIONS + " combinations. "
        + "EG's search time stands beside its peer, the exhaustive search's; its read time beside its floor, the "
        + "optimum the exhaustive search finds (EG / optimum, 1.000 = on the floor; '-' where the search space is "
        + "too large to find it); the code's own choice blind to cost is the peer of EG's read time.");
    return 0;
  }
}
