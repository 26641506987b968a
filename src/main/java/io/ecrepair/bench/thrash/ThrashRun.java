package io.ecrepair.bench.thrash;

import io.ecrepair.bench.cluster.ClusterHandle;
import io.ecrepair.bench.cluster.ClusterOptions;
import io.ecrepair.bench.cluster.ReplicaFiles;
import io.ecrepair.harness.DegradedReadProbe;
import io.ecrepair.harness.PatternData;
import io.ecrepair.harness.ShippedPolicies;
import io.ecrepair.hdfs.ListedUnits;
import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.hdfs.admin.StripeVerifier;
import io.ecrepair.layout.Policy;
import io.ecrepair.layout.StripedLayout;
import java.io.ByteArrayOutputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.client.HdfsClientConfigKeys;
import org.apache.hadoop.hdfs.protocol.ECBlockGroupStats;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicyInfo;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlocks;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.tools.DFSck;

/**
 * {@code bench thrash}: the benchmark cluster under a workload and a storm of faults for a
 * while, then the faults stop, HDFS settles, and every byte and every replica is checked.
 * The fault injector runs here, one fault at a time from a seeded {@link FaultScheduler}; the
 * workload is a {@link ThrashWorkload} JVM in the client namespace.
 */
public final class ThrashRun {
  /** Everything a run needs. */
  public record Settings(double minutes, long seed, ClusterOptions cluster, List<String> policies, Path policyFile,
                         Path script, Path stateDir, int settleSeconds, long maxFileBytes, List<FaultKind> kinds,
                         int maxNodeFaults) {
    public Settings {
      if (minutes <= 0 || minutes > 24 * 60) {
        throw new IllegalArgumentException("--minutes must be between 0 and 1440");
      }
      for (String p : policies) {
        ErasureCodingPolicy e = ShippedPolicies.byName(p);
        if (cluster.blockSize() % e.getCellSize() != 0) {
          throw new IllegalArgumentException("--block-size is not a multiple of " + p + "'s cell size");
        }
        if (e.getNumDataUnits() + e.getNumParityUnits() >= cluster.dataNodes()) {
          throw new IllegalArgumentException(p + " needs more than " + cluster.dataNodes() + " DataNodes");
        }
      }
    }
  }

  /** The shipped families, smallest first; a run takes those its DataNodes fit with a spare. */
  public static final List<String> FAMILIES = List.of("RS-6-3-64k", "CLAY-6-3-1024k", "BUTTERFLY-4-2-1024k",
      "CLAY-D11-10-4-1024k", "LRC-L2-10-4-1024k");

  public static List<String> defaultPolicies(int dataNodes) {
    return FAMILIES.stream().filter(p -> Policy.parse(p).code().n() < dataNodes).toList();
  }

  /** A fault under way and when it ends. */
  private record Active(FaultScheduler.Choice choice, double start, double healAt, Process client) {}

  /**
   * A replica corrupted on purpose: where, its bytes' digest right after the flip, and whether
   * its stored checksums were rewritten to match.
   */
  private record Corruption(String node, long blockId, String digest, double at, boolean silent) {}

  /** Replicas corrupted on purpose and not yet replaced, at most: beyond, other faults get the turns. */
  private static final int MAX_CORRUPT = 3;

  private final Settings s;
  private final Consumer<String> progress;
  private final Timeline timeline = new Timeline();
  private final Map<String, Integer> faultsByKind = new TreeMap<>();
  private final List<Active> active = new ArrayList<>();
  private final List<Corruption> corruptions = new ArrayList<>();
  private final RepairCounts repairs = new RepairCounts();
  private final Set<String> deaths = new java.util.TreeSet<>();
  private final Map<String, List<GroupLayout.Group>> groupsByPath = new HashMap<>();
  /** Per path, the completed write its groups were read after. */
  private final Map<String, WorkloadLog.Written> mappedComplete = new HashMap<>();
  /** Per path, why the last scrub of it failed. */
  private final Map<String, String> scrubFailures = new HashMap<>();
  private final List<String> problems = new ArrayList<>();
  private final List<String> clientKillPaths = new ArrayList<>();
  private final Random random;
  private ClusterHandle cluster;
  private DistributedFileSystem fs;
  private Configuration conf;
  private long t0;
  private int deferred;
  private double lastNnRestart = -1e9;
  /** When each node's last fault ended: the NameNode may still be rebuilding what it had scheduled. */
  private final Map<String, Double> healedAt = new HashMap<>();
  /** Replicas corrupted on purpose and still bad at the last look. */
  private Set<GroupLayout.Replica> stillBad = Set.of();
  /** Completed files when the last fault was chosen: what a client killed mid-read reads. */
  private List<WorkloadLog.Written> toRead = List.of();

  public ThrashRun(Settings settings, Consumer<String> progress) {
    this.s = settings;
    this.progress = progress;
    this.random = new Random(settings.seed() ^ 0x5DEECE66DL);
  }

  private double now() {
    return (System.nanoTime() - t0) / 1e9;
  }

  private Path workloadLog() {
    return s.stateDir().resolve("logs").resolve("workload.tsv");
  }

