package io.ecrepair.cli;

import io.ecrepair.demo.Demo;
import io.ecrepair.harness.DegradedReadProbe;
import io.ecrepair.harness.MiniClusterRepairs;
import io.ecrepair.harness.ShippedPolicies;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "demo", mixinStandardHelpOptions = true,
    description = {"The main job: an in-process HDFS (1 NameNode, n+1 DataNodes) with hadoop-ec-repair's DataNode "
        + "plugin and the shipped policies (conf/user_ec_policies.xml). Per policy: one file (a full block group "
        + "and one of half its rows), the DataNode holding internal block 0 stopped, the NameNode-driven reconstruction "
        + "waited for, every internal block compared byte for byte and the file read back.",
        "Prints per rebuilt block the bytes its repair read (and as a multiple of the block), the repair time and "
        + "whether it was verified. Clay, Butterfly and LRC are rebuilt by the plugin, RS by HDFS itself.",
        "Before the DataNode stops and right after (before reconstruction), block 0 is read through the client "
        + "FileSystem (fs.hdfs.impl): bytes fetched per degraded MiB, throughput healthy vs degraded.",
        "Last, the operator's view: one block group per policy, a DataNode stopped with HDFS's reconstruction off, "
        + "and what 'ec-repair status' and 'ec-repair verify' say about it."})
