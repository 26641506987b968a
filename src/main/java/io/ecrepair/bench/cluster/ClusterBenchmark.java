package io.ecrepair.bench.cluster;

import io.ecrepair.bench.cluster.ClusterHandle.Node;
import io.ecrepair.harness.DegradedReadProbe;
import io.ecrepair.harness.ShippedPolicies;
import io.ecrepair.hdfs.CostKeys;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicyInfo;

/**
 * {@code bench cluster}: starts the shaped multi-process cluster, adds the shipped policies, and
 * runs every scenario's full-node recovery and degraded reads on it, one after the other on the
 * same cluster, then tears it down (also on failure or Ctrl-C, see {@link ClusterHandle}).
 */
public final class ClusterBenchmark {
  /** Everything a run needs. */
  public record Settings(ClusterOptions cluster, List<Scenario> scenarios, int groups, int warmupGroups,
                         boolean degradedReads, boolean singleBlock, boolean decommission,
                         ForegroundLoad.Settings foreground, Path policyFile, Path script, Path stateDir,
                         long timeoutMs) {
    public Settings {
      if (groups < 1 || groups > 1000) {
        throw new IllegalArgumentException("--groups must be between 1 and 1000");
      }
      if (warmupGroups < 0 || warmupGroups > 1000) {
        throw new IllegalArgumentException("--warmup-groups must be between 0 and 1000");
      }
      for (Scenario s : scenarios) {
        if (s.adaptive() && !cluster.slowNodes().isEmpty()) {
          throw new IllegalArgumentException(s.name() + ": the adaptive budget is given one link rate for every "
              + "DataNode, which --slow-nodes makes wrong for the slow ones; run it without --slow-nodes");
        }
        ErasureCodingPolicy p = ShippedPolicies.byName(s.policy());
        if (cluster.blockSize() % p.getCellSize() != 0) {
          throw new IllegalArgumentException("--block-size " + cluster.blockSize() + " is not a multiple of "
              + s.policy() + "'s cell size " + p.getCellSize());
        }
        int n = p.getNumDataUnits() + p.getNumParityUnits();
        if (cluster.dataNodes() < n + 1) {
          throw new IllegalArgumentException(s.policy() + " needs at least " + (n + 1) + " DataNodes (its " + n
              + " internal blocks and a spare to rebuild on); give --datanodes");
        }
      }
    }
  }

  /** What a run measured, plus what it could not measure and why. */
  public record Report(Settings settings, List<FullNodeRecovery.Result> recoveries, List<DegradedRead.Result> reads,
                       List<SingleBlockRace.Result> singles, List<DecommissionRace.Result> decommissions,
                       List<String> notes) {}

  private final Settings settings;
  private final Consumer<String> progress;
  private final LongConsumer written;

  public ClusterBenchmark(Settings settings, Consumer<String> progress, LongConsumer written) {
    this.settings = settings;
    this.progress = progress;
    this.written = written;
  }

