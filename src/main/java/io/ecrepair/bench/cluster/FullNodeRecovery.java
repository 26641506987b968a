package io.ecrepair.bench.cluster;

import io.ecrepair.bench.cluster.ClusterHandle.Node;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.HdfsConstants.DatanodeReportType;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;

/**
 * Full-node recovery: write {@code groups} full block groups, lose the DataNode holding the most
 * internal blocks, and time the NameNode-driven reconstruction until the NameNode reports no
 * low-redundancy or missing group and lists every internal block on a live node again. Bytes
 * come from every namespace's interface counters; every rebuilt replica is compared with the
 * lost original; then the file is deleted and the DataNode comes back.
 */
public final class FullNodeRecovery {
  /** How the DataNode is lost, and how it comes back. */
  public enum Loss {
    /** Killed (SIGKILL); it comes back as a new JVM with an empty data directory. */
    CRASH,
    /**
     * Cut off from every other node while its JVM runs on; it rejoins with the same, compiled
     * JVM, and the NameNode has it delete its replicas of the deleted file.
     */
    ISOLATION
  }

  /**
   * How long the recovery's groups were short of their redundancy, from the failure until the
   * NameNode listed every internal block of the group on a live DataNode again: the mean and the
   * longest over the groups that lost a block.
   */
  public record GroupsShort(double meanSeconds, double maxSeconds) {}

  /**
   * A second recovery of the same scenario under the foreground workload: its repair time, its
   * groups' time short of redundancy, whether it rebuilt every block right, the host's idle CPU
   * share during its repair, and what the workload saw.
   */
  public record Foreground(double repairSeconds, GroupsShort groupsShort, boolean verified, double cpuIdleShare,
                           ForegroundLoad.Result load) {}

  /** One lost internal block and where it was rebuilt. */
  public record LostBlock(int group, int index, long blockId, String rebuiltOn, boolean verified) {}

  /** What one run measured. */
  public record Result(String scenario, String policy, int groups, long blockBytes, String victim,
                       List<LostBlock> lost, double detectSeconds, double repairSeconds, double wallSeconds,
                       Map<String, NodeCounters.Bytes> bytes, long pluginTasks, long allTasks, double theoryBlocks,
                       double measuredBlocks, double maxLoadBlocks, double taskSeconds, double cpuIdleShare,
                       Map<String, Double> cpuSeconds, double backgroundCpu, double hostBusyCpuSeconds,
                       RackLayout written, RackLayout rebuilt, long crossRackBytes, PlanBound.Busiest bound,
                       GroupsShort groupsShort, Foreground foreground) {
    /** The same recovery's figures with the foreground run of the same scenario attached. */
    public Result withForeground(Foreground f) {
      return new Result(scenario, policy, groups, blockBytes, victim, lost, detectSeconds, repairSeconds, wallSeconds,
          bytes, pluginTasks, allTasks, theoryBlocks, measuredBlocks, maxLoadBlocks, taskSeconds, cpuIdleShare,
          cpuSeconds, backgroundCpu, hostBusyCpuSeconds, written, rebuilt, crossRackBytes, bound, groupsShort, f);
    }

    public boolean verified() {
      return !lost.isEmpty() && lost.stream().allMatch(LostBlock::verified);
    }

    /** Whether the host's CPU was (nearly) saturated while the blocks were rebuilt. */
    public boolean cpuSaturated() {
      return cpuIdleShare < HostCpu.SATURATED;
    }

    /** The live DataNodes' CPU seconds for the recovery, their idle background taken off; NaN where not measured. */
    public double cpuSecondsTotal() {
      return cpuSeconds.isEmpty() ? Double.NaN : ProcessCpu.total(cpuSeconds);
    }

    public double cpuSecondsPerRebuiltBlock() {
      return lost.isEmpty() ? Double.NaN : cpuSecondsTotal() / lost.size();
    }

    /** Per block the DataNodes received for the recovery. */
    public double cpuSecondsPerBlockMoved() {
      return lost.isEmpty() || !(measuredBlocks > 0) ? Double.NaN : cpuSecondsTotal() / (measuredBlocks * lost.size());
    }


    /** The most any live DataNode received, in blocks. */
    public double busiestReceivedBlocks() {
      long max = 0;
      for (Map.Entry<String, NodeCounters.Bytes> e : bytes.entrySet()) {
        if (e.getKey().startsWith("dn") && !e.getKey().equals(victim)) {
          max = Math.max(max, e.getValue().rx());
        }
      }
      return (double) max / blockBytes;
    }

    /** The most blocks of a group in one rack, as written or after the recovery. */
    public int mostInOneRack() {
      return Math.max(written.mostInOneRack(), rebuilt.mostInOneRack());
    }

    /** Bytes that crossed racks per rebuilt block, in blocks; NaN without racks. */
    public double crossRackBlocksPerRebuiltBlock() {
      return crossRackBytes < 0 || lost.isEmpty() ? Double.NaN : (double) crossRackBytes / lost.size() / blockBytes;
    }

    /** Who ran the reconstruction tasks, as the DataNodes' counters tell. */
    public String engine() {
      if (allTasks == 0) {
        return "none";
      }
      if (pluginTasks == 0) {
        return "hdfs";
      }
      return pluginTasks >= allTasks ? "ec-repair" : "mixed";
    }
  }