  /** Runs it all; the PNG goes to {@code png} (null: none). */
  public ThrashResult run(Path png) throws IOException, InterruptedException {
    Files.createDirectories(s.stateDir());
    try (ClusterHandle c = ClusterHandle.start(s.script(), s.stateDir(), s.cluster(), progress)) {
      cluster = c;
      conf = clientConf();
      try (DistributedFileSystem dfs = (DistributedFileSystem) FileSystem.get(URI.create(c.nameNodeUri()), conf)) {
        fs = dfs;
        preparePolicies();
        // the DataNodes ready enabled policies every 7 s: let that happen before the baseline
        Thread.sleep(12_000);
        Map<String, AgentResources> baseline = resources();
        progress.accept("baseline of the agents: " + baseline);
        t0 = System.nanoTime();
        sampleRepairs();
        // the curves are sampled on their own: injecting and healing block for seconds at a time
        java.util.concurrent.ScheduledExecutorService sampler = java.util.concurrent.Executors
            .newSingleThreadScheduledExecutor(r -> {
              Thread t = new Thread(r, "thrash-timeline");
              t.setDaemon(true);
              return t;
            });
        sampler.scheduleWithFixedDelay(this::sampleTimeline, 0, 2, java.util.concurrent.TimeUnit.SECONDS);
        Process workload = startWorkload();
        double faultsEnd;
        double settled;
        try {
          try {
            inject();
            faultsEnd = now();
            progress.accept(String.format(Locale.ROOT, "faults stop at %.0f s: healing %d under way", faultsEnd,
                active.size()));
            healAll();
          } finally {
            stopWorkload(workload);
          }
          recoverKilledWrites();
          settled = settle();
        } finally {
          sampler.shutdownNow();
        }
        double settleSeconds = settled - faultsEnd;
        sampleRepairs();
        return check(baseline, faultsEnd, settleSeconds, png);
      }
    }
  }

  private Configuration clientConf() {
    Configuration c = new HdfsConfiguration();
    c.addResource(new org.apache.hadoop.fs.Path(cluster.confDir("client").resolve("core-site.xml").toUri()));
    c.addResource(new org.apache.hadoop.fs.Path(cluster.confDir("client").resolve("hdfs-site.xml").toUri()));
    c.set("fs.defaultFS", cluster.nameNodeUri());
    c.setBoolean("fs.hdfs.impl.disable.cache", true);
    // The injector's own reads (the scrub) must not wait HDFS's 60 s on a paused DataNode per
    // block: that held back every fault and heal for two minutes in a run.
    c.setInt(HdfsClientConfigKeys.DFS_CLIENT_SOCKET_TIMEOUT_KEY, 10_000);
    return c;
  }

  private void preparePolicies() throws IOException {
    List<ErasureCodingPolicy> shipped = new ArrayList<>(ShippedPolicies.load(s.policyFile()));
    for (String p : s.policies()) {
      if (shipped.stream().noneMatch(x -> x.getName().equals(p))) {
        shipped.add(ShippedPolicies.byName(p));
      }
    }
    fs.addErasureCodingPolicies(shipped.toArray(new ErasureCodingPolicy[0]));
    for (String p : s.policies()) {
      boolean known = false;
      for (ErasureCodingPolicyInfo info : fs.getAllErasureCodingPolicies()) {
        known |= info.getPolicy().getName().equals(p);
      }
      if (!known) {
        throw new IllegalArgumentException("the NameNode knows no policy " + p);
      }
      fs.enableErasureCodingPolicy(p);
      org.apache.hadoop.fs.Path dir = new org.apache.hadoop.fs.Path("/thrash/" + p);
      fs.mkdirs(dir);
      fs.setErasureCodingPolicy(dir, p);
    }
    progress.accept("policies " + s.policies() + " enabled, one directory each under /thrash");
  }

  private static boolean stockReadable(String policy) {
    return !Policy.parse(policy).code().needsWholeCells();
  }

  private Process startWorkload() throws IOException {
    List<String> args = new ArrayList<>(List.of(cluster.nameNodeUri(), workloadLog().toString(),
        s.stateDir().resolve("workload.stop").toString(), Long.toString(s.seed()), Long.toString(s.maxFileBytes())));
    for (String p : s.policies()) {
      args.add(p + ":" + stockReadable(p));
    }
    Files.deleteIfExists(s.stateDir().resolve("workload.stop"));
    progress.accept("workload: 2 writers, 2 readers in the client namespace (log " + workloadLog() + ")");
    return cluster.startJava("client", ThrashWorkload.class.getName(), args,
        s.stateDir().resolve("logs").resolve("workload.out"));
  }

  private void stopWorkload(Process workload) throws IOException, InterruptedException {
    Files.writeString(s.stateDir().resolve("workload.stop"), "stop\n");
    if (!workload.waitFor(180, java.util.concurrent.TimeUnit.SECONDS)) {
      problems.add("the workload did not stop within 180 s of being asked (killed)");
      workload.destroyForcibly().waitFor();
    } else if (workload.exitValue() != 0) {
      problems.add("the workload exited with status " + workload.exitValue() + " (log: "
          + s.stateDir().resolve("logs").resolve("workload.out") + ")");
    }
  }

  // ---- faults ---------------------------------------------------------------------------------

  private void inject() throws IOException, InterruptedException {
    List<String> dns = cluster.dataNodes().stream().map(ClusterHandle.Node::name).toList();
    FaultScheduler scheduler = new FaultScheduler(s.seed(), s.kinds(), dns, s.maxNodeFaults());
    double end = s.minutes() * 60;
    double nextFault = 20;  // the workload writes its first files meanwhile
    double nextCounters = 10;
    while (now() < end) {
      checkDeaths();
      healDue();
      if (now() >= nextCounters) {
        sampleRepairs();
        scrubCorrupted();
        nextCounters = now() + 15;
      }
      if (now() >= nextFault) {
        GroupLayout layout = layout();
        Set<String> busy = new HashSet<>();
        active.stream().filter(a -> a.choice().node() != null && a.choice().kind().takesNode())
            .forEach(a -> busy.add(a.choice().node()));
        Set<FaultKind> allowed = EnumSet.copyOf(s.kinds());
        // A restarted NameNode leaves safe mode once the DataNodes reported their blocks: not
        // while one is stopped, cut off or paused (and its heal waits behind the restart).
        if (now() - lastNnRestart < 120 || active.stream().anyMatch(a -> a.client() != null) || !busy.isEmpty()) {
          allowed.remove(FaultKind.NN_RESTART);
        }
        List<WorkloadLog.Written> readable = new ArrayList<>(WorkloadLog.read(workloadLog()).live().values());
        if (active.stream().anyMatch(a -> a.client() != null)) {
          allowed.remove(FaultKind.CLIENT_KILL);
          allowed.remove(FaultKind.CLIENT_KILL_READ);
        }
        if (readable.isEmpty()) {
          allowed.remove(FaultKind.CLIENT_KILL_READ);
        }
        if (stillBad.size() >= MAX_CORRUPT) {
          allowed.remove(FaultKind.REPLICA_CORRUPT);
          allowed.remove(FaultKind.REPLICA_CORRUPT_SILENT);
        }
        // Silently bad parity must not be read by a repair before the scrub finds it (the
        // layout keeps its group out of repairs); a restarted NameNode rebuilds what its
        // block reports have not shown yet.
        if (now() - lastNnRestart < 120) {
          allowed.remove(FaultKind.REPLICA_CORRUPT_SILENT);
        }
        toRead = readable;
        Set<String> reconstructing = allowed.contains(FaultKind.DN_KILL_IN_REPAIR) && repairsInFlight() > 0
            ? reconstructing(busy) : Set.of();
        Optional<FaultScheduler.Choice> c = scheduler.choose(layout, busy, allowed, reconstructing);
        if (c.isPresent()) {
          start(c.get());
        } else {
          deferred++;
        }
        nextFault = now() + scheduler.nextGapSeconds();
      }
      Thread.sleep(500);
    }
  }