final class DemoCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--policy", split = ",",
      description = "Policies to run, by HDFS name (default: every policy of the policy file).")
  List<String> policies;

  @Option(names = "--policy-file", description = "HDFS policy file (default: conf/user_ec_policies.xml).")
  Path policyFile;

  @Option(names = "--cells-per-block", defaultValue = "2",
      description = "Block size in cells (default ${DEFAULT-VALUE}; larger blocks take longer to write).")
  int cellsPerBlock;

  @Option(names = "--timeout", defaultValue = "120", description = "Seconds to wait for a reconstruction (default ${DEFAULT-VALUE}).")
  int timeoutSeconds;

  @Option(names = "--no-agents",
      description = "Leave the DataNodes' repair agents off: every repair and degraded read is central "
          + "(the rebuilding DataNode or the client reads the code's read set).")
  boolean noAgents;

  @Mixin
  JsonOption json;

  @Override
  public Integer call() throws Exception {
    ShippedPolicies.requireMiniCluster();
    List<ErasureCodingPolicy> chosen = new ArrayList<>();
    List<ErasureCodingPolicy> shipped = ShippedPolicies.load(policyFile != null ? policyFile : ShippedPolicies.defaultPolicyFile());
    if (policies == null) {
      chosen.addAll(shipped);
    } else {
      for (String name : policies) {
        chosen.add(shipped.stream().filter(p -> p.getName().equalsIgnoreCase(name)).findFirst()
            .orElseGet(() -> ShippedPolicies.byName(name)));
      }
    }
    if (timeoutSeconds < 1) {
      throw new IllegalArgumentException("--timeout must be at least 1 second");
    }
    PrintWriter err = spec.commandLine().getErr();
    LogFile.divert("demo", err);
    Demo demo = new Demo(chosen, cellsPerBlock, timeoutSeconds * 1000L, !noAgents, msg -> {
      err.println("demo: " + msg);
      err.flush();
    });
    Demo.Result result = demo.run();
    List<MiniClusterRepairs.PolicyRun> runs = result.runs();
    MiniClusterRepairs.OperatorView view = result.operatorView();
    PrintWriter out = spec.commandLine().getOut();
    if (json.enabled) {
      Map<String, Object> j = toJson(runs, demo.dataNodes());
      Map<String, Object> v = new LinkedHashMap<>();
      v.put("stoppedDataNode", view.stoppedDataNode());
      v.put("status", StatusCommand.json(view.path(), view.status()));
      v.put("verify", VerifyCommand.json(view.path(), view.files(), view.verify()));
      j.put("operatorView", v);
      JsonOutput.print(out, j);
    } else {
      print(out, runs);
      out.printf("Operator's view: DataNode %s stopped, HDFS's reconstruction off; ec-repair status %s, then verify:%n",
          view.stoppedDataNode(), view.path());
      StatusCommand.print(out, view.path(), view.status(), StatusCommand.Blocks.NONE);
      out.println();
      VerifyCommand.print(out, view.path(), view.files(), view.verify(), false);
    }
    boolean verified = runs.stream().allMatch(MiniClusterRepairs.PolicyRun::verified) && !VerifyCommand.failed(view.verify());
    return verified ? 0 : EcRepairCli.FAILED;
  }

  private static void print(PrintWriter out, List<MiniClusterRepairs.PolicyRun> runs) {
    for (MiniClusterRepairs.PolicyRun run : runs) {
      out.printf("%s: file of %d bytes, blocks of %d bytes; %s%n", run.policy(), run.fileLength(), run.blockSize(),
          run.fileVerified() ? "read back whole after reconstruction: equal" : "READ BACK DIFFERS");
      Table t = new Table("group", "lost block", "rebuilt by", "route", "bytes read", "x block",
          "most into one node", "repair s", "verified");
      for (MiniClusterRepairs.Repair r : run.repairs()) {
        t.row(r.group(), r.heldByStopped() ? r.lostIndex() : r.lostIndex() + " (not lost)",
            r.engine().equals("hdfs") ? "HDFS (stock)" : "ec-repair plugin", r.engine().equals("hdfs") ? "central"
                : r.route(), r.bytesRead(), String.format(Locale.ROOT, "%.2f", r.blocksRead()),
            String.format(Locale.ROOT, "%.2f blocks", r.mostReceivedBlocks()),
            String.format(Locale.ROOT, "%.3f", r.seconds()), r.verified() ? "yes" : "NO");
      }
      t.print(out);
      if (!run.degradedReads().isEmpty()) {
        Table d = new Table("degraded read of", "served by", "bytes returned", "bytes fetched", "per degraded MiB",
            "agent reads", "fallbacks", "healthy MB/s", "degraded MB/s", "verified");
        for (MiniClusterRepairs.DegradedRead r : run.degradedReads()) {
          DegradedReadProbe.PathFigures f = r.degraded().stream();
          d.row(r.blocks(), servedBy(r.strategy()), r.degraded().bytesReturned(), r.degraded().bytesFetched(),
              String.format(Locale.ROOT, "%.2f MiB", r.degraded().fetchedPerReturned()),
              f.agentReads(), f.agentFallbacks(),
              String.format(Locale.ROOT, "%.1f", r.healthy().mbPerSec()),
              String.format(Locale.ROOT, "%.1f", r.degraded().mbPerSec()), r.verified() ? "yes" : "NO");
        }
        d.print(out);
      }
      out.println();
    }
  }

  /** Who served a degraded read, by its strategy. */
  private static String servedBy(String strategy) {
    return switch (strategy) {
      case "stock" -> "HDFS (stock)";
      case "fetch" -> "ec-repair client";
      default -> "agents (" + strategy + ")";
    };
  }

  private static Map<String, Object> toJson(List<MiniClusterRepairs.PolicyRun> runs, int dataNodes) {
    List<Object> policies = new ArrayList<>();
    for (MiniClusterRepairs.PolicyRun run : runs) {
      List<Object> repairs = new ArrayList<>();
      for (MiniClusterRepairs.Repair r : run.repairs()) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("lostIndex", r.lostIndex());
        m.put("group", r.group());
        m.put("engine", r.engine());
        m.put("route", r.route());
        m.put("mostReceivedBytes", r.mostReceived());
        m.put("bytesRead", r.bytesRead());
        m.put("blockBytes", r.blockBytes());
        m.put("blocksRead", r.blocksRead());
        m.put("seconds", r.seconds());
        m.put("verified", r.verified());
        m.put("heldByStoppedDataNode", r.heldByStopped());
        repairs.add(m);
      }
      Map<String, Object> p = new LinkedHashMap<>();
      p.put("policy", run.policy());
      p.put("fileLength", run.fileLength());
      p.put("blockSize", run.blockSize());
      p.put("fileVerified", run.fileVerified());
      p.put("repairs", repairs);
      List<Object> reads = new ArrayList<>();
      for (MiniClusterRepairs.DegradedRead r : run.degradedReads()) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("blocks", r.blocks());
        m.put("path", r.path());
        m.put("strategy", r.strategy());
        m.put("bytesFetched", r.degraded().bytesFetched());
        m.put("bytesReturned", r.degraded().bytesReturned());
        m.put("seconds", r.degraded().seconds());
        m.put("verified", r.verified());
        m.put("fetchedPerReturned", r.degraded().fetchedPerReturned());
        m.put("cellsRebuilt", r.degraded().stream().cellsRebuilt());
        m.put("agentReads", r.degraded().stream().agentReads());
        m.put("bytesFromAgents", r.degraded().stream().bytesFromAgents());
        m.put("agentFallbacks", r.degraded().stream().agentFallbacks());
        m.put("healthyBytesFetched", r.healthy().bytesFetched());
        m.put("healthySeconds", r.healthy().seconds());
        reads.add(m);
      }
      p.put("degradedReads", reads);
      policies.add(p);
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("dataNodes", dataNodes);
    m.put("policies", policies);
    return m;
  }
}
