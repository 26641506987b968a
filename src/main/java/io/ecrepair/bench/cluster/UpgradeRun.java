package io.ecrepair.bench.cluster;

import io.ecrepair.bench.cluster.ClusterHandle.Node;
import io.ecrepair.harness.DegradedReadProbe;
import io.ecrepair.harness.PatternData;
import io.ecrepair.harness.ShippedPolicies;
import io.ecrepair.hdfs.ListedUnits;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;

/**
 * An upgrade of Hadoop under files of our policies, on the multi-process cluster (two Hadoop
 * lines cannot share one JVM): files are written on the cluster running one line's build, every
 * JVM is stopped and the other line's build started on the same metadata and data (the NameNode
 * with {@code -upgrade}), and then every file is read, read again with the DataNode holding the
 * most of their units killed, its units rebuilt and compared byte for byte with the replicas
 * written before the upgrade, read once more, and the upgrade finalized.
 */
public final class UpgradeRun {
  /** What to run: {@code cluster} names the first line's distribution, {@code toDist} the second's. */
  public record Settings(ClusterOptions cluster, java.nio.file.Path toDist, List<String> policies, int groups,
                         java.nio.file.Path script, java.nio.file.Path stateDir, long timeoutMs) {}

  /** One step, on the Hadoop version that ran it. */
  public record Step(String name, String hadoop, String detail, double seconds, boolean passed) {}

  public record Result(String from, String to, List<Step> steps) {
    public boolean passed() {
      return !steps.isEmpty() && steps.stream().allMatch(Step::passed);
    }
  }

  private record Written(Path file, ErasureCodingPolicy policy, long length, long seed) {}

  private static final Pattern SOFTWARE_VERSION = Pattern.compile("\"SoftwareVersion\"\\s*:\\s*\"([^\"]+)\"");

  private final Settings settings;
  private final Consumer<String> progress;
  private final List<Step> steps = new ArrayList<>();

  public UpgradeRun(Settings settings, Consumer<String> progress) {
    this.settings = settings;
    this.progress = progress;
  }

  public Result run() throws IOException, InterruptedException {
    String from = settings.cluster().hadoopVersion();
    String to = settings.cluster().withDist(settings.toDist()).hadoopVersion();
    if (to == null) {
      throw new IOException("cannot tell which Hadoop " + settings.toDist() + " runs (no lib/hadoop/hadoop-hdfs-*.jar)");
    }
    try (ClusterHandle cluster = ClusterHandle.start(settings.script(), settings.stateDir(), settings.cluster(),
        progress)) {
      List<Written> files;
      Map<Long, String> digests;
      try (DistributedFileSystem fs = ClusterBenchmark.connect(cluster)) {
        String running = nameNodeVersion(cluster);
        long t = System.nanoTime();
        files = write(cluster, fs);
        boolean read = readAll(cluster, files);
        long bytes = files.stream().mapToLong(Written::length).sum();
        steps.add(new Step("write", running, String.format(Locale.ROOT, "%d files of %s, %d MiB, read back",
            files.size(), String.join(", ", settings.policies()), bytes >> 20), seconds(t), read));
        digests = digests(cluster, fs, files);
      }

      long t = System.nanoTime();
      progress.accept("upgrading: every JVM stopped, started again on " + settings.toDist());
      cluster.upgrade(settings.toDist());
      try (DistributedFileSystem fs = ClusterBenchmark.connect(cluster)) {
        String running = nameNodeVersion(cluster);
        boolean pending = !fs.upgradeStatus();
        steps.add(new Step("upgrade", running, "NameNode started with -upgrade, " + cluster.dataNodes().size()
            + " DataNodes live, upgrade " + (pending ? "not yet finalized" : "FINALIZED TOO EARLY"), seconds(t),
            running.startsWith(to) && pending));

        t = System.nanoTime();
        boolean read = readAll(cluster, files);
        steps.add(new Step("read", running, "every file, through hadoop-ec-repair's client", seconds(t), read));

        Node victim = mostLoaded(cluster, fs, files);
        List<LocatedBlockUnit> lost = unitsOn(fs, files, victim);
        progress.accept("killing " + victim.name() + ", which holds " + lost.size() + " units");
        cluster.stopDataNode(victim.name());
        t = System.nanoTime();
        read = readAll(cluster, files);
        steps.add(new Step("degraded read", running, "every file, " + victim.name() + " (" + lost.size()
            + " units) killed", seconds(t), read));

        t = System.nanoTime();
        boolean rebuilt = awaitRebuilt(fs, files, victim);
        int same = rebuilt ? sameAsBefore(cluster, fs, files, lost, digests) : 0;
        steps.add(new Step("repair", running, rebuilt
            ? same + " of " + lost.size() + " rebuilt units equal to the replicas written before the upgrade"
            : "the NameNode did not list every unit live again in " + settings.timeoutMs() / 1000 + " s",
            seconds(t), rebuilt && same == lost.size()));

        t = System.nanoTime();
        read = readAll(cluster, files);
        steps.add(new Step("read after repair", running, "every file", seconds(t), read));

        t = System.nanoTime();
        fs.finalizeUpgrade();
        boolean finalized = fs.upgradeStatus();
        steps.add(new Step("finalize", running, "dfsadmin -finalizeUpgrade: " + (finalized ? "finalized"
            : "STILL PENDING"), seconds(t), finalized));
      }
    }
    return new Result(from, to, List.copyOf(steps));
  }