  private void start(FaultScheduler.Choice c) throws IOException, InterruptedException {
    double at = now();
    String what = c.kind().label() + (c.node() != null ? " " + c.node() : "");
    try {
      Process client = null;
      double heal = at + c.seconds();
      switch (c.kind()) {
        case DN_KILL, DN_KILL_IN_REPAIR, DN_WIPE -> cluster.stopDataNode(c.node());
        case DN_ISOLATE -> cluster.isolateDataNode(c.node(), true);
        case DN_PAUSE -> cluster.pauseDataNode(c.node(), true);
        case AGENT_STALL -> cluster.stallAgent(c.node(), true);
        case DISK_FULL -> cluster.fillDisk(c.node(), fillBytes(c.node()));
        case LINK_SLOW -> cluster.shapeDataNode(c.node(), 2);
        case REPLICA_CORRUPT, REPLICA_CORRUPT_SILENT -> {
          what += " blk_" + c.blockId();
          corrupt(c.node(), c.blockId(), at, c.kind() == FaultKind.REPLICA_CORRUPT_SILENT);
        }
        case NN_RESTART -> {
          cluster.restartNameNode();
          lastNnRestart = now();
          heal = now();
        }
        case CLIENT_KILL -> {
          String policy = s.policies().get(random.nextInt(s.policies().size()));
          String path = "/thrash/" + policy + "/killed-" + clientKillPaths.size();
          clientKillPaths.add(path);
          client = cluster.startJava("client", ThrashWorkload.class.getName(), List.of("--one-write",
              cluster.nameNodeUri(), path, policy, Long.toString(s.maxFileBytes()), Long.toString(random.nextLong())),
              s.stateDir().resolve("logs").resolve("client-kill.out"));
          // started JVMs take a few seconds to open the file: kill it while it writes
          heal = at + 6 + random.nextInt(6);
          what += " " + path;
        }
        case CLIENT_KILL_READ -> {
          String path = toRead.get(random.nextInt(toRead.size())).path();
          client = cluster.startJava("client", ThrashWorkload.class.getName(), List.of("--reading",
              cluster.nameNodeUri(), path), s.stateDir().resolve("logs").resolve("client-kill.out"));
          heal = at + 6 + random.nextInt(6);
          what += " " + path;
        }
        default -> throw new IllegalStateException(c.kind().toString());
      }
      faultsByKind.merge(c.kind().label(), 1, Integer::sum);
      progress.accept(String.format(Locale.ROOT, "[%4.0f s] fault: %s%s", at, what,
          c.seconds() > 0 ? " for " + c.seconds() + " s" : ""));
      if (c.kind() == FaultKind.REPLICA_CORRUPT || c.kind() == FaultKind.REPLICA_CORRUPT_SILENT
          || c.kind() == FaultKind.NN_RESTART) {
        timeline.add(new Timeline.Span(c.kind(), c.node(), at, now()));
      } else {
        active.add(new Active(c, at, heal, client));
      }
    } catch (IOException e) {
      problems.add(String.format(Locale.ROOT, "at %.0f s %s could not be injected: %s", at, what, e.getMessage()));
    }
  }

  /**
   * Bytes that leave the DataNode less than half a block available by HDFS's own count (its
   * Remaining, which already holds back the room of replicas being written): new replicas are
   * refused, and those being written still fit, with half a block on the disk to spare.
   */
  private long fillBytes(String node) throws IOException {
    ClusterHandle.Node n = cluster.dataNodes().stream().filter(x -> x.name().equals(node)).findFirst().orElseThrow();
    Long remaining = NodeCounters.read(n.ip() + ":9864", "Hadoop:service=DataNode,name=FSDatasetState*", 3000)
        .get("Remaining");
    if (remaining == null) {
      throw new IOException(node + " does not say how much room it has");
    }
    return Math.max(0, remaining - s.cluster().blockSize() / 2);
  }

  /**
   * Flips 1 to 8 bytes of the replica file; its .meta keeps the old checksums, which no longer
   * match, or ({@code silent}) gets checksums of the new bytes.
   */
  private void corrupt(String node, long blockId, double at, boolean silent) throws IOException {
    Optional<Path> file = ReplicaFiles.find(cluster.dataDir(node), blockId);
    if (file.isEmpty()) {
      throw new IOException("blk_" + blockId + " is no longer on " + node);
    }
    try (RandomAccessFile f = new RandomAccessFile(file.get().toFile(), "rw")) {
      long len = f.length();
      if (len == 0) {
        throw new IOException("blk_" + blockId + " on " + node + " is empty");
      }
      int flips = 1 + random.nextInt(8);
      for (int i = 0; i < flips; i++) {
        long pos = (long) (random.nextDouble() * len);
        f.seek(pos);
        int b = f.read();
        f.seek(pos);
        f.write(b ^ (1 + random.nextInt(255)));
      }
    }
    if (silent) {
      ReplicaFiles.rewriteChecksums(file.get());
    }
    corruptions.add(new Corruption(node, blockId, ReplicaFiles.digest(file.get()), at, silent));
  }