  public Report run() throws IOException, InterruptedException {
    List<FullNodeRecovery.Result> recoveries = new ArrayList<>();
    List<DegradedRead.Result> reads = new ArrayList<>();
    List<SingleBlockRace.Result> singles = new ArrayList<>();
    List<DecommissionRace.Result> decommissions = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    try (ClusterHandle cluster = ClusterHandle.start(settings.script(), settings.stateDir(), settings.cluster(),
        progress);
         DistributedFileSystem fs = connect(cluster)) {
      addPolicies(fs);
      FullNodeRecovery recovery = new FullNodeRecovery(cluster, settings.cluster(), fs, progress, settings.timeoutMs());
      DegradedRead degraded = new DegradedRead(cluster, fs, progress, settings.timeoutMs());
      SingleBlockRace race = new SingleBlockRace(recovery, degraded, progress);
      DecommissionRace leave = new DecommissionRace(cluster, fs, recovery, progress, settings.timeoutMs());
      ForegroundLoad load = settings.foreground() == null ? null : new ForegroundLoad(cluster, fs,
          settings.foreground(), settings.cluster().clientRateMbit(), progress);
      boolean ourClient = DegradedRead.ourClientPresent();
      if (settings.degradedReads() && !ourClient) {
        notes.add("hadoop-ec-repair's client FileSystem (" + DegradedReadProbe.ECREPAIR_FS + ") is not in this build: "
            + "degraded reads ran with the stock HDFS client only; Clay and Butterfly cannot be read degraded "
            + "without it (HDFS's decoders refuse vector codes)");
      }
      Map<String, String> running = new java.util.HashMap<>(Map.of(
          Scenario.REBUILD_RS_KEY, settings.cluster().dataNodeConf().getOrDefault(Scenario.REBUILD_RS_KEY, "false"),
          Scenario.PARALLEL_KEY, settings.cluster().dataNodeConf().getOrDefault(Scenario.PARALLEL_KEY, "true"),
          Scenario.ADAPTIVE_KEY, settings.cluster().dataNodeConf().getOrDefault(Scenario.ADAPTIVE_KEY, "false"),
          Scenario.NICE_KEY, runNice(settings),
          CostKeys.COSTS_KEY, settings.cluster().dataNodeConf().getOrDefault(CostKeys.COSTS_KEY, "")));
      String slowCosts = slowCosts(cluster);
      Set<String> readDone = new HashSet<>();
      long seed = 1;
      for (Scenario s : settings.scenarios()) {
        // Only the settings that matter to the scenario's codec decide a restart.
        Map<String, String> wanted = new java.util.HashMap<>(running);
        if (s.isRs()) {
          wanted.put(Scenario.REBUILD_RS_KEY, s.dataNodeConf().get(Scenario.REBUILD_RS_KEY));
        }
        if (s.isVector()) {
          wanted.put(Scenario.PARALLEL_KEY, s.dataNodeConf().get(Scenario.PARALLEL_KEY));
        }
        if (!s.isStockRs()) {  // HDFS's own reconstruction does not use our budget
          wanted.put(Scenario.ADAPTIVE_KEY, s.adaptive() ? "true"
              : settings.cluster().dataNodeConf().getOrDefault(Scenario.ADAPTIVE_KEY, "false"));
          wanted.put(Scenario.NICE_KEY, s.noNice() ? "0" : runNice(settings));
        }
        if (s.costs() && slowCosts.isEmpty()) {
          throw new IllegalArgumentException(s.name() + ": '+costs' needs slow DataNodes (--slow-nodes)");
        }
        wanted.put(CostKeys.COSTS_KEY, s.costs() ? slowCosts : "");
        if (!wanted.equals(running)) {
          running = wanted;
          progress.accept("restarting every DataNode with " + new java.util.TreeMap<>(wanted));
          Map<String, String> all = new java.util.HashMap<>(settings.cluster().dataNodeConf());
          all.putAll(wanted);  // the run's own DataNode settings stay
          cluster.restartDataNodes(all);
        }
        ErasureCodingPolicy policy = enable(fs, s.policy());
        if (settings.warmupGroups() > 0) {
          warmUp(recovery, s, policy, seed++);
        }
        FullNodeRecovery.Result r = recovery.run(s.name(), policy, settings.groups(), settings.cluster().blockSize(),
            seed++, FullNodeRecovery.Loss.CRASH, Set.of(), written);
        progress.accept(String.format(java.util.Locale.ROOT, "%s: rebuilt %d blocks in %.1f s by %s, %.2f blocks "
            + "received per block (theory %.2f), %s", s.name(), r.lost().size(), r.repairSeconds(), r.engine(),
            r.measuredBlocks(), r.theoryBlocks(), r.verified() ? "all verified" : "VERIFICATION FAILED"));
        if (load != null) {
          r = r.withForeground(underLoad(recovery, load, s, policy, seed++, written));
        }
        recoveries.add(r);
        if (r.bound() != null) {
          notes.add(String.format(java.util.Locale.ROOT, "%s: on this recovery's layout the busiest DataNode would "
              + "receive %.2f blocks with every task central, and %.2f at best with the stored plans chosen knowing "
              + "every task (so at most %.2fx faster than central when the links decide, busiest / mean of the live "
              + "DataNodes %.2f); it received %.2f",
              s.name(), r.bound().central(), r.bound().best(), r.bound().gain(), r.bound().bestBalance(),
              r.busiestReceivedBlocks()));
        }
        if (s.pluginRebuildsRs() && !r.engine().equals("ec-repair")) {
          notes.add(s.name() + ": the DataNodes ran with " + Scenario.REBUILD_RS_KEY + "=true but the reconstruction "
              + "tasks were run by " + r.engine() + " (the DataNodes' plugin did not take them: an older plugin jar, "
              + "or the plugin not active), so this is stock HDFS reconstruction");
        }
        if (settings.singleBlock()) {
          SingleBlockRace.Result one = race.run(s, policy, settings.cluster().blockSize(), seed++, written);
          if (!one.verified()) {
            throw new IOException(s.name() + ": the block rebuilt in the single-block race differs from the original "
                + "(logs: " + settings.stateDir() + ")");
          }
          singles.add(one);
        }
        if (settings.decommission()) {
          DecommissionRace.Result d = leave.run(s.name(), policy, settings.groups(), settings.cluster().blockSize(),
              seed++, written);
          if (!d.verified()) {
            throw new IOException(s.name() + ": a block of the decommissioned DataNode was not copied right (logs: "
                + settings.stateDir() + ")");
          }
          decommissions.add(d);
        }
        if (settings.degradedReads() && readDone.add(s.policy())) {
          reads.addAll(slowCosts.isEmpty() ? degradedReads(degraded, s, policy, seed++, ourClient, notes)
              : costModelReads(degraded, s, policy, seed++, ourClient, notes));
        }
      }
    }
    return new Report(settings, recoveries, reads, singles, decommissions, notes);
  }