  private final ClusterHandle cluster;
  private final DistributedFileSystem fs;
  private final Consumer<String> progress;
  private final long timeoutMs;
  private final ClusterOptions options;

  public FullNodeRecovery(ClusterHandle cluster, ClusterOptions options, DistributedFileSystem fs,
                          Consumer<String> progress, long timeoutMs) {
    this.cluster = cluster;
    this.options = options;
    this.fs = fs;
    this.progress = progress;
    this.timeoutMs = timeoutMs;
  }

  /** One recovery; the victim is never one of the DataNodes named in {@code spared}. */
  public Result run(String scenario, ErasureCodingPolicy policy, int groups, long blockSize, long seed, Loss loss,
                    Set<String> spared, LongConsumer written) throws IOException, InterruptedException {
    return run(scenario, policy, groups, blockSize, seed, loss, spared, -1, null, written);
  }

  /**
   * The same; with {@code victimIndex} >= 0 the victim is the DataNode holding that internal
   * block of the first group, else the one holding the most internal blocks. With a
   * {@code foreground} load, the recovery runs under it and the result carries what it saw.
   */
  public Result run(String scenario, ErasureCodingPolicy policy, int groups, long blockSize, long seed, Loss loss,
                    Set<String> spared, int victimIndex, ForegroundLoad foreground, LongConsumer written)
      throws IOException, InterruptedException {
    int k = policy.getNumDataUnits();
    Path file = new Path(Scenario.benchDir(scenario) + "/recovery");
    long length = (long) groups * k * blockSize;
    progress.accept(String.format("%s: writing %d block groups (%d MiB) under %s", scenario, groups, length >> 20,
        policy.getName()));
    List<LocatedStripedBlock> before = new TrackedWrite(cluster, fs, timeoutMs, progress)
        .write(scenario, file, policy, blockSize, length, seed, written);
    Set<String> sparedIps = new HashSet<>();
    spared.forEach(name -> sparedIps.add(cluster.node(name).ip()));
    Node victim = cluster.dataNodeAt(victimIndex >= 0 ? holder(before.get(0), victimIndex)
        : mostLoaded(before, sparedIps));
    List<int[]> lost = new ArrayList<>();
    Map<String, String> originals = replicasOn(victim, before, lost);
    progress.accept(scenario + ": flushing the written file to disk");
    cluster.settleWrites();
    ForegroundLoad.Running load = null;
    try {
      load = foreground == null ? null : foreground.start(scenario, victim, seed);
      DataNodeJmx.Tasks tasksBefore = tasks(victim);
      List<Node> live = cluster.dataNodes().stream().filter(n -> !n.equals(victim)).toList();
      boolean measured = !scenario.matches(".*-warmup\\d+$"); // nobody reads a warm-up's figures
      Map<String, Double> background = Map.of();
      if (measured) {
        progress.accept(scenario + ": measuring the idle DataNodes' CPU for " + ProcessCpu.BACKGROUND_MS / 1000 + " s");
        background = ProcessCpu.background(live, progress);
      }
      NodeCounters countersBefore = cluster.counters();
      HostCpu cpuBefore = null;
      Map<String, Double> dnCpuBefore = Map.of();
      progress.accept(String.format("%s: %s %s (%s), which holds %d internal blocks %s; waiting for the "
          + "NameNode to notice and rebuild them", scenario, loss == Loss.CRASH ? "killing" : "cutting off", victim.name(),
          victim.ip(), lost.size(), indices(lost)));
      if (load != null) {
        load.awaitBefore();
        load.killed();
      }
      long t0 = System.nanoTime();
      if (loss == Loss.CRASH) {
        cluster.stopDataNode(victim.name());
      } else {
        cluster.isolateDataNode(victim.name(), true);
      }
      long dead = 0;
      long t1 = 0;
      Map<Integer, Long> whole = new HashMap<>(); // group -> when the NameNode listed it whole again
      Set<Integer> shortGroups = new HashSet<>();
      lost.forEach(l -> shortGroups.add(l[0]));
      long deadline = System.currentTimeMillis() + timeoutMs;
      List<LocatedStripedBlock> after;
      while (true) {
        if (dead == 0 && isDead(victim)) {
          dead = System.nanoTime();
          progress.accept(String.format("%s: NameNode reports %s dead after %.1f s", scenario, victim.name(),
              (dead - t0) / 1e9));
        }
        if (dead != 0) {
          after = locations(file);
          // The NameNode acts on a dead node when its heartbeat monitor next runs (every 5 s in
          // 3.3.6, whatever the recheck interval): only then are its replicas dropped and the
          // lost blocks schedulable. The repair clock starts there, the same for every code.
          if (t1 == 0 && !lists(after, victim)) {
            t1 = System.nanoTime();
            cpuBefore = HostCpu.now();
            dnCpuBefore = measured ? ProcessCpu.nowOrNone(live, progress) : Map.of();
            if (load != null) {
              load.dropped();
            }
            progress.accept(String.format("%s: NameNode dropped %s's replicas %.1f s after the kill; reconstruction "
                + "runs", scenario, victim.name(), (t1 - t0) / 1e9));
          }
          if (t1 != 0) {
            long now = System.nanoTime();
            for (int g : shortGroups) {
              if (!whole.containsKey(g) && complete(List.of(after.get(g)), policy, victim)) {
                whole.put(g, now);
              }
            }
          }
          if (t1 != 0 && complete(after, policy, victim) && TrackedWrite.healthy(fs)) {
            break;
          }
        }
        if (System.currentTimeMillis() > deadline) {
          throw new IOException(scenario + ": the NameNode still reports missing or low-redundancy blocks after "
              + timeoutMs / 1000 + " s (logs: " + cluster.logDir() + ")");
        }
        Thread.sleep(100);
      }
      long t2 = System.nanoTime();
      if (load != null) {
        load.recovered();
      }
      GroupsShort groupsShort = groupsShort(whole, t0, t2);
      HostCpu cpuAfter = HostCpu.now();
      double idle = cpuAfter.idleShareSince(cpuBefore);
      Map<String, Double> dnCpu = dnCpuBefore.isEmpty() || background.isEmpty() ? Map.of()
          : ProcessCpu.net(dnCpuBefore, ProcessCpu.nowOrNone(live, progress), background, (t2 - t1) / 1e9);
      NodeCounters all = cluster.counters().since(countersBefore);
      NodeCounters delta = all.withoutRackLegs();
      DataNodeJmx.Tasks done = tasks(victim).minus(tasksBefore);
      // the window after the recovery runs before the verification, which reads every rebuilt replica
      ForegroundLoad.Result seen = load == null ? null : load.finish();
      progress.accept(String.format("%s: all %d blocks rebuilt %.1f s after the NameNode dropped the replicas; "
          + "verifying them",
          scenario, lost.size(), (t2 - t1) / 1e9));
      List<LostBlock> rebuilt = verify(after, lost, originals, victim);
      double theory = theory(policy, lost, done);
      return new Result(scenario, policy.getName(), groups, blockSize, victim.name(), rebuilt, (t1 - t0) / 1e9,
          (t2 - t1) / 1e9, (t2 - t0) / 1e9, delta.nodes(), done.plugin(), done.all(), theory,
          repairBlocks(delta, victim, rebuilt.size(), blockSize), maxLoad(delta, rebuilt, blockSize),
          done.plugin() == 0 ? Double.NaN : done.pluginMillis() / 1000.0 / done.plugin(), idle, dnCpu,
          ProcessCpu.total(background), cpuAfter.busySecondsSince(cpuBefore),
          RackLayout.of(policy, before, ip -> cluster.dataNodeAt(ip).rack()),
          RackLayout.of(policy, after, ip -> cluster.dataNodeAt(ip).rack()),
          cluster.racks() > 0 ? all.crossRackBytes() : -1, bound(scenario, policy, before, after, lost), groupsShort,
          load == null ? null : new Foreground((t2 - t1) / 1e9, groupsShort, rebuilt.stream().allMatch(
              LostBlock::verified), idle, seen));
    } finally {
      try {
        if (load != null) {
          load.close();
        }
      } finally {
        fs.delete(file.getParent(), true);
        if (loss == Loss.CRASH) {
          progress.accept(scenario + ": restarting " + victim.name() + " with an empty data directory");
          cluster.startDataNode(victim.name(), true);
        } else {
          progress.accept(scenario + ": " + victim.name() + " rejoins");
          cluster.isolateDataNode(victim.name(), false);
        }
      }
    }
  }