  /** Whether the replica corrupted on purpose is still on its DataNode's disk, as corrupted. */
  private boolean stillCorrupted(Corruption c) throws IOException {
    return ReplicaFiles.digestOf(cluster.dataDir(c.node()), c.blockId()).filter(c.digest()::equals).isPresent();
  }

  private void healDue() throws IOException, InterruptedException {
    for (Active a : List.copyOf(active)) {
      if (now() >= a.healAt()) {
        heal(a);
      }
    }
  }

  private void healAll() throws IOException, InterruptedException {
    for (Active a : List.copyOf(active)) {
      heal(a);
    }
  }

  private void heal(Active a) throws IOException, InterruptedException {
    active.remove(a);
    FaultScheduler.Choice c = a.choice();
    try {
      switch (c.kind()) {
        case DN_KILL, DN_KILL_IN_REPAIR -> cluster.startDataNodeAlone(c.node(), false);
        case DN_WIPE -> cluster.startDataNodeAlone(c.node(), true);
        case DN_ISOLATE -> cluster.rejoinDataNode(c.node());
        case DN_PAUSE -> cluster.pauseDataNode(c.node(), false);
        case AGENT_STALL -> cluster.stallAgent(c.node(), false);
        case DISK_FULL -> cluster.fillDisk(c.node(), -1);
        case LINK_SLOW -> cluster.shapeDataNode(c.node(), 0);
        case CLIENT_KILL, CLIENT_KILL_READ -> {
          a.client().destroyForcibly();
          a.client().waitFor();
        }
        default -> { }
      }
    } catch (IOException e) {
      problems.add(String.format(Locale.ROOT, "at %.0f s healing %s %s failed: %s", now(), c.kind().label(),
          c.node(), e.getMessage()));
    }
    timeline.add(new Timeline.Span(c.kind(), c.node(), a.start(), now()));
    if (c.kind().takesNode()) {
      healedAt.put(c.node(), now());
    }
  }

  /** A DataNode JVM gone that no fault stopped. */
  private void checkDeaths() throws IOException {
    Set<String> stopped = new HashSet<>();
    active.stream().filter(a -> a.choice().kind().killsDataNode())
        .forEach(a -> stopped.add(a.choice().node()));
    for (ClusterHandle.Node n : cluster.dataNodes()) {
      if (stopped.contains(n.name()) || deaths.contains(n.name())) {
        continue;
      }
      java.util.OptionalLong pid = cluster.pid(n.name());
      if (pid.isEmpty() || ProcessHandle.of(pid.getAsLong()).map(p -> !p.isAlive()).orElse(true)) {
        deaths.add(n.name());
        problems.add(String.format(Locale.ROOT, "%s died at about %.0f s without being killed (log: %s)", n.name(),
            now(), cluster.logDir().resolve(n.name() + ".log")));
      }
    }
  }

  // ---- the layout the injector protects ---------------------------------------------------------

  private GroupLayout layout() throws IOException {
    GroupLayout layout = new GroupLayout(unknownRule());
    WorkloadLog.Summary w = WorkloadLog.read(workloadLog());
    Set<String> paths = new HashSet<>(w.started());
    paths.addAll(clientKillPaths);
    groupsByPath.keySet().retainAll(paths);
    mappedComplete.keySet().retainAll(paths);
    for (String path : paths) {
      WorkloadLog.Written complete = w.live().get(path);
      if (complete != null && complete.equals(mappedComplete.get(path))) {
        continue;  // a completed file's groups do not change (until the path is written again)
      }
      try {
        // Read while a file is written, the NameNode lists no group still under construction:
        // such a list is kept only until the write completes.
        groupsByPath.put(path, groups(path));
        if (complete != null) {
          mappedComplete.put(path, complete);
        } else {
          mappedComplete.remove(path);
        }
      } catch (IOException e) {
        groupsByPath.remove(path);  // deleted, or the NameNode is away: the unknown-group rule covers it
        mappedComplete.remove(path);
      }
    }
    groupsByPath.values().forEach(l -> l.forEach(layout::addGroup));
    Map<String, Path> dirs = new HashMap<>();
    cluster.dataNodes().forEach(n -> dirs.put(n.name(), cluster.dataDir(n.name())));
    ReplicaScan.scan(dirs).forEach((id, reps) -> reps.forEach(r -> layout.addReplica(r.node(), id)));
    Set<String> down = new HashSet<>();
    active.stream().filter(a -> a.choice().node() != null && a.choice().kind().takesNode())
        .forEach(a -> down.add(a.choice().node()));
    layout.setDown(down);
    Set<GroupLayout.Replica> bad = new HashSet<>();
    Set<GroupLayout.Replica> silent = new HashSet<>();
    for (Corruption c : corruptions) {
      if (stillCorrupted(c)) {
        bad.add(new GroupLayout.Replica(c.node(), c.blockId()));
        if (c.silent()) {
          silent.add(new GroupLayout.Replica(c.node(), c.blockId()));
        }
      }
    }
    layout.setCorrupted(bad);
    layout.setSilentlyCorrupted(silent);
    Set<String> settling = new HashSet<>();
    healedAt.forEach((node, at) -> {
      if (now() - at < 60) {
        settling.add(node);
      }
    });
    layout.setSettling(settling);
    layout.setListedWhole(this::listedWhole);
    stillBad = bad;
    return layout;
  }

