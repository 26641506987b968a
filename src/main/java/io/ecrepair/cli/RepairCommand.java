package io.ecrepair.cli;

import io.ecrepair.gf.RegionCoders;
import io.ecrepair.layout.StripedBlockRepairer;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

@Command(name = "repair", mixinStandardHelpOptions = true,
    description = {"Rebuild internal block I of every block group of an 'encode' directory, reading as little as the "
        + "code allows, and report the byte ranges read from each helper block.",
        "Strategies: centralized (the whole repair graph runs in this process)."})
final class RepairCommand implements Callable<Integer> {
  static final List<String> STRATEGIES = List.of("centralized");

  @Spec
  CommandSpec spec;

  @Option(names = "--input", required = true, description = "A directory written by 'ec-repair encode'.")
  Path input;

  @Option(names = "--lost", required = true, split = ",",
      description = "The internal block index to rebuild, or several (e.g. 2,3) to rebuild together.")
  List<Integer> lost;

  @Option(names = "--strategy", defaultValue = "centralized", description = "Repair strategy (default ${DEFAULT-VALUE}).")
  String strategy;

  @Option(names = "--force", description = "Rebuild and replace block files that exist.")
  boolean force;

  @Mixin
  JsonOption json;

  @Override
  public Integer call() throws Exception {
    if (!STRATEGIES.contains(strategy)) {
      throw new IllegalArgumentException("unknown --strategy '" + strategy + "' (available: " + String.join(", ", STRATEGIES) + ")");
    }
    RegionCoders.requireNativeIfConfigured();
    StripedBlockRepairer.Result r = new StripedBlockRepairer(RegionCoders.best())
        .repair(input, lost.stream().mapToInt(Integer::intValue).toArray(), force, x -> { });
    PrintWriter out = spec.commandLine().getOut();
    if (json.enabled) {
      Map<String, Object> j = new LinkedHashMap<>();
      j.put("policy", r.manifest().policy());
      j.put("lost", r.lost().length == 1 ? (Object) r.lost()[0] : r.lost());
      j.put("strategy", strategy);
      j.put("bytesRead", r.bytesRead());
      j.put("lostBytes", r.lostBytes());
      List<Map<String, Object>> groups = new ArrayList<>();
      for (StripedBlockRepairer.GroupReport g : r.groups()) {
        Map<String, Object> gj = new LinkedHashMap<>();
        gj.put("group", g.group());
        gj.put("bytesRead", g.bytesRead());
        gj.put("reads", StripedBlockRepairer.readsAsJson(g.reads()));
        groups.add(gj);
      }
      j.put("groups", groups);
      JsonOutput.print(out, j);
      return 0;
    }
    out.printf("%s: rebuilt internal block(s) %s of %d group(s): %d bytes, read %d bytes (%.2f x the lost bytes)%n",
        r.manifest().policy(), java.util.Arrays.toString(r.lost()), r.groups().size(), r.lostBytes(), r.bytesRead(),
        r.lostBytes() == 0 ? 0.0 : (double) r.bytesRead() / r.lostBytes());
    Table t = new Table("group", "helper", "bytes read", "ranges");
    for (StripedBlockRepairer.GroupReport g : r.groups()) {
      g.reads().forEach((helper, ranges) -> t.row(g.group(), helper, ranges.total(), ranges.ranges().size()));
    }
    t.print(out);
    return 0;
  }
}