  /** Each short group's time from the failure ({@code t0}) until it was whole again (or {@code t2}). */
  static GroupsShort groupsShort(Map<Integer, Long> whole, long t0, long t2) {
    if (whole.isEmpty()) {
      return new GroupsShort(Double.NaN, Double.NaN);
    }
    double sum = 0;
    double max = 0;
    for (long t : whole.values()) {
      double s = (Math.min(t, t2) - t0) / 1e9;
      sum += s;
      max = Math.max(max, s);
    }
    return new GroupsShort(sum / whole.size(), max);
  }

  /** What this recovery's layout forces through the links on this cluster; null where unknown. */
  private PlanBound.Busiest bound(String scenario, ErasureCodingPolicy policy, List<LocatedStripedBlock> before,
                                  List<LocatedStripedBlock> after, List<int[]> lost) {
    if (scenario.matches(".*-warmup\\d+$")) {
      return null; // nobody reads a warm-up's figures
    }
    try {
      return bound(scenario, policy, before, after, lost, ip -> cluster.dataNodeAt(ip).name(),
          cluster.dataNodes().size() - 1, links()); // all but the victim are live
    } catch (IllegalArgumentException e) {
      progress.accept(scenario + ": no link floor: " + e.getMessage());
      return null;
    }
  }

  /**
   * What a recovery's layout forces through the links ({@link PlanBound}): each rebuilt block's
   * helpers where they were written ({@code before}), its lost unit where it was rebuilt
   * ({@code after}), rebuilt the ways the scenario's strategy allows ({@link RepairOptions}).
   * {@code lost}: {group, index} of each rebuilt block; {@code nameOf}: a DataNode's IP to its
   * name. Null for a scenario or codec we do not know (a warm-up's suffix is ignored).
   */
  static PlanBound.Busiest bound(String scenario, ErasureCodingPolicy policy, List<LocatedStripedBlock> before,
                                 List<LocatedStripedBlock> after, List<int[]> lost,
                                 java.util.function.Function<String, String> nameOf, int liveDataNodes,
                                 PlanBound.Links links) {
    io.ecrepair.codes.CodeSpec spec;
    String strategy;
    try {
      spec = io.ecrepair.layout.Policy.parse(policy.getName()).code();
      strategy = Scenario.parse(scenario.replaceAll("-warmup\\d+$", "")).strategy();
    } catch (IllegalArgumentException e) {
      return null;
    }
    List<PlanBound.Task> tasks = new ArrayList<>();
    Map<String, List<PlanBound.Option>> options = new HashMap<>();
    boolean aroundRacks = strategy.equals("pipeline") && !spec.codec().equals("rs") && !links.rackOf().isEmpty();
    for (int[] gl : lost) {
      String[] node = new String[spec.n()];
      LocatedStripedBlock written = before.get(gl[0]);
      for (int j = 0; j < written.getBlockIndices().length; j++) {
        node[written.getBlockIndices()[j]] = nameOf.apply(written.getLocations()[j].getIpAddr());
      }
      node[gl[1]] = null;
      LocatedStripedBlock now = after.get(gl[0]);
      for (int j = 0; j < now.getBlockIndices().length; j++) {
        if (now.getBlockIndices()[j] == gl[1]) {
          node[gl[1]] = nameOf.apply(now.getLocations()[j].getIpAddr());
        }
      }
      List<PlanBound.Option> ways = new ArrayList<>(
          options.computeIfAbsent(gl[1] + "", u -> RepairOptions.of(strategy, spec, gl[1])));
      if (aroundRacks) {
        for (java.util.Set<Integer> rack : otherRacks(node, gl[1], links.rackOf())) {
          ways.addAll(options.computeIfAbsent(gl[1] + " without " + rack,
              u -> RepairOptions.chainsAvoiding(spec, gl[1], rack)));
        }
      }
      tasks.add(new PlanBound.Task(node, gl[1], ways));
    }
    return PlanBound.of(tasks, liveDataNodes, links);
  }