  /** Whether the NameNode lists every unit of the group on a live, uncorrupted replica (nothing to rebuild). */
  private boolean listedWhole(long groupId) {
    for (Map.Entry<String, List<GroupLayout.Group>> e : groupsByPath.entrySet()) {
      if (e.getValue().stream().noneMatch(g -> g.id() == groupId)) {
        continue;
      }
      try {
        LocatedBlocks blocks = fs.getClient().getLocatedBlocks(e.getKey(), 0, Long.MAX_VALUE);
        for (LocatedBlock b : blocks.getLocatedBlocks()) {
          if (b.getBlock().getBlockId() == groupId) {
            return !b.isCorrupt() && ListedUnits.unlisted((LocatedStripedBlock) b, blocks.getErasureCodingPolicy(),
                Set.of()).isEmpty();
          }
        }
      } catch (IOException ex) {
        return false; // deleted, or the NameNode is away
      }
    }
    return false;
  }

  /**
   * Scrubs the files holding replicas corrupted on purpose and not yet replaced, as an operator's
   * periodic {@code ec-repair verify} would: every internal block read with its checksums, a bad
   * replica reported to the NameNode, which then rebuilds it. Readers alone rarely read a
   * parity block, and a corrupt replica the NameNode does not know of counts against its group's
   * tolerance, so it would hold back every node fault on that group.
   */
  private int scrubCorrupted() {
    Set<Long> groups = new HashSet<>();
    stillBad.forEach(r -> groups.add(GroupLayout.groupOf(r.blockId())));
    int[] bad = {0};
    if (groups.isEmpty()) {
      return 0;
    }
    StripeVerifier v = new StripeVerifier(fs, conf);
    groupsByPath.forEach((path, gs) -> {
      if (gs.stream().anyMatch(g -> groups.contains(g.id()))) {
        try {
          for (StripeVerifier.GroupResult r : v.verify(fs.getFileStatus(new org.apache.hadoop.fs.Path(path)),
              x -> { })) {
            if (r.bad()) {
              bad[0]++;
              progress.accept(String.format(Locale.ROOT, "[%4.0f s] scrub: %s group %d: %s", now(), path, r.group(),
                  r.detail()));
            } else if (r.detail() != null) {
              // Not every unit checked (one unreadable, or skipped): a corrupt one may hide there.
              String why = r.outcome() + ": " + r.detail();
              if (!why.equals(scrubFailures.put(path + "#" + r.group(), why))) {
                progress.accept(String.format(Locale.ROOT, "[%4.0f s] scrub: %s group %d %s", now(), path, r.group(),
                    why));
              }
            }
          }
        } catch (IOException e) {
          // Deleted meanwhile, or the NameNode is away: the next round tries again. Said once per
          // path and reason, so a file that can never be scrubbed shows in the log.
          String why = e.toString();
          if (!why.equals(scrubFailures.put(path, why))) {
            progress.accept(String.format(Locale.ROOT, "[%4.0f s] scrub: %s not checked: %s", now(), path, why));
          }
        }
      }
    });
    return bad[0];
  }

  /** Groups of files the injector has not mapped: no more out than the weakest code survives. */
  private Predicate<int[]> unknownRule() {
    int min = s.policies().stream().mapToInt(p -> Policy.parse(p).code().faultTolerance()).min().orElse(1);
    return lost -> lost.length <= min;
  }

  private List<GroupLayout.Group> groups(String path) throws IOException {
    LocatedBlocks blocks = fs.getClient().getLocatedBlocks(path, 0, Long.MAX_VALUE);
    ErasureCodingPolicy policy = blocks.getErasureCodingPolicy();
    if (policy == null) {
      return List.of();
    }
    int k = policy.getNumDataUnits();
    int n = k + policy.getNumParityUnits();
    Predicate<int[]> decodable = RepairCatalog.owns(policy, false)
        ? RepairCatalog.code(RepairCatalog.spec(policy))::decodable : lost -> lost.length <= n - k;
    StripedLayout sl = new StripedLayout(k, n - k, policy.getCellSize(), s.cluster().blockSize());
    List<GroupLayout.Group> out = new ArrayList<>();
    for (LocatedBlock b : blocks.getLocatedBlocks()) {
      long groupLength = b.getBlockSize();
      Set<Integer> units = new HashSet<>();
      for (int u = 0; u < n; u++) {
        if (groupLength == 0 || sl.internalBlockLength(groupLength, u) > 0) {
          units.add(u);
        }
      }
      out.add(new GroupLayout.Group(b.getBlock().getBlockId(), policy.getName(), k, units, decodable));
    }
    return out;
  }

  /** Reconstructions the NameNode had scheduled and not seen done at the last sample; -1 unknown. */
  private long repairsInFlight() {
    List<Timeline.Sample> samples = timeline.samples();
    return samples.isEmpty() ? -1 : samples.get(samples.size() - 1).repairsInFlight();
  }

  // ---- samples ----------------------------------------------------------------------------------

  private void sampleTimeline() {
    long low = -1;
    long inFlight = -1;
    try {
      Map<String, Long> nn = NodeCounters.read(cluster.node("nn").ip() + ":9870", "Hadoop:service=NameNode,name=*",
          2000);
      low = nn.getOrDefault("LowRedundancyECBlockGroups", 0L) + nn.getOrDefault("MissingECBlockGroups", 0L)
          + nn.getOrDefault("CorruptECBlockGroups", 0L);
      inFlight = nn.getOrDefault("PendingReconstructionBlocks", nn.getOrDefault("PendingReplicationBlocks", 0L));
    } catch (IOException e) {
      // the NameNode is restarting: a gap in the curves
    }
    timeline.add(new Timeline.Sample(now(), low, inFlight));
  }