  /** The same recovery again, under the foreground load; a wrong byte, rebuilt or read, stops the run. */
  private FullNodeRecovery.Foreground underLoad(FullNodeRecovery recovery, ForegroundLoad load, Scenario s,
                                                ErasureCodingPolicy policy, long seed, LongConsumer written)
      throws IOException, InterruptedException {
    progress.accept(s.name() + ": the same recovery again under the foreground load");
    FullNodeRecovery.Foreground f = recovery.run(s.name(), policy, settings.groups(), settings.cluster().blockSize(),
        seed, FullNodeRecovery.Loss.CRASH, Set.of(), -1, load, written).foreground();
    if (!f.verified() || !f.load().verified()) {
      throw new IOException(s.name() + ": under the foreground load, " + (f.verified() ? "a foreground read "
          + "returned wrong bytes" : "a rebuilt block differs from the original") + " (logs: " + settings.stateDir()
          + ")");
    }
    ForegroundOps.Window before = f.load().before();
    ForegroundOps.Window during = f.load().during();
    progress.accept(String.format(java.util.Locale.ROOT, "%s: under load rebuilt in %.1f s; foreground read p99 "
        + "%.0f ms before, %.0f ms during the repair; write p99 %.0f ms, %.0f ms", s.name(), f.repairSeconds(),
        before.reads().p99Ms(), during.reads().p99Ms(), before.writes().p99Ms(), during.writes().p99Ms()));
    return f;
  }