  /** The units of each rack of a group other than the rebuilding DataNode's. */
  private static java.util.Collection<java.util.Set<Integer>> otherRacks(String[] node, int lost,
                                                                        Map<String, String> rackOf) {
    Map<String, java.util.Set<Integer>> units = new TreeMap<>();
    String targetRack = node[lost] == null ? null : rackOf.get(node[lost]);
    for (int u = 0; u < node.length; u++) {
      String rack = node[u] == null ? null : rackOf.get(node[u]);
      if (u != lost && rack != null && !rack.equals(targetRack)) {
        units.computeIfAbsent(rack, r -> new java.util.TreeSet<>()).add(u);
      }
    }
    return units.values();
  }

  /** The cluster's links against its DataNodes' rate: slow DataNodes and rack gateways cost more. */
  private PlanBound.Links links() {
    Map<String, Double> cost = new HashMap<>();
    options.slowNodes().forEach(i -> cost.put("dn" + i, (double) options.rateMbit() / options.slowRateMbit()));
    Map<String, String> rackOf = new HashMap<>();
    if (cluster.racks() > 0) {
      cluster.dataNodes().forEach(n -> rackOf.put(n.name(), n.rack()));
    }
    return new PlanBound.Links(cost, rackOf, (double) options.rateMbit() / options.rackRateMbit());
  }