  /**
   * DataNodes running a reconstruction task now, by HDFS's own gauge (a task counts its weight in
   * XmitsInProgress while it runs); nodes under a fault are not asked (a paused one hangs).
   */
  private Set<String> reconstructing(Set<String> busy) {
    Set<String> out = new HashSet<>();
    for (ClusterHandle.Node n : cluster.dataNodes()) {
      if (busy.contains(n.name())) {
        continue;
      }
      try {
        Map<String, Long> info = NodeCounters.read(n.ip() + ":9864", "Hadoop:service=DataNode,name=DataNodeInfo", 2000);
        if (info.getOrDefault("XmitsInProgress", 0L) > 0) {
          out.add(n.name());
        }
      } catch (IOException e) {
        // starting or gone: not a node to pick now
      }
    }
    return out;
  }

  /** Every running DataNode's reconstruction counters (skipping those under a fault: a paused one hangs). */
  private void sampleRepairs() {
    Set<String> busy = new HashSet<>();
    active.stream().filter(a -> a.choice().node() != null).forEach(a -> busy.add(a.choice().node()));
    for (ClusterHandle.Node n : cluster.dataNodes()) {
      if (busy.contains(n.name())) {
        continue;
      }
      try {
        repairs.sample(n.name(), NodeCounters.read(n.ip() + ":9864", "Hadoop:service=DataNode,name=*", 3000));
      } catch (IOException e) {
        // starting or gone: the next sample counts what it missed
      }
    }
  }

  private Map<String, AgentResources> resources() throws IOException, InterruptedException {
    Map<String, AgentResources> out = new TreeMap<>();
    for (ClusterHandle.Node n : cluster.dataNodes()) {
      Optional<AgentResources> r = AgentResources.sample(cluster, n.name());
      if (r.isPresent()) {
        out.put(n.name(), r.get());
      }
    }
    return out;
  }

  // ---- the end ----------------------------------------------------------------------------------

  /** Files a killed client left open: their leases recovered, so the NameNode closes them. */
  private void recoverKilledWrites() {
    for (String p : clientKillPaths) {
      try {
        fs.recoverLease(new org.apache.hadoop.fs.Path(p));
      } catch (IOException e) {
        // never created (killed before it opened the file)
      }
    }
  }

  /**
   * Waits (at most the settle bound) until every DataNode is live and the NameNode has nothing
   * to rebuild, scrubbing the files that hold replicas corrupted on purpose and still there
   * (each internal block read with its checksums; a bad replica is reported) whenever it looks
   * done, until none is left. Returns the run time at which it settled (or gave up).
   */
  private double settle() throws IOException, InterruptedException {
    double deadline = now() + s.settleSeconds();
    progress.accept("settling (at most " + s.settleSeconds() + " s)");
    while (now() < deadline) {
      layout();  // which corrupted replicas are still there
      int bad = scrubCorrupted();
      if (bad == 0 && outstandingCorruptions().isEmpty() && healthyNow()) {
        progress.accept(String.format(Locale.ROOT, "settled at %.0f s", now()));
        return now();
      }
      Thread.sleep(2000);
    }
    problems.add("HDFS did not settle within " + s.settleSeconds() + " s");
    return now();
  }

  /**
   * Replicas corrupted on purpose and still on disk whose group a file still holds. A group whose
   * file was deleted can leave a replica the NameNode never listed (one of a unit whose writer
   * failed, say), which the DataNode deletes at its next full block report: that is not HDFS
   * failing to settle, and the end checks count it as moot.
   */
  private Set<GroupLayout.Replica> outstandingCorruptions() {
    Set<Long> held = new HashSet<>();
    groupsByPath.values().forEach(l -> l.forEach(g -> held.add(g.id())));
    Set<GroupLayout.Replica> out = new HashSet<>();
    stillBad.stream().filter(r -> held.contains(GroupLayout.groupOf(r.blockId()))).forEach(out::add);
    return out;
  }