  /**
   * Two unmeasured recoveries of the same kind first, so the measured one runs on DataNodes
   * whose JVMs have compiled the paths it uses, as a long-running DataNode has. On this cluster
   * 17 JVMs share the machine's cores: in a recovery on fresh JVMs, perf showed the JIT
   * compilers and the interpreter taking about half of all CPU time. The spread placement sends
   * a recovery's rebuilds to nearly every DataNode, but never to its victim, so the second
   * warm-up spares the first one's victim: then every DataNode has rebuilt blocks. (With one
   * warm-up, its victim rebuilt two blocks in the measured CLAY-10-4 recovery in 21 and 30 s
   * while warm DataNodes rebuilt two in 10-16 s, and it decided the recovery time.) A
   * warm-up's victim is cut off the network rather than killed, so it rejoins with the same
   * JVM: a victim restarted as a new JVM took a quarter of the machine's CPU, compiling and
   * interpreting, while it served reads in the measured recovery.
   */
  private void warmUp(FullNodeRecovery recovery, Scenario s, ErasureCodingPolicy policy, long seed)
      throws IOException, InterruptedException {
    Set<String> spared = new HashSet<>();
    for (int round = 1; round <= 2; round++) {
      progress.accept(s.name() + ": warm-up recovery " + round + " of 2 (not measured)");
      FullNodeRecovery.Result w = recovery.run(s.name() + "-warmup" + round, policy, settings.warmupGroups(),
          settings.cluster().blockSize(), seed + 1000L * round, FullNodeRecovery.Loss.ISOLATION, spared, written);
      if (!w.verified()) { // a wrong byte is never a footnote: stop the run
        throw new IOException(s.name() + ": a block rebuilt in warm-up recovery " + round + " differs from the "
            + "original (logs: " + settings.stateDir() + ")");
      }
      spared.add(w.victim());
    }
  }

  private List<DegradedRead.Result> degradedReads(DegradedRead degraded, Scenario s, ErasureCodingPolicy policy,
                                                  long seed, boolean ourClient, List<String> notes)
      throws IOException, InterruptedException {
    boolean stockCanRead = !io.ecrepair.layout.Policy.parse(s.policy()).code().needsWholeCells();
    List<Boolean> clients = new ArrayList<>();
    if (stockCanRead) {
      clients.add(false);
    }
    if (ourClient) {
      clients.add(true);
    }
    if (clients.isEmpty()) {
      notes.add(s.policy() + ": no degraded read (needs hadoop-ec-repair's client FileSystem)");
      return List.of();
    }
    List<DegradedRead.Result> out = new ArrayList<>();
    long blockSize = settings.cluster().blockSize();
    Node holder = degraded.prepare(s.name(), policy, blockSize, seed);
    try {
      for (boolean ours : clients) {
        DegradedRead.Result r = degraded.run(s.name(), policy, blockSize, seed, holder, ours);
        out.add(r);
        progress.accept(String.format(java.util.Locale.ROOT, "%s: %s client read the lost block in %.2f s "
            + "(healthy %.2f s), fetching %.2f blocks, %s", s.policy(), r.client(), r.degradedSeconds(),
            r.healthySeconds(), r.fetchedBlocks(), r.verified() ? "verified" : "WRONG BYTES"));
      }
    } finally {
      degraded.cleanup(s.name());
    }
    return out;
  }

  /**
   * With slow DataNodes: reads of the whole group (every read spans the lost block) by our
   * client without and then with the cost model (it measures the DataNodes' costs as it reads),
   * on the same file with the same DataNode unreachable; without the cost model an RS read is
   * HDFS's own (the code's default choice: the first k blocks it can open).
   */
  private List<DegradedRead.Result> costModelReads(DegradedRead degraded, Scenario s, ErasureCodingPolicy policy,
                                                   long seed, boolean ourClient, List<String> notes)
      throws IOException, InterruptedException {
    if (!ourClient) {
      notes.add(s.policy() + ": no cost-model read race (needs hadoop-ec-repair's client FileSystem)");
      return List.of();
    }
    List<DegradedRead.Result> out = new ArrayList<>();
    long blockSize = settings.cluster().blockSize();
    String name = s.policy() + "-costs";
    Node holder = degraded.prepare(name, policy, blockSize, seed);
    try {
      for (boolean costModel : new boolean[] {false, true}) {
        // RS without the cost model is HDFS's own reader: say so by running the stock client.
        boolean ours = costModel || !s.isRs();
        DegradedRead.Result r = degraded.run(name, policy, blockSize, seed, holder, ours, costModel, true);
        out.add(r);
        progress.accept(String.format(java.util.Locale.ROOT, "%s: the whole group read %s the cost model in %.2f s, "
            + "fetching %.2f blocks per block, %s", s.policy(), costModel ? "with" : "without", r.degradedSeconds(),
            r.fetchedBlocks(), r.verified() ? "verified" : "WRONG BYTES"));
      }
    } finally {
      degraded.cleanup(name);
    }
    return out;
  }