  private List<Written> write(ClusterHandle cluster, DistributedFileSystem fs) throws IOException, InterruptedException {
    TrackedWrite writer = new TrackedWrite(cluster, fs, settings.timeoutMs(), progress);
    List<ErasureCodingPolicy> policies = new ArrayList<>();
    for (String name : settings.policies()) {
      policies.add(ShippedPolicies.byName(name));
    }
    fs.addErasureCodingPolicies(policies.toArray(new ErasureCodingPolicy[0]));
    List<Written> files = new ArrayList<>();
    long seed = 1;
    for (ErasureCodingPolicy p : policies) {
      fs.enableErasureCodingPolicy(p.getName());
      long blockSize = settings.cluster().blockSize();
      // Full groups and a last one of one and a half cell rows, so a short group is upgraded too.
      long length = settings.groups() * (long) p.getNumDataUnits() * blockSize
          + (long) p.getNumDataUnits() * p.getCellSize() * 3 / 2 + 1000;
      Path file = new Path("/upgrade/" + p.getName() + "/file");
      progress.accept(String.format(Locale.ROOT, "writing %s (%d MiB)", file, length >> 20));
      writer.write(p.getName(), file, p, blockSize, length, seed, n -> { });
      files.add(new Written(file, p, length, seed++));
    }
    return files;
  }

  /** Reads every file whole through our client and compares it with what was written; false on any difference. */
  private boolean readAll(ClusterHandle cluster, List<Written> files) throws IOException {
    Configuration conf = new HdfsConfiguration();
    conf.set("fs.defaultFS", cluster.nameNodeUri());
    conf.set("fs.hdfs.impl", DegradedReadProbe.ECREPAIR_FS);
    conf.setBoolean("fs.hdfs.impl.disable.cache", true);
    boolean all = true;
    try (FileSystem fs = FileSystem.get(URI.create(cluster.nameNodeUri()), conf)) {
      byte[] buf = new byte[1 << 20];
      for (Written w : files) {
        long pos = 0;
        boolean same = true;
        try (FSDataInputStream in = fs.open(w.file())) {
          PatternData data = new PatternData(w.seed());
          int n;
          while (same && (n = in.read(buf)) > 0) {
            same = data.matches(pos, buf, 0, n);
            pos += n;
          }
        }
        if (!same || pos != w.length()) {
          progress.accept(w.file() + " read back WRONG at byte " + pos + " of " + w.length());
          all = false;
        }
      }
    }
    return all;
  }

  /** Units of every written group: where they are and their group's block id. */
  private record LocatedBlockUnit(long blockId, String holderIp) {}

  private static List<LocatedBlockUnit> units(DistributedFileSystem fs, List<Written> files) throws IOException {
    List<LocatedBlockUnit> out = new ArrayList<>();
    for (Written w : files) {
      for (LocatedBlock b : fs.getClient().getLocatedBlocks(w.file().toString(), 0, w.length()).getLocatedBlocks()) {
        LocatedStripedBlock g = (LocatedStripedBlock) b;
        for (int j = 0; j < g.getBlockIndices().length; j++) {
          out.add(new LocatedBlockUnit(g.getBlock().getBlockId() + g.getBlockIndices()[j],
              g.getLocations()[j].getIpAddr()));
        }
      }
    }
    return out;
  }

