package io.ecrepair.bench.cluster;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A running benchmark cluster, driven through {@code dev-support/cluster/cluster.sh}. The
 * script records everything it makes in the state directory; {@link #close()} and a JVM
 * shutdown hook (Ctrl-C, kill) both run its {@code down}, so teardown happens whatever
 * happens to the benchmark.
 */
public final class ClusterHandle implements AutoCloseable {
  /** One line of the state directory's {@code nodes} file. */
  public record Node(String name, String namespace, String ip, String rack, String role) {}

  private final Path script;
  private final Path state;
  private final Consumer<String> progress;
  private final Thread hook;
  private volatile Process running;
  private volatile boolean closed;
  private List<Node> nodes = List.of();
  private String nameNodeIp;

  private ClusterHandle(Path script, Path state, Consumer<String> progress) {
    this.script = script;
    this.state = state;
    this.progress = progress;
    this.hook = new Thread(this::teardownFromHook, "ec-repair cluster teardown");
  }

  /** Builds the network and starts every JVM; tears everything down again if that fails. */
  public static ClusterHandle start(Path script, Path state, ClusterOptions options, Consumer<String> progress)
      throws IOException, InterruptedException {
    if (!Files.isExecutable(script)) {
      throw new IllegalArgumentException("no cluster script " + script + " (give --scripts DIR)");
    }
    ClusterHandle c = new ClusterHandle(script, state, progress);
    Runtime.getRuntime().addShutdownHook(c.hook);
    boolean ok = false;
    try {
      List<String> args = new ArrayList<>(List.of("up", "--state", state.toString()));
      args.addAll(options.upArguments());
      c.nameNodeIp = c.run(args).strip();
      c.nodes = readNodes(state.resolve("nodes"));
      ok = true;
      return c;
    } finally {
      if (!ok) {
        c.close();
      }
    }
  }

  static List<Node> readNodes(Path file) throws IOException {
    List<Node> out = new ArrayList<>();
    for (String line : Files.readAllLines(file)) {
      String[] f = line.strip().split("\\s+");
      if (f.length == 5) {
        out.add(new Node(f[0], f[1], f[2], f[3], f[4]));
      }
    }
    return out;
  }

  public String nameNodeUri() {
    return "hdfs://" + nameNodeIp + ":8020";
  }

  public Path state() {
    return state;
  }

  public List<Node> dataNodes() {
    return nodes.stream().filter(n -> n.role().equals("dn")).toList();
  }

  public Node node(String name) {
    return nodes.stream().filter(n -> n.name().equals(name)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no node " + name));
  }

  /** Racks the DataNodes sit in; 0 on one flat network. */
  public int racks() {
    return (int) dataNodes().stream().map(Node::rack).filter(r -> !r.equals("0")).distinct().count();
  }

  /** The DataNode listening on {@code ip}. */
  public Node dataNodeAt(String ip) {
    return dataNodes().stream().filter(n -> n.ip().equals(ip)).findFirst()
        .orElseThrow(() -> new IllegalStateException("no DataNode of this cluster at " + ip));
  }

  /** The node's client configuration directory (core-site.xml, hdfs-site.xml). */
  public Path confDir(String node) {
    return state.resolve("conf").resolve(node);
  }

  public Path dataDir(String node) {
    return state.resolve("data").resolve(node).resolve("data");
  }

  public Path logDir() {
    return state.resolve("logs");
  }

  /** Kills the DataNode (SIGKILL: a crash, not a decommission). */
  public void stopDataNode(String name) throws IOException, InterruptedException {
    run(List.of("dn-stop", "--state", state.toString(), name.substring(2)));
  }

  /**
   * Cuts the DataNode off from every other node while its JVM keeps running (the NameNode
   * declares it dead as if it had crashed), or lets it rejoin and waits until the NameNode
   * counts every DataNode live again.
   */
  public void isolateDataNode(String name, boolean isolated) throws IOException, InterruptedException {
    run(List.of("isolate", "--state", state.toString(), name.substring(2), isolated ? "on" : "off"));
  }

  /**
   * Flushes what the DataNodes wrote to disk, so that a recovery timed next does not share the
   * disk with the kernel's writeback of the file written just before it (on a real cluster a
   * node fails long after its data was written).
   */
  public void settleWrites() throws IOException, InterruptedException {
    run(List.of("settle", "--state", state.toString()));
  }

  /** Starts it again and waits until the NameNode counts every DataNode live. */
  public void startDataNode(String name, boolean wipe) throws IOException, InterruptedException {
    List<String> a = new ArrayList<>(List.of("dn-start", "--state", state.toString(), name.substring(2)));
    if (wipe) {
      a.add("--wipe");
    }
    run(a);
  }

  /**
   * Starts a stopped DataNode again and waits only until it registered: other DataNodes may be
   * down on purpose (a thrash run), so nothing waits for all to be live.
   */
  public void startDataNodeAlone(String name, boolean wipe) throws IOException, InterruptedException {
    List<String> a = new ArrayList<>(List.of("dn-start", "--state", state.toString(), name.substring(2),
        "--no-wait-all"));
    if (wipe) {
      a.add("--wipe");
    }
    run(a);
  }

  /** Lets an isolated DataNode rejoin without waiting for the NameNode to count it (or any other) live. */
  public void rejoinDataNode(String name) throws IOException, InterruptedException {
    run(List.of("isolate", "--state", state.toString(), name.substring(2), "off", "--no-wait-all"));
  }

  /** Stops the DataNode's JVM dead (SIGSTOP) or lets it go on (SIGCONT). */
  public void pauseDataNode(String name, boolean paused) throws IOException, InterruptedException {
    run(List.of("dn-pause", "--state", state.toString(), name.substring(2), paused ? "on" : "off"));
  }

  /** Holds every packet to or from the DataNode's repair agent port (the agent stalls), or lets them through again. */
  public void stallAgent(String name, boolean stalled) throws IOException, InterruptedException {
    run(List.of("agent-stall", "--state", state.toString(), name.substring(2), stalled ? "on" : "off"));
  }

  /**
   * Takes {@code bytes} of the DataNode's own disk (a cluster started with a disk per DataNode)
   * with a file, or, with a negative {@code bytes}, removes that file.
   */
  public void fillDisk(String name, long bytes) throws IOException, InterruptedException {
    run(List.of("disk-fill", "--state", state.toString(), name.substring(2), bytes < 0 ? "off" : Long.toString(bytes)));
  }

  /** Shapes the DataNode's links to {@code mbit} (tbf drops what waits too long); 0 = back to its own rate. */
  public void shapeDataNode(String name, int mbit) throws IOException, InterruptedException {
    run(List.of("dn-link", "--state", state.toString(), name.substring(2), mbit == 0 ? "off" : Integer.toString(mbit)));
  }

  /** Kills the NameNode and starts it again; returns once it left safe mode with the running DataNodes live. */
  public void restartNameNode() throws IOException, InterruptedException {
    run(List.of("nn-restart", "--state", state.toString()));
  }

  /**
   * Stops every JVM and starts those of the distribution in {@code dist} (another Hadoop line) on
   * the same metadata and data, the NameNode with {@code -upgrade}; returns once it left safe mode
   * with every DataNode live.
   */
  public void upgrade(Path dist) throws IOException, InterruptedException {
    run(List.of("upgrade", "--state", state.toString(), "--dist", dist.toAbsolutePath().toString()));
  }

  /** The pid of a node's JVM as the script recorded it; empty when it is not running. */
  public java.util.OptionalLong pid(String node) throws IOException {
    Path f = state.resolve("pids").resolve(node + ".pid");
    if (!Files.isRegularFile(f)) {
      return java.util.OptionalLong.empty();
    }
    try {
      return java.util.OptionalLong.of(Long.parseLong(Files.readString(f).strip()));
    } catch (NumberFormatException | java.nio.file.NoSuchFileException e) {
      return java.util.OptionalLong.empty();
    }
  }

  /**
   * Starts a Java main of this build in a node's namespace in the background (stdout and stderr to
   * {@code output}); unlike {@link #java} it holds nothing, so other cluster commands run meanwhile.
   */
  public Process startJava(String node, String mainClass, List<String> args, Path output) throws IOException {
    if (closed) {
      throw new IllegalStateException("the cluster is torn down");
    }
    List<String> cmd = new ArrayList<>(List.of(script.toString(), "java", "--state", state.toString(), node,
        mainClass));
    cmd.addAll(args);
    return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(
        output.toFile())).start();
  }

  /** Rewrites every DataNode's hdfs-site.xml with {@code conf} added and restarts them all (data kept). */
  public void restartDataNodes(Map<String, String> conf) throws IOException, InterruptedException {
    List<String> a = new ArrayList<>(List.of("dn-restart-all", "--state", state.toString()));
    a.addAll(ClusterOptions.confArguments(conf));
    run(a);
  }

  public NodeCounters counters() throws IOException, InterruptedException {
    return NodeCounters.parse(run(List.of("counters", "--state", state.toString())));
  }

  /** Makes node {@code to} unreachable from node {@code from} (connects fail at once), or reachable again. */
  public void reach(String from, String to, boolean on) throws IOException, InterruptedException {
    run(List.of("reach", "--state", state.toString(), from, to, on ? "on" : "off"));
  }

  /** Runs a command in a node's namespace; returns its stdout, fails with its stderr. */
  public String exec(String node, List<String> command) throws IOException, InterruptedException {
    List<String> a = new ArrayList<>(List.of("exec", "--state", state.toString(), node));
    a.addAll(command);
    return run(a);
  }

  /** Runs a Java main of this build in a node's namespace with that node's configuration; returns stdout. */
  public String java(String node, String mainClass, List<String> args) throws IOException, InterruptedException {
    List<String> a = new ArrayList<>(List.of("java", "--state", state.toString(), node, mainClass));
    a.addAll(args);
    return run(a);
  }

  private synchronized String run(List<String> args) throws IOException, InterruptedException {
    if (closed) {
      throw new IllegalStateException("the cluster is torn down");
    }
    List<String> cmd = new ArrayList<>();
    cmd.add(script.toString());
    cmd.addAll(args);
    Process p = new ProcessBuilder(cmd).start();
    running = p;
    try {
      StringBuilder err = new StringBuilder();
      Thread errPump = new Thread(() -> pump(p, err), "cluster.sh stderr");
      errPump.start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      int rc = p.waitFor();
      errPump.join();
      if (rc != 0) {
        String last = err.toString().strip();
        last = last.substring(last.lastIndexOf('\n') + 1);
        throw new IOException("cluster.sh " + args.get(0) + " failed (exit " + rc + "): " + last);
      }
      return out;
    } finally {
      running = null;
    }
  }

  /** The script's "cluster: ..." lines are progress; everything else is kept for errors. */
  private void pump(Process p, StringBuilder err) {
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        if (line.startsWith("cluster: ")) {
          progress.accept(line.substring(9));
        }
        synchronized (err) {
          err.append(line).append('\n');
        }
      }
    } catch (IOException e) {
      // the process ended
    }
  }

  private void teardownFromHook() {
    Process p = running;
    try {
      if (p != null) {
        p.waitFor(60, TimeUnit.SECONDS);  // a half-done `up` tears itself down first
      }
      down();
    } catch (InterruptedException | IOException e) {
      // nothing more can be done in a dying JVM
    }
  }

  private void down() throws IOException, InterruptedException {
    if (closed) {
      return;
    }
    closed = true;
    Process p = new ProcessBuilder(script.toString(), "down", "--state", state.toString())
        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    p.waitFor();
  }

  @Override
  public void close() throws IOException, InterruptedException {
    try {
      down();
    } finally {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // already shutting down: the hook runs down() itself, which is then a no-op
      }
    }
  }
}
