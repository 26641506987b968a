package io.ecrepair.bench.thrash;

import io.ecrepair.bench.cluster.ClusterHandle;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * What a DataNode's repair agent holds, read from outside its JVM: the plugin's threads that
 * come and go with requests and tasks (every thread it names starts with {@code ec-repair}, and
 * Linux keeps the first 15 characters of a Java thread's name), the TCP sockets to or from the
 * agent's port in the node's namespace, and the JVM's open file descriptors by kind (sockets,
 * pipes, selectors, replica files, other files by path) but those the JVM opens once and keeps.
 */
public record AgentResources(int threads, int sockets, Map<String, Integer> descriptorKinds) {
  public AgentResources {
    descriptorKinds = Collections.unmodifiableMap(new TreeMap<>(descriptorKinds));
  }

  /** The agents listen on the DataNode's transfer port plus this (the cluster's configuration). */
  static final int AGENT_PORT = 9866 + 10;

  /** The node's figures now; empty when its JVM is not running. */
  static java.util.Optional<AgentResources> sample(ClusterHandle cluster, String node)
      throws IOException, InterruptedException {
    OptionalLong pid = cluster.pid(node);
    if (pid.isEmpty() || !Files.isDirectory(Path.of("/proc", Long.toString(pid.getAsLong())))) {
      return java.util.Optional.empty();
    }
    Path proc = Path.of("/proc", Long.toString(pid.getAsLong()));
    int threads = 0;
    try (Stream<Path> tasks = Files.list(proc.resolve("task"))) {
      for (Path t : (Iterable<Path>) tasks::iterator) {
        try {
          if (agentThread(Files.readString(t.resolve("comm")).strip())) {
            threads++;
          }
        } catch (IOException e) {
          // the thread ended while listed
        }
      }
    }
    Map<String, Integer> fds = new TreeMap<>();
    try (Stream<Path> f = Files.list(proc.resolve("fd"))) {
      f.map(fd -> descriptorKind(target(fd))).filter(k -> !k.isEmpty()).forEach(k -> fds.merge(k, 1, Integer::sum));
    }
    String ss = cluster.exec(node, List.of("ss", "-tanH", "( sport = :" + AGENT_PORT + " or dport = :" + AGENT_PORT
        + " )"));
    int sockets = (int) ss.lines().filter(l -> !l.isBlank() && !l.startsWith("LISTEN")).count();
    return java.util.Optional.of(new AgentResources(threads, sockets, fds));
  }

  /**
   * The plugin's threads but its four single-thread executors (the plan and policy preparers,
   * the agent's alarm timer and the lease recovery's leftover reporter): each makes its one thread when first used and keeps it, so
   * they cannot grow, and whether they exist yet says nothing about a leak. What is counted is
   * the agent's acceptor and the threads that come and go with work: the agent's handlers and
   * part threads and the tasks' readers.
   */
  static boolean agentThread(String comm) {
    return comm.startsWith("ec-repair") && !comm.startsWith("ec-repair-plan-") && !comm.startsWith("ec-repair-polic")
        && !comm.startsWith("ec-repair-alarm") && !comm.startsWith("ec-repair-lefto");
  }

  /**
   * What a descriptor counts as; empty for those not counted. Not the jars: the JVM opens a jar
   * the first time it loads a class from it and keeps it open, so a class first used during the
   * run adds one for good without anything leaking. Not the random devices either, which the
   * JVM's SecureRandom opens on first use and keeps for the process.
   */
  static String descriptorKind(String target) {
    if (target.isEmpty() || target.endsWith(".jar") || target.equals("/dev/random") || target.equals("/dev/urandom")) {
      return "";
    }
    if (target.startsWith("socket:")) {
      return "socket";
    }
    if (target.startsWith("pipe:")) {
      return "pipe";
    }
    if (target.startsWith("anon_inode:")) {
      return target.substring("anon_inode:".length());
    }
    return target.contains("/current/BP-") ? "replica files" : target;
  }

  public int descriptors() {
    return descriptorKinds.values().stream().mapToInt(Integer::intValue).sum();
  }

  /** Whether nothing here exceeds {@code baseline}: threads, sockets and descriptors of each kind, exactly. */
  boolean within(AgentResources baseline) {
    return threads <= baseline.threads && sockets <= baseline.sockets && grownDescriptors(baseline).isEmpty();
  }

  /** The kinds of descriptor more numerous than in {@code baseline}, as "kind +n". */
  String grownDescriptors(AgentResources baseline) {
    List<String> grown = new ArrayList<>();
    descriptorKinds.forEach((kind, n) -> {
      int more = n - baseline.descriptorKinds.getOrDefault(kind, 0);
      if (more > 0) {
        grown.add(kind + " +" + more);
      }
    });
    return String.join(", ", grown);
  }

  @Override
  public String toString() {
    return "threads " + threads + ", agent sockets " + sockets + ", descriptors " + descriptors();
  }

  private static String target(Path fd) {
    try {
      return Files.readSymbolicLink(fd).toString();
    } catch (IOException e) {
      return ""; // closed while listed
    }
  }
}