  /** SHA-256 of every unit's replica file as written. */
  private static Map<Long, String> digests(ClusterHandle cluster, DistributedFileSystem fs, List<Written> files)
      throws IOException {
    Map<Long, String> out = new HashMap<>();
    for (LocatedBlockUnit u : units(fs, files)) {
      Node holder = cluster.dataNodeAt(u.holderIp());
      java.nio.file.Path replica = ReplicaFiles.find(cluster.dataDir(holder.name()), u.blockId())
          .orElseThrow(() -> new IOException("no replica file of blk_" + u.blockId() + " on " + holder.name()));
      out.put(u.blockId(), ReplicaFiles.digest(replica));
    }
    return out;
  }

  private static Node mostLoaded(ClusterHandle cluster, DistributedFileSystem fs, List<Written> files)
      throws IOException {
    Map<String, Integer> count = new LinkedHashMap<>();
    for (LocatedBlockUnit u : units(fs, files)) {
      count.merge(u.holderIp(), 1, Integer::sum);
    }
    String ip = count.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
    return cluster.dataNodeAt(ip);
  }

  private static List<LocatedBlockUnit> unitsOn(DistributedFileSystem fs, List<Written> files, Node node)
      throws IOException {
    return units(fs, files).stream().filter(u -> u.holderIp().equals(node.ip())).toList();
  }

  /** Waits until the NameNode lists every unit of every file on a live node other than {@code gone}, none low. */
  private boolean awaitRebuilt(DistributedFileSystem fs, List<Written> files, Node gone)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + settings.timeoutMs() * 1_000_000L;
    while (System.nanoTime() < deadline) {
      if (TrackedWrite.healthy(fs)) {
        boolean all = true;
        for (Written w : files) {
          all &= listedOffNode(fs, w, gone.ip());
        }
        if (all) {
          return true;
        }
      }
      Thread.sleep(500);
    }
    return false;
  }

  /** Whether each group of {@code w} lists all its units, none on the node at {@code ip}. */
  private static boolean listedOffNode(DistributedFileSystem fs, Written w, String ip) throws IOException {
    for (LocatedBlock b : fs.getClient().getLocatedBlocks(w.file().toString(), 0, w.length()).getLocatedBlocks()) {
      LocatedStripedBlock g = (LocatedStripedBlock) b;
      if (!ListedUnits.unlisted(g, w.policy(), Set.of()).isEmpty()
          || java.util.Arrays.stream(g.getLocations()).anyMatch(loc -> loc.getIpAddr().equals(ip))) {
        return false;
      }
    }
    return true;
  }

  /** How many lost units' rebuilt replicas equal the replicas written before the upgrade. */
  private int sameAsBefore(ClusterHandle cluster, DistributedFileSystem fs, List<Written> files,
                           List<LocatedBlockUnit> lost, Map<Long, String> before) throws IOException {
    Map<Long, String> now = new HashMap<>();
    for (LocatedBlockUnit u : units(fs, files)) {
      now.put(u.blockId(), u.holderIp());
    }
    int same = 0;
    for (LocatedBlockUnit u : lost) {
      String ip = now.get(u.blockId());
      if (ip == null) {
        continue;
      }
      Node holder = cluster.dataNodeAt(ip);
      var replica = ReplicaFiles.find(cluster.dataDir(holder.name()), u.blockId());
      if (replica.isPresent() && ReplicaFiles.digest(replica.get()).equals(before.get(u.blockId()))) {
        same++;
      } else {
        progress.accept("blk_" + u.blockId() + " rebuilt on " + holder.name() + " DIFFERS from the original");
      }
    }
    return same;
  }

  private static String nameNodeVersion(ClusterHandle cluster) throws IOException {
    URL url = URI.create("http://" + URI.create(cluster.nameNodeUri()).getHost()
        + ":9870/jmx?qry=Hadoop:service=NameNode,name=NameNodeInfo").toURL();
    try (InputStream in = url.openStream()) {
      Matcher m = SOFTWARE_VERSION.matcher(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      return m.find() ? m.group(1) : "unknown";
    }
  }

  private static double seconds(long startNanos) {
    return (System.nanoTime() - startNanos) / 1e9;
  }
}