  /**
   * The IP holding the most internal blocks of the file (ties: the lowest DataNode number),
   * other than the {@code spared} IPs.
   */
  static String mostLoaded(List<LocatedStripedBlock> groups, Set<String> spared) {
    Map<String, Integer> count = new TreeMap<>();
    for (LocatedStripedBlock g : groups) {
      for (DatanodeInfo d : g.getLocations()) {
        if (!spared.contains(d.getIpAddr())) {
          count.merge(d.getIpAddr(), 1, Integer::sum);
        }
      }
    }
    return count.entrySet().stream()
        .max(Comparator.<Map.Entry<String, Integer>>comparingInt(Map.Entry::getValue)
            .thenComparing(e -> -lastOctet(e.getKey())))
        .orElseThrow(() -> new IllegalStateException("the file has no blocks")).getKey();
  }

  /** The IP of the DataNode holding internal block {@code index} of {@code group}. */
  static String holder(LocatedStripedBlock group, int index) {
    for (int j = 0; j < group.getBlockIndices().length; j++) {
      if (group.getBlockIndices()[j] == index) {
        return group.getLocations()[j].getIpAddr();
      }
    }
    throw new IllegalStateException("the group has no internal block " + index);
  }

  private static int lastOctet(String ip) {
    return Integer.parseInt(ip.substring(ip.lastIndexOf('.') + 1));
  }

