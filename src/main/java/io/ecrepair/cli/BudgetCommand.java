package io.ecrepair.cli;

import io.ecrepair.hdfs.admin.BudgetAdmin;
import io.ecrepair.hdfs.transfer.RepairBudget;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.hadoop.util.StringUtils.TraditionalBinaryPrefix;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

@Command(name = "budget", mixinStandardHelpOptions = true,
    description = {"Show or change the repair bandwidth of live DataNodes, without a restart: the budget every "
        + "repair of ours takes its bytes from (central reads, ranges served, values of chains and parallel plans, "
        + "writes to targets), in and out, per DataNode. Degraded reads for clients are not repair and never wait "
        + "on it.",
        "Reaches each DataNode JVM through JMX: --jmx HOST:PORT (its remote JMX port) or --pid PID (the local JMX "
            + "agent of a DataNode on this host, as its user). A change holds until the DataNode restarts; its configuration "
            + "(ecrepair.datanode.repair.bandwidth.in/out) applies again then."})
final class BudgetCommand implements Callable<Integer> {
  private static final double MIB = 1 << 20;

  @Spec
  CommandSpec spec;

  @Option(names = "--jmx", split = ",", paramLabel = "HOST:PORT",
      description = "JMX addresses of DataNode JVMs (host:port of the RMI registry, or a service:jmx: URL).")
  List<String> jmx = new ArrayList<>();

  @Option(names = "--pid", split = ",", description = "Process ids of DataNode JVMs on this host.")
  List<Long> pids = new ArrayList<>();

  @Option(names = "--in", paramLabel = "RATE", description = "New inbound limit in bytes per second, with an "
      + "optional k, m or g (binary): 50m = 50 MiB/s; 1k to 1t, or 0 = unlimited. Omitted: unchanged.")
  String in;

  @Option(names = "--out", paramLabel = "RATE", description = "New outbound limit, as --in.")
  String out;

  @Option(names = "--datanode", paramLabel = "HOST:PORT", description = "Only this DataNode (its data transfer "
      + "address) among those a JVM runs.")
  String datanode;

  @Option(names = "--user", description = "JMX user, when the JMX port authenticates.")
  String user;

  @Option(names = "--password-file", description = "File whose first line is the JMX user's password.")
  Path passwordFile;

  @Mixin
  JsonOption json;

  @Override
  public Integer call() throws Exception {
    if (jmx.isEmpty() && pids.isEmpty()) {
      throw new ParameterException(spec.commandLine(), "say which DataNodes: --jmx HOST:PORT or --pid PID");
    }
    Long newIn = rate("--in", in);
    Long newOut = rate("--out", out);
    String password = null;
    if (user != null) {
      if (passwordFile == null) {
        throw new ParameterException(spec.commandLine(), "--user needs --password-file");
      }
      password = Files.readAllLines(passwordFile, StandardCharsets.UTF_8).stream().findFirst().orElse("");
    }
    List<String> targets = new ArrayList<>(jmx);
    pids.forEach(p -> targets.add("pid " + p));
    List<Map<String, Object>> rows = new ArrayList<>();
    for (String t : targets) {
      try (BudgetAdmin admin = t.startsWith("pid ") ? BudgetAdmin.attach(Long.parseLong(t.substring(4)))
          : BudgetAdmin.connect(t, user, password)) {
        Map<String, BudgetAdmin.Budget> before = new LinkedHashMap<>();
        admin.read().forEach(b -> before.put(b.datanode(), b));
        List<BudgetAdmin.Budget> now = newIn == null && newOut == null ? admin.read()
            : admin.set(newIn, newOut, d -> datanode == null || d.equals(datanode));
        for (BudgetAdmin.Budget b : now) {
          if (datanode != null && !b.datanode().equals(datanode)) {
            continue;
          }
          Map<String, Object> r = new LinkedHashMap<>();
          r.put("jmx", t);
          r.put("datanode", b.datanode());
          BudgetAdmin.Budget was = before.getOrDefault(b.datanode(), b);
          r.put("inBytesPerSecondBefore", was.inBytesPerSecond());
          r.put("outBytesPerSecondBefore", was.outBytesPerSecond());
          r.put("inBytesPerSecond", b.inBytesPerSecond());
          r.put("outBytesPerSecond", b.outBytesPerSecond());
          r.put("adaptive", b.adaptive());
          r.put("inBytesPerSecondNow", b.inBytesPerSecondNow());
          r.put("outBytesPerSecondNow", b.outBytesPerSecondNow());
          rows.add(r);
        }
      }
    }
    if (datanode != null && rows.isEmpty()) {
      throw new IllegalArgumentException("no DataNode " + datanode + " at " + String.join(", ", targets));
    }
    PrintWriter o = spec.commandLine().getOut();
    if (json.enabled) {
      JsonOutput.print(o, Map.of("datanodes", rows));
      return 0;
    }
    boolean changed = newIn != null || newOut != null;
    Table table = changed ? new Table("datanode", "in before", "out before", "in", "out")
        : new Table("datanode", "in", "out", "adaptive", "in now", "out now");
    for (Map<String, Object> r : rows) {
      if (changed) {
        table.row(r.get("datanode"), show(r.get("inBytesPerSecondBefore")), show(r.get("outBytesPerSecondBefore")),
            show(r.get("inBytesPerSecond")), show(r.get("outBytesPerSecond")));
      } else {
        table.row(r.get("datanode"), show(r.get("inBytesPerSecond")), show(r.get("outBytesPerSecond")),
            (Boolean) r.get("adaptive") ? "yes" : "no", show(r.get("inBytesPerSecondNow")),
            show(r.get("outBytesPerSecondNow")));
      }
    }
    table.print(o);
    return 0;
  }

  /** A rate from the command line, null when not given. */
  static Long rate(String option, String value) {
    if (value == null) {
      return null;
    }
    long v;
    try {
      v = TraditionalBinaryPrefix.string2long(value.trim());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(option + ": not a rate: '" + value + "' (bytes per second, e.g. 0, 500k, 50m)");
    }
    try {
      return RepairBudget.check(v);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(option + ": " + e.getMessage());
    }
  }

  private static String show(Object bytesPerSecond) {
    long v = (Long) bytesPerSecond;
    return v == 0 ? "unlimited" : String.format(Locale.ROOT, "%.2f MiB/s", v / MIB);
  }
}