  /** The repair nice the run's DataNodes have unless a scenario says {@code +no-nice}. */
  private static String runNice(Settings settings) {
    return settings.cluster().dataNodeConf().getOrDefault(Scenario.NICE_KEY,
        Integer.toString(io.ecrepair.hdfs.task.DataNodeKeys.REPAIR_NICE_DEFAULT));
  }

  /**
   * The operator's costs of the slow DataNodes for {@value CostKeys#COSTS_KEY}: each one's IP at
   * the ratio of the links' rates; empty when every DataNode has the same links.
   */
  private String slowCosts(ClusterHandle cluster) {
    ClusterOptions c = settings.cluster();
    List<String> entries = new ArrayList<>();
    for (int i : c.slowNodes()) {
      double factor = (double) c.rateMbit() / c.slowRateMbit();
      entries.add(cluster.node("dn" + i).ip() + "=" + String.format(java.util.Locale.ROOT, "%.3g", factor));
    }
    return String.join(",", entries);
  }

  /** The stock HDFS client of this build, talking to the cluster's NameNode. */
  static DistributedFileSystem connect(ClusterHandle cluster) throws IOException {
    Configuration conf = new HdfsConfiguration();
    conf.set("fs.defaultFS", cluster.nameNodeUri());
    conf.set("io.erasurecode.codec.rs.rawcoders", "rs_isal,rs_native,rs_java");
    conf.setBoolean("fs.hdfs.impl.disable.cache", true);
    FileSystem fs = FileSystem.get(URI.create(cluster.nameNodeUri()), conf);
    if (!(fs instanceof DistributedFileSystem dfs)) {
      throw new IllegalStateException("not an HDFS: " + fs.getClass().getName());
    }
    return dfs;
  }

  /**
   * Adds every policy of the shipped file (HDFS's own loader, absolute path), and any scenario
   * policy the file lacks (e.g. CLAY-10-4-4096k), built from its name as an operator's policy
   * file entry would be.
   */
  private void addPolicies(DistributedFileSystem fs) throws IOException {
    List<ErasureCodingPolicy> policies = new java.util.ArrayList<>(ShippedPolicies.load(settings.policyFile().toAbsolutePath()));
    progress.accept("adding " + policies.size() + " policies from " + settings.policyFile().toAbsolutePath());
    for (Scenario s : settings.scenarios()) {
      if (policies.stream().noneMatch(p -> p.getName().equals(s.policy()))) {
        progress.accept("adding " + s.policy() + " (not in the policy file)");
        policies.add(ShippedPolicies.byName(s.policy()));
      }
    }
    fs.addErasureCodingPolicies(policies.toArray(new ErasureCodingPolicy[0]));
  }

  private static ErasureCodingPolicy enable(DistributedFileSystem fs, String name) throws IOException {
    for (ErasureCodingPolicyInfo info : fs.getAllErasureCodingPolicies()) {
      if (info.getPolicy().getName().equals(name)) {
        fs.enableErasureCodingPolicy(name);
        return info.getPolicy();
      }
    }
    throw new IllegalArgumentException("the NameNode knows no policy " + name + " (not in the policy file?)");
  }
}