  private static String indices(List<int[]> lost) {
    Map<Integer, Integer> byIndex = new TreeMap<>();
    lost.forEach(l -> byIndex.merge(l[1], 1, Integer::sum));
    StringBuilder s = new StringBuilder("(index x count: ");
    byIndex.forEach((i, c) -> s.append(i).append('x').append(c).append(' '));
    return s.toString().strip() + ")";
  }

  private DataNodeJmx.Tasks tasks(Node victim) throws IOException {
    DataNodeJmx.Tasks sum = new DataNodeJmx.Tasks(0, 0);
    for (Node n : cluster.dataNodes()) {
      if (!n.equals(victim)) {
        sum = sum.plus(DataNodeJmx.tasks(n.ip()));
      }
    }
    return sum;
  }

  private boolean isDead(Node victim) throws IOException {
    for (DatanodeInfo d : fs.getClient().datanodeReport(DatanodeReportType.DEAD)) {
      if (d.getIpAddr().equals(victim.ip())) {
        return true;
      }
    }
    return false;
  }

  private List<LocatedStripedBlock> locations(Path file) throws IOException {
    List<LocatedBlock> l = fs.getClient().getLocatedBlocks(file.toString(), 0, Long.MAX_VALUE).getLocatedBlocks();
    return l.stream().map(b -> (LocatedStripedBlock) b).toList();
  }

  /** Whether any group still lists a replica on the victim. */
  static boolean lists(List<LocatedStripedBlock> groups, Node victim) {
    for (LocatedStripedBlock g : groups) {
      for (DatanodeInfo d : g.getLocations()) {
        if (d.getIpAddr().equals(victim.ip())) {
          return true;
        }
      }
    }
    return false;
  }

  /** Whether every group lists all n internal blocks on nodes other than the victim. */
  static boolean complete(List<LocatedStripedBlock> groups, ErasureCodingPolicy policy, Node victim) {
    int n = policy.getNumDataUnits() + policy.getNumParityUnits();
    for (LocatedStripedBlock g : groups) {
      boolean[] seen = new boolean[n];
      int count = 0;
      for (int j = 0; j < g.getBlockIndices().length; j++) {
        int index = g.getBlockIndices()[j];
        if (!g.getLocations()[j].getIpAddr().equals(victim.ip()) && !seen[index]) {
          seen[index] = true;
          count++;
        }
      }
      if (count < n) {
        return false;
      }
    }
    return true;
  }

  /** Waits until the NameNode has no block group left to rebuild. */
  /**
   * The internal blocks {@code victim} holds: each {group, index} added to {@code held}, and
   * the digest of each replica by "group/index".
   */
  Map<String, String> replicasOn(Node victim, List<LocatedStripedBlock> groups, List<int[]> held) throws IOException {
    Map<String, String> digests = new LinkedHashMap<>();
    for (int g = 0; g < groups.size(); g++) {
      LocatedStripedBlock group = groups.get(g);
      for (int j = 0; j < group.getBlockIndices().length; j++) {
        if (group.getLocations()[j].getIpAddr().equals(victim.ip())) {
          int index = group.getBlockIndices()[j];
          long id = group.getBlock().getBlockId() + index;
          java.nio.file.Path f = ReplicaFiles.find(cluster.dataDir(victim.name()), id)
              .orElseThrow(() -> new IOException("no replica file blk_" + id + " on " + victim.name()));
          digests.put(g + "/" + index, ReplicaFiles.digest(f));
          held.add(new int[] {g, index});
        }
      }
    }
    return digests;
  }