  private boolean healthyNow() throws IOException {
    try {
      Map<String, Long> nn = NodeCounters.read(cluster.node("nn").ip() + ":9870",
          "Hadoop:service=NameNode,name=FSNamesystemState", 3000);
      if (nn.getOrDefault("NumLiveDataNodes", 0L) < cluster.dataNodes().size()) {
        return false;
      }
      // An excess replica stays listed until its DataNode reports it deleted; a reader sent
      // there meanwhile finds nothing (HDFS's own striped reader then decodes without that unit).
      Map<String, Long> blocks = NodeCounters.read(cluster.node("nn").ip() + ":9870",
          "Hadoop:service=NameNode,name=FSNamesystem", 3000);
      if (blocks.getOrDefault("ExcessBlocks", 1L) + blocks.getOrDefault("PendingDeletionBlocks", 1L) > 0) {
        return false;
      }
      return unsettledGroups() == 0;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Block groups the NameNode still has to rebuild: low on redundancy, missing or corrupt, and
   * those whose reconstruction it scheduled and has not seen done (it counts these as pending,
   * no longer as low on redundancy). A task whose pending time ran out sits in neither count
   * until the next redundancy round, so the closed files' listings are read as well.
   */
  private long unsettledGroups() throws IOException {
    return queuedGroups() + groupsNotListedWhole();
  }

  private long queuedGroups() throws IOException {
    ECBlockGroupStats st = fs.getClient().getNamenode().getECBlockGroupStats();
    Map<String, Long> nn = NodeCounters.read(cluster.node("nn").ip() + ":9870",
        "Hadoop:service=NameNode,name=FSNamesystem", 3000);
    Long pending = nn.get("PendingReconstructionBlocks");
    if (pending == null) {
      throw new IOException("the NameNode's FSNamesystem bean has no PendingReconstructionBlocks");
    }
    return st.getLowRedundancyBlockGroups() + st.getMissingBlockGroups() + st.getCorruptBlockGroups() + pending;
  }

  /** Groups of closed files with a unit the NameNode lists nowhere, or listed as corrupt. */
  private long groupsNotListedWhole() throws IOException {
    long n = 0;
    for (String path : groupsByPath.keySet()) {
      LocatedBlocks blocks;
      try {
        blocks = fs.getClient().getLocatedBlocks(path, 0, Long.MAX_VALUE);
      } catch (FileNotFoundException deleted) {
        continue;
      }
      if (blocks == null || blocks.isUnderConstruction() || blocks.getErasureCodingPolicy() == null) {
        continue;  // a write left open is the workload's, not the repairs'
      }
      for (LocatedBlock b : blocks.getLocatedBlocks()) {
        if (b.isCorrupt()
            || !ListedUnits.unlisted((LocatedStripedBlock) b, blocks.getErasureCodingPolicy(), Set.of()).isEmpty()) {
          n++;
        }
      }
    }
    return n;
  }

  private ThrashResult check(Map<String, AgentResources> baseline, double faultsEnd, double settleSeconds, Path png)
      throws IOException, InterruptedException {
    checkDeaths();
    WorkloadLog.Summary w = WorkloadLog.read(workloadLog());
    progress.accept("verifying " + w.live().size() + " files (SHA-256 through our client; the stock client too for "
        + "RS and LRC)");
    long lost = 0;
    long wrong = w.wrongReadBytes();
    int verified = 0;
    int stockVerified = 0;
    long bytes = 0;
    try (FileSystem ours = fileSystem(false); FileSystem stock = fileSystem(true)) {
      for (WorkloadLog.Written f : w.live().values()) {
        long[] r = verify(ours, f);
        boolean ok = r[0] == 0 && r[1] == 0;
        lost += r[0];
        wrong += r[1];
        if (ok && stockReadable(f.policy())) {
          long[] st = verify(stock, f);
          lost += st[0];
          wrong += st[1];
          ok = st[0] == 0 && st[1] == 0;
          stockVerified += ok ? 1 : 0;
        }
        if (ok) {
          verified++;
          bytes += f.length();
        }
      }
    }
    boolean fsckHealthy = fsck();
    long lowGroups = unsettledGroups();
    progress.accept("checking every replica on every DataNode's disk against the re-encoded files");
    ReplicaAudit audit = audit(w);
    wrong += audit.wrongBytes;
    lost += audit.lostBytes;
    Map<String, String> res = new TreeMap<>();
    boolean resourcesOk = resourcesBack(baseline, res);
    if (png != null) {
      timeline.write(png, String.format(Locale.ROOT, "thrash, seed %d: %d faults, %d DataNodes, %s", s.seed(),
          faultsByKind.values().stream().mapToInt(Integer::intValue).sum(), s.cluster().dataNodes(),
          String.join(", ", s.policies())), faultsEnd);
    }
    Map<String, Long> degraded = new LinkedHashMap<>(w.clientTotals());
    return new ThrashResult(s.seed(), s.minutes(), s.cluster().dataNodes(), s.policies(), faultsByKind, deferred,
        repairs.byRoute(), repairs.fallbacks(), degraded, w.written(), w.writeFailures(), w.deleted(), verified, bytes,
        stockVerified, w.readsByOutcome(), lost, wrong, audit.checked, audit.wrong, corruptions.size(),
        audit.replaced, audit.moot, audit.notReplaced, settleSeconds, fsckHealthy, lowGroups,
        fsckHealthy && lowGroups == 0, resourcesOk, res, List.copyOf(deaths), problems, s.stateDir().toString(),
        timeline.describe());
  }

  private FileSystem fileSystem(boolean stock) throws IOException {
    Configuration c = new Configuration(conf);
    c.set("fs.hdfs.impl", stock ? DistributedFileSystem.class.getName() : DegradedReadProbe.ECREPAIR_FS);
    return FileSystem.get(URI.create(cluster.nameNodeUri()), c);
  }

  /** {lost bytes, wrong bytes} of one whole read of the file against its recorded SHA-256 and contents. */
  private long[] verify(FileSystem client, WorkloadLog.Written f) {
    PatternData data = new PatternData(f.seed());
    MessageDigest md = ThrashWorkload.sha256();
    byte[] buf = new byte[1 << 20];
    long wrong = 0;
    long pos = 0;
    try (InputStream in = client.open(new org.apache.hadoop.fs.Path(f.path()))) {
      int n;
      while ((n = in.read(buf)) > 0) {
        md.update(buf, 0, n);
        wrong += ThrashWorkload.differing(data, pos, buf, Math.min(n, (int) Math.max(0, f.length() - pos)));
        pos += n;
      }
    } catch (IOException e) {
      progress.accept("LOST: " + f.path() + " could not be read: " + e);
      return new long[] {f.length() - pos, wrong};
    }
    boolean shaOk = HexFormat.of().formatHex(md.digest()).equals(f.sha256());
    if (pos != f.length() || !shaOk) {
      progress.accept(String.format(Locale.ROOT, "WRONG: %s: %d bytes read of %d, SHA-256 %s, %d bytes differ",
          f.path(), pos, f.length(), shaOk ? "matches" : "differs", wrong));
      // a digest that differs with every byte compared equal can only be a length difference
      wrong = Math.max(wrong, Math.abs(f.length() - pos));
      if (wrong == 0) {
        wrong = 1;
      }
    }
    return new long[] {0, wrong};
  }

  private boolean fsck() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (PrintStream ps = new PrintStream(out, true, StandardCharsets.UTF_8)) {
      int rc = new DFSck(conf, ps).run(new String[] {"/"});
      String text = out.toString(StandardCharsets.UTF_8);
      Files.writeString(s.stateDir().resolve("logs").resolve("fsck.txt"), text);
      return rc == 0 && text.contains("is HEALTHY");
    } catch (Exception e) {
      problems.add("fsck failed to run: " + e);
      return false;
    }
  }

  /** The replica audit's figures. */
  private static final class ReplicaAudit {
    long checked;
    long wrongBytes;
    long lostBytes;
    final List<String> wrong = new ArrayList<>();
    int replaced;
    int moot;
    final List<String> notReplaced = new ArrayList<>();
  }

  private ReplicaAudit audit(WorkloadLog.Summary w) throws IOException {
    ReplicaAudit a = new ReplicaAudit();
    Map<String, Path> dirs = new HashMap<>();
    cluster.dataNodes().forEach(n -> dirs.put(n.name(), cluster.dataDir(n.name())));
    Map<Long, List<ReplicaScan.Replica>> onDisk = ReplicaScan.scan(dirs);
    // the data directories go with the cluster: keep where every replica was, for a failure's analysis
    List<String> listing = new ArrayList<>();
    onDisk.forEach((id, reps) -> reps.forEach(r -> listing.add(r.node() + "\t" + id + "\t" + r.file())));
    java.util.Collections.sort(listing);
    Files.write(s.stateDir().resolve("logs").resolve("replicas-at-end.tsv"), listing);
    Set<Long> liveBlocks = new HashSet<>();
    Set<GroupLayout.Replica> onPurpose = new HashSet<>();
    for (Corruption c : corruptions) {
      if (stillCorrupted(c)) {
        onPurpose.add(new GroupLayout.Replica(c.node(), c.blockId()));
      }
    }
    for (WorkloadLog.Written f : w.live().values()) {
      LocatedBlocks blocks = fs.getClient().getLocatedBlocks(f.path(), 0, Long.MAX_VALUE);
      ErasureCodingPolicy policy = blocks.getErasureCodingPolicy();
      List<LocatedBlock> groups = blocks.getLocatedBlocks();
      for (int g = 0; g < groups.size(); g++) {
        long id = ((LocatedStripedBlock) groups.get(g)).getBlock().getBlockId();
        String[] expected = ExpectedBlocks.digests(conf, policy, s.cluster().blockSize(), f.length(), f.seed(), g);
        StripedLayout sl = new StripedLayout(policy.getNumDataUnits(), policy.getNumParityUnits(),
            policy.getCellSize(), s.cluster().blockSize());
        long groupLength = sl.groupLength(f.length(), g);
        for (int u = 0; u < expected.length; u++) {
          if (expected[u] == null) {
            continue;
          }
          liveBlocks.add(id + u);
          int present = 0;
          for (ReplicaScan.Replica r : onDisk.getOrDefault(id + u, List.of())) {
            if (onPurpose.contains(new GroupLayout.Replica(r.node(), id + u))) {
              a.checked++;
              present++;
              continue;  // bad on purpose: the corrupted-replica check below says whether HDFS replaced it
            }
            Optional<String> digest = ReplicaFiles.digestIfThere(r.file());
            if (digest.isEmpty()) {
              continue;  // an excess replica its DataNode deleted since the scan
            }
            a.checked++;
            present++;
            if (!digest.get().equals(expected[u])) {
              a.wrongBytes += sl.internalBlockLength(groupLength, u);
              a.wrong.add(f.path() + " group " + g + " unit " + u + " on " + r.node() + " (" + r.file() + ")");
            }
          }
          if (present == 0) {
            a.lostBytes += sl.internalBlockLength(groupLength, u);
            a.wrong.add(f.path() + " group " + g + " unit " + u + " (blk_" + (id + u) + "): no replica on any disk; "
                + "the NameNode places it on " + locations((LocatedStripedBlock) groups.get(g), u));
          }
        }
      }
    }
    for (Corruption c : corruptions) {
      if (!liveBlocks.contains(c.blockId())) {
        a.moot++;  // its file was deleted: nothing left to replace
        continue;
      }
      if (stillCorrupted(c)) {
        a.notReplaced.add("blk_" + c.blockId() + " on " + c.node() + " (corrupted at "
            + String.format(Locale.ROOT, "%.0f s", c.at()) + ")");
      } else {
        a.replaced++;
      }
    }
    a.wrong.forEach(x -> progress.accept("replica check: " + x));
    a.notReplaced.forEach(x -> progress.accept("corrupted on purpose and still there: " + x));
    return a;
  }

  private String locations(LocatedStripedBlock b, int unit) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < b.getBlockIndices().length && i < b.getLocations().length; i++) {
      if (b.getBlockIndices()[i] == unit) {
        String ip = b.getLocations()[i].getIpAddr();
        out.add(cluster.dataNodes().stream().filter(n -> n.ip().equals(ip)).map(ClusterHandle.Node::name)
            .findFirst().orElse(ip));
      }
    }
    return out.isEmpty() ? "no DataNode" : String.join(", ", out);
  }

  /**
   * Polls (up to 3 minutes: the agents' idle threads end after 10 to 60 s) until each DataNode
   * was within its baseline at least once: a leak never goes back, while an idle connection or
   * a thread that comes and goes with the DataNode's own periodic work may be up at any one look.
   */
  private boolean resourcesBack(Map<String, AgentResources> baseline, Map<String, String> out)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + 180_000_000_000L;
    Set<String> back = new HashSet<>();
    while (true) {
      Map<String, AgentResources> nowR = resources();
      out.clear();
      for (Map.Entry<String, AgentResources> b : baseline.entrySet()) {
        AgentResources r = nowR.get(b.getKey());
        if (r != null && r.within(b.getValue())) {
          back.add(b.getKey());
        } else if (!back.contains(b.getKey())) {
          out.put(b.getKey(), "baseline " + b.getValue() + "; now " + r
              + (r == null || r.grownDescriptors(b.getValue()).isEmpty() ? "" : " (" + r.grownDescriptors(b.getValue()) + ")"));
        }
      }
      boolean ok = back.containsAll(baseline.keySet());
      if (ok || System.nanoTime() > deadline) {
        if (ok) {
          out.put("all", baseline.size() + " DataNodes back within their baseline (threads, agent sockets, descriptors)");
        }
        return ok;
      }
      Thread.sleep(5000);
    }
  }
}
