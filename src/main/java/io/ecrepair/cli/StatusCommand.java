package io.ecrepair.cli;

import io.ecrepair.hdfs.admin.ClusterStatus;
import java.io.PrintWriter;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "status", mixinStandardHelpOptions = true,
    description = {"Show the erasure-coded block groups under PATH on a live cluster: policy, internal blocks with their "
        + "DataNodes and racks, what is missing or corrupt, and what rebuilding it reads with our repair and with "
        + "HDFS's own reconstruction.",
        "Uses the cluster's configuration as 'hdfs' does ($HADOOP_CONF_DIR), and 'hdfs fsck' to tell corrupt "
            + "replicas from missing ones."})
final class StatusCommand implements Callable<Integer> {
  private static final double MIB = 1 << 20;

  @Spec
  CommandSpec spec;

  @Option(names = "--blocks", description = "List every internal block of every group (default: of groups that need repair).")
  boolean allBlocks;

  @Mixin
  ClusterOptions cluster;

  @Mixin
  JsonOption json;

  @Override
  public Integer call() throws Exception {
    ClusterOptions.Target target = cluster.open();
    Configuration conf = target.conf();
    Path p = target.path();
    DistributedFileSystem fs = target.fs();
    String path = target.name();
    ClusterStatus.Report report = new ClusterStatus(fs, conf).scan(p);
    PrintWriter out = spec.commandLine().getOut();
    if (json.enabled) {
      JsonOutput.print(out, json(path, report));
      return 0;
    }
    print(out, path, report, allBlocks ? Blocks.ALL : Blocks.NEEDING_REPAIR);
    return 0;
  }

  static Map<String, Object> json(String path, ClusterStatus.Report report) {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("path", path);
    j.put("erasureCodedFiles", report.erasureCodedFiles());
    j.put("replicatedFiles", report.replicatedFiles());
    j.put("blockGroups", report.groups().size());
    j.put("groupsNeedingRepair", report.groups().stream().filter(g -> !g.healthy()).count());
    j.put("replicaStatesError", report.replicaStatesError());
    j.put("groups", report.groups());
    return j;
  }

  /** Which internal blocks the text report lists. */
  enum Blocks { ALL, NEEDING_REPAIR, NONE }

  /** The text report: a line of totals, a table of block groups, one of internal blocks. */
  static void print(PrintWriter out, String path, ClusterStatus.Report report, Blocks blocks) {
    long needRepair = report.groups().stream().filter(g -> !g.healthy()).count();
    out.printf("%s: %d erasure-coded file(s), %d block group(s), %d need repair%s%n", path,
        report.erasureCodedFiles(), report.groups().size(), needRepair,
        report.replicatedFiles() > 0 ? " (" + report.replicatedFiles() + " replicated file(s) not shown)" : "");
    if (report.replicaStatesError() != null) {
      out.println("note: corrupt replicas are counted as missing: " + report.replicaStatesError());
    }
    if (report.groups().isEmpty()) {
      return;
    }
    Table groups = new Table("file", "group", "policy", "MiB", "blocks", "lost", "ours MiB", "hdfs MiB", "hdfs/ours",
        "note");
    for (ClusterStatus.Group g : report.groups()) {
      long present = g.units().stream().filter(u -> !u.state().equals("missing") && !u.state().equals("corrupt")).count();
      groups.row(g.file(), g.group(), g.policy(), String.format("%.1f", g.length() / MIB),
          present + "/" + g.units().size(), g.healthy() ? "-" : join(g.lost()), mib(g.ourBytes()), mib(g.hdfsBytes()),
          g.ourBytes() == null || g.hdfsBytes() == null || g.ourBytes() == 0 ? "-"
              : String.format("%.2fx", (double) g.hdfsBytes() / g.ourBytes()), g.note());
    }
    groups.print(out);
    List<ClusterStatus.Group> detailed = report.groups().stream()
        .filter(g -> blocks == Blocks.ALL || (blocks == Blocks.NEEDING_REPAIR && !g.healthy())).toList();
    if (!detailed.isEmpty()) {
      out.println();
      Table units = new Table("file", "group", "block", "index", "state", "datanode", "rack").leftAligned();
      for (ClusterStatus.Group g : detailed) {
        for (ClusterStatus.Unit u : g.units()) {
          units.row(g.file(), g.group(), g.block(), u.index(), u.state(), u.datanode(), u.rack());
        }
      }
      units.print(out);
    }
  }

  private static String mib(Long bytes) {
    return bytes == null ? "-" : String.format("%.2f", bytes / MIB);
  }

  private static String join(int[] units) {
    return String.join(",", Arrays.stream(units).mapToObj(Integer::toString).toList());
  }
}