  /**
   * Every listed replica of each lost index is compared with the original; one that vanished
   * meanwhile (an excess copy the NameNode deleted) is skipped, a different one fails.
   */
  List<LostBlock> verify(List<LocatedStripedBlock> after, List<int[]> lost, Map<String, String> originals,
                                 Node victim) throws IOException {
    List<LostBlock> out = new ArrayList<>();
    for (int[] l : lost) {
      LocatedStripedBlock g = after.get(l[0]);
      long id = g.getBlock().getBlockId() + l[1];
      String holder = null;
      int matched = 0;
      int differed = 0;
      for (int j = 0; j < g.getBlockIndices().length; j++) {
        if (g.getBlockIndices()[j] != l[1] || g.getLocations()[j].getIpAddr().equals(victim.ip())) {
          continue;
        }
        String node = cluster.dataNodeAt(g.getLocations()[j].getIpAddr()).name();
        java.util.Optional<java.nio.file.Path> f = ReplicaFiles.find(cluster.dataDir(node), id);
        if (f.isPresent()) {
          if (ReplicaFiles.digest(f.get()).equals(originals.get(l[0] + "/" + l[1]))) {
            matched++;
            holder = holder == null ? node : holder;
          } else {
            differed++;
            progress.accept("rebuilt replica blk_" + id + " (group " + l[0] + ", index " + l[1] + ") on " + node
                + " differs from the original");
          }
        }
      }
      out.add(new LostBlock(l[0], l[1], id, holder, matched > 0 && differed == 0));
    }
    return out;
  }

  /**
   * The code's cost of what was actually lost, per rebuilt block, for the engine that ran: the
   * parallel plan's bandwidth for tasks that ran one, the plugin's best repair graph for its
   * other tasks, or k blocks for HDFS's own reconstruction.
   */
  static double theory(ErasureCodingPolicy policy, List<int[]> lost, DataNodeJmx.Tasks tasks) {
    double pluginShare = tasks.all() == 0 ? 0 : Math.min(1.0, (double) tasks.plugin() / tasks.all());
    double parallelShare = tasks.all() == 0 ? 0 : Math.min(pluginShare, (double) tasks.parallel() / tasks.all());
    double sum = 0;
    for (int[] l : lost) {
      sum += parallelShare * RepairTheory.parallelBlocks(policy.getName(), l[1])
          + (pluginShare - parallelShare) * RepairTheory.blocksRead(policy.getName(), l[1])
          + (1 - pluginShare) * RepairTheory.stockBlocksRead(policy.getName());
    }
    return sum / lost.size();
  }

  /** Bytes every surviving DataNode received, per rebuilt block, in blocks. */
  static double repairBlocks(NodeCounters delta, Node victim, int rebuilt, long blockBytes) {
    long rx = 0;
    for (Map.Entry<String, NodeCounters.Bytes> e : delta.nodes().entrySet()) {
      if (e.getKey().startsWith("dn") && !e.getKey().equals(victim.name())) {
        rx += e.getValue().rx();
      }
    }
    return rebuilt == 0 ? 0 : (double) rx / rebuilt / blockBytes;
  }

  /** The busiest rebuilding node: what it received per block it rebuilt, in blocks. */
  static double maxLoad(NodeCounters delta, List<LostBlock> rebuilt, long blockBytes) {
    Map<String, Integer> per = new HashMap<>();
    rebuilt.stream().filter(b -> b.rebuiltOn() != null).forEach(b -> per.merge(b.rebuiltOn(), 1, Integer::sum));
    double max = 0;
    for (Map.Entry<String, Integer> e : per.entrySet()) {
      max = Math.max(max, (double) delta.get(e.getKey()).rx() / e.getValue() / blockBytes);
    }
    return max;
  }
}
