package io.ecrepair.harness;

import io.ecrepair.hdfs.admin.ClusterStatus;
import io.ecrepair.hdfs.admin.StripeVerifier;
import io.ecrepair.hdfs.task.DataNodeKeys;
import io.ecrepair.hdfs.task.ReconstructionLog;
import io.ecrepair.hdfs.task.TaskReport;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.util.StripedBlockUtil;

/**
 * The runs {@code ec-repair demo} and the in-process benchmarks make on a {@link MiniHdfs}
 * (reconstruction with its timing defaults): write a file under a policy, stop the DataNode holding one of its internal blocks, let the NameNode drive the
 * reconstruction, check every rebuilt block byte for byte and read the file back, then bring
 * the DataNode back (empty of the file) for the next policy.
 */
public final class MiniClusterRepairs implements AutoCloseable {
  /**
   * One rebuilt internal block.
   *
   * @param verified every replica of it the NameNode lists afterwards equals the original
   * @param heldByStopped the stopped DataNode held it; false when HDFS also rebuilt a block that
   *     was not lost (its NameNode can count a live replica out, e.g. on a DataNode it deems busy)
   * @param route how the task rebuilt it ({@link TaskReport#route()}: {@code central},
   *     {@code parallel}, {@code chain}, ..., {@code hdfs})
   * @param mostReceived the most bytes any one DataNode received for it: the rebuilding one's reads
   *     in a central repair, the busiest participant of a chain or a parallel plan
   */
  public record Repair(int group, int lostIndex, String engine, long bytesRead, long blockBytes, double seconds,
                       boolean verified, boolean heldByStopped, Map<Integer, Long> helperBytes, String route,
                       long mostReceived) {
    /** Bytes read as a multiple of the rebuilt block. */
    public double blocksRead() {
      return blockBytes == 0 ? 0 : (double) bytesRead / blockBytes;
    }

    /** The most any one DataNode received, as a multiple of the rebuilt block. */
    public double mostReceivedBlocks() {
      return blockBytes == 0 ? 0 : (double) mostReceived / blockBytes;
    }
  }

  /**
   * Reading the cells of the lost data blocks ({@code blocks}: "g<group>:<index> ...") through the
   * client FileSystem: while readable, and right after their DataNode stopped (before
   * reconstruction); {@code strategy} says how the degraded read was served
   * ({@link DegradedReadProbe#strategy}: {@code pararc} or {@code pipeline} through the helpers'
   * repair agents, {@code fetch} by our client reading the code's read set, {@code stock} by
   * HDFS's decoder).
   */
  public record DegradedRead(String blocks, String strategy, DegradedReadProbe.Result healthy,
                             DegradedReadProbe.Result degraded) {
    static DegradedRead of(String blocks, ErasureCodingPolicy policy, DegradedReadProbe.Result healthy,
                           DegradedReadProbe.Result degraded) {
      return new DegradedRead(blocks, degraded.stream().strategy(policy), healthy, degraded);
    }

    /** Who rebuilt the lost cells: {@code ec-repair} (our client, through the agents or not) or {@code hdfs}. */
    public String path() {
      return strategy.equals("stock") ? "hdfs" : "ec-repair";
    }

    /** Equal bytes, and really degraded: our path rebuilt cells, or HDFS fetched more than it returned. */
    public boolean verified() {
      boolean reallyDegraded = degraded.stream().ours() ? degraded.stream().cellsRebuilt() > 0
          : degraded.bytesFetched() > degraded.bytesReturned();
      return healthy.equal() && degraded.equal() && reallyDegraded;
    }
  }

  /** What one policy's run did. */
  public record PolicyRun(String policy, long fileLength, long blockSize, List<Repair> repairs, boolean fileVerified,
                          double wallSeconds, List<DegradedRead> degradedReads) {
    public boolean verified() {
      return fileVerified && !repairs.isEmpty() && repairs.stream().allMatch(Repair::verified)
          && degradedReads.stream().allMatch(DegradedRead::verified);
    }
  }

  private final MiniHdfs hdfs;
  private final Configuration conf;
  private final MiniDFSCluster cluster;
  private final DistributedFileSystem fs;
  private final Consumer<String> progress;
  private boolean degradedReads;

  /**
   * Starts the cluster.
   *
   * @param extra settings for every node (e.g. a reconstruction read limit)
   */
  public MiniClusterRepairs(int dataNodes, Configuration extra, Consumer<String> progress) throws IOException {
    this.progress = progress;
    Configuration defaults = new Configuration(false);
    defaults.setBoolean(DataNodeKeys.TIME_STOCK_TASKS_KEY, true);
    defaults.setInt(DFSConfigKeys.DFS_NAMENODE_RECONSTRUCTION_PENDING_TIMEOUT_SEC_KEY, 20);
    this.hdfs = new MiniHdfs(null, dataNodes, MiniHdfs.pluginConf(defaults, extra), progress);
    this.conf = hdfs.conf();
    this.cluster = hdfs.cluster();
    this.fs = hdfs.fileSystem();
  }

  /** Also read the lost block through the client FileSystem, before and right after its DataNode stops. */
  public MiniClusterRepairs withDegradedReads(boolean on) {
    this.degradedReads = on;
    return this;
  }

  public MiniHdfs hdfs() {
    return hdfs;
  }

  /** Adds (when not a system policy) and enables the policy; returns HDFS's copy of it. */
  public ErasureCodingPolicy enable(ErasureCodingPolicy policy) throws IOException {
    return hdfs.enable(policy);
  }

  /**
   * Writes {@code fileLength} bytes under {@code policy} with {@code blockSize}, stops the
   * DataNode holding internal block {@code lostIndex} of group 0, waits for the NameNode-driven
   * reconstruction of everything that DataNode held, verifies, and cleans up.
   */
  public PolicyRun run(ErasureCodingPolicy policy, long blockSize, long fileLength, int lostIndex, long seed,
                       long timeoutMs) throws Exception {
    long start = System.nanoTime();
    org.apache.hadoop.fs.Path file = fileUnder(policy);
    byte[] data = write(file, policy, blockSize, fileLength, seed);
    List<LocatedBlock> groups = hdfs.awaitReported(file, timeoutMs);
    Map<String, byte[]> original = new HashMap<>();
    Map<Long, Integer> groupOf = new HashMap<>();
    DatanodeInfo victim = null;
    for (int g = 0; g < groups.size(); g++) {
      LocatedStripedBlock group = (LocatedStripedBlock) groups.get(g);
      groupOf.put(group.getBlock().getBlockId(), g);
      for (int j = 0; j < group.getBlockIndices().length; j++) {
        int index = group.getBlockIndices()[j];
        original.put(g + "/" + index, replica(group.getLocations()[j], internal(group, index, policy)));
        if (g == 0 && index == lostIndex) {
          victim = group.getLocations()[j];
        }
      }
    }
    if (victim == null) {
      throw new IllegalArgumentException(policy.getName() + " has no internal block " + lostIndex + " in group 0");
    }
    // What the stopped DataNode held: the blocks to be rebuilt.
    Set<String> lost = new HashSet<>();
    for (int g = 0; g < groups.size(); g++) {
      LocatedStripedBlock group = (LocatedStripedBlock) groups.get(g);
      for (int j = 0; j < group.getBlockIndices().length; j++) {
        if (group.getLocations()[j].getXferPort() == victim.getXferPort()) {
          lost.add(g + "/" + group.getBlockIndices()[j]);
        }
      }
    }
    ReconstructionLog.clear();
    DegradedReadProbe probe = new DegradedReadProbe(conf, fs.getUri(), false);
    Map<Integer, Integer> lostData = new HashMap<>(); // group -> the data block the stopped DataNode held
    for (String key : lost) {
      String[] gi = key.split("/");
      if (Integer.parseInt(gi[1]) < policy.getNumDataUnits()) {
        lostData.put(Integer.parseInt(gi[0]), Integer.parseInt(gi[1]));
      }
    }
    boolean probeReads = degradedReads && !lostData.isEmpty();
    DegradedReadProbe.Result healthy = probeReads ? probe.readBlocks(file, policy, blockSize, data, lostData) : null;
    progress.accept(policy.getName() + ": stopping DataNode " + victim.getXferAddr() + " (it held internal blocks "
        + lost + "); " + (probeReads ? "reading its data blocks degraded, then " : "")
        + "waiting for the NameNode-driven reconstruction");
    List<DegradedRead> reads = new ArrayList<>();
    List<MiniDFSCluster.DataNodeProperties> stoppedRef = new ArrayList<>();
    DatanodeInfo gone = victim;
    List<org.apache.hadoop.hdfs.server.datanode.DataNode> undeclared = new ArrayList<>();
    DegradedReadProbe.AfterOpen stop = in -> {
      // Stopped now, declared dead to the NameNode once the degraded read is over: a reconstruction
      // running beside the read would weigh the read's traffic on the helpers, and choose its plan
      // by how the two happened to overlap.
      undeclared.add(hdfs.dataNode(gone));
      stoppedRef.add(hdfs.cluster().stopDataNode(gone.getXferAddr()));
      // The NameNode's reconstruction may finish within a second; a stream opened before the stop
      // keeps the locations it opened with, and learns of the death as a stream does from its first
      // failed connection (HDFS's own stream, for RS, finds out by itself).
      if (in != null && in.getWrappedStream() instanceof org.apache.hadoop.hdfs.EcRepairStripedInputStream s) {
        s.markDead(gone);
      }
    };
    DegradedReadProbe.Result degraded = null;
    if (probeReads) {
      degraded = probe.readBlocks(file, policy, blockSize, data, lostData, stop);
    } else {
      stop.run(null);
    }
    hdfs.declareDead(undeclared.toArray(new org.apache.hadoop.hdfs.server.datanode.DataNode[0]));
    try {
      if (probeReads) {
        reads.add(DegradedRead.of(describe(lostData), policy, healthy, degraded));
      }
      long deadline = System.currentTimeMillis() + timeoutMs;
      List<LocatedBlock> now;
      while (true) {
        now = fs.getClient().getLocatedBlocks(file.toString(), 0, Long.MAX_VALUE).getLocatedBlocks();
        if (complete(now, groups, victim) && reported(lost, groupOf)) {
          break;
        }
        if (System.currentTimeMillis() > deadline) {
          throw new IOException(policy.getName() + ": reconstruction did not finish in " + timeoutMs / 1000 + " s"
              + " (tasks so far: " + ReconstructionLog.reports() + ")");
        }
        Thread.sleep(100);
      }
      // Every internal block, rebuilt or not, byte for byte.
      Map<String, Boolean> equal = new HashMap<>();
      for (int g = 0; g < now.size(); g++) {
        LocatedStripedBlock group = (LocatedStripedBlock) now.get(g);
        for (int j = 0; j < group.getBlockIndices().length; j++) {
          if (group.getLocations()[j].getXferPort() == victim.getXferPort()) {
            continue;
          }
          int index = group.getBlockIndices()[j];
          byte[] bytes = replica(group.getLocations()[j], internal(group, index, policy));
          equal.merge(g + "/" + index, Arrays.equals(original.get(g + "/" + index), bytes), Boolean::logicalAnd);
        }
      }
      boolean fileOk = hdfs.readsBack(file, data);
      List<Repair> repairs = new ArrayList<>();
      for (TaskReport r : ReconstructionLog.reports()) {
        Integer g = groupOf.get(r.blockGroupId());
        if (g == null || !r.succeeded()) {
          continue;
        }
        int share = r.lost().length;
        for (int index : r.lost()) {
          long blockBytes = StripedBlockUtil.getInternalBlockLength(groups.get(g).getBlockSize(), policy, index);
          repairs.add(new Repair(g, index, r.engine(), r.bytesRead() / share, blockBytes, r.seconds(),
              equal.getOrDefault(g + "/" + index, false), lost.contains(g + "/" + index), r.helperBytes(), r.route(),
              mostReceived(r) / share));
        }
      }
      repairs.sort(Comparator.comparingInt(Repair::group).thenComparingInt(Repair::lostIndex));
      return new PolicyRun(policy.getName(), fileLength, blockSize, repairs, fileOk,
          (System.nanoTime() - start) / 1e9, reads);
    } finally {
      fs.delete(file.getParent(), true);
      progress.accept(policy.getName() + ": restarting DataNode " + victim.getXferAddr());
      hdfs.restart(stoppedRef);
    }
  }

  /**
   * The most bytes one DataNode received in {@code r}: the busiest participant of a plan run
   * across the agents (its traffic table), else the rebuilding DataNode, which read everything.
   */
  private static long mostReceived(TaskReport r) {
    long most = 0;
    for (long[] t : r.nodeTraffic().values()) {
      most = Math.max(most, t[0]);
    }
    return r.nodeTraffic().isEmpty() ? r.bytesRead() : most;
  }

  /** What an operator sees with a DataNode down: {@code ec-repair status} and {@code verify} of one file per policy. */
  public record OperatorView(String path, String stoppedDataNode, int files, ClusterStatus.Report status,
                             List<StripeVerifier.GroupResult> verify) {}

  /**
   * Writes one block group (one cell per internal block) per policy under /operator, stops the
   * DataNode holding internal block 0 of the first, and looks at the cluster as {@code ec-repair
   * status} and {@code verify} do. The NameNode first stops scheduling reconstruction for good,
   * so that the blocks stay missing while they are looked at: call it last.
   */
  public OperatorView operatorView(List<ErasureCodingPolicy> enabled, long seed) throws Exception {
    org.apache.hadoop.hdfs.server.blockmanagement.BlockManagerTestUtil.stopRedundancyThread(
        cluster.getNamesystem().getBlockManager());
    org.apache.hadoop.fs.Path top = new org.apache.hadoop.fs.Path("/operator");
    List<org.apache.hadoop.fs.Path> files = new ArrayList<>();
    for (ErasureCodingPolicy p : enabled) {
      org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(hdfs.directory(top + "/" + p.getName(), p), "file");
      write(file, p, p.getCellSize(), (long) p.getCellSize() * p.getNumDataUnits(), seed++);
      hdfs.awaitReported(file, 60_000);
      files.add(file);
    }
    LocatedStripedBlock first = (LocatedStripedBlock) fs.getClient()
        .getLocatedBlocks(files.get(0).toString(), 0, Long.MAX_VALUE).get(0);
    DatanodeInfo victim = first.getLocations()[0];
    for (int j = 0; j < first.getBlockIndices().length; j++) {
      if (first.getBlockIndices()[j] == 0) {
        victim = first.getLocations()[j];
      }
    }
    progress.accept("operator's view: stopping DataNode " + victim.getXferAddr() + " (reconstruction is off), "
        + "then ec-repair status and verify of " + top);
    hdfs.stop(victim);
    Configuration client = fs.getConf();
    ClusterStatus.Report status = new ClusterStatus(fs, client).scan(top);
    StripeVerifier verifier = new StripeVerifier(fs, client);
    List<StripeVerifier.GroupResult> verify = new ArrayList<>();
    for (org.apache.hadoop.fs.Path f : files) {
      verify.addAll(verifier.verify(fs.getFileStatus(f), b -> { }));
    }
    return new OperatorView(top.toString(), victim.getXferAddr(), files.size(), status, verify);
  }

  /**
   * Degraded reads alone (no reconstruction is waited for; run it on a cluster whose NameNode
   * does not schedule any, e.g. a long {@code dfs.namenode.redundancy.interval.seconds}): writes
   * {@code fileLength} bytes under {@code policy}, reads internal block {@code lostIndex}'s cells
   * while it is readable, stops its DataNode, reads them again, cleans up. {@code stockClient}
   * reads with HDFS's own FileSystem instead of ours.
   */
  public DegradedRead degradedRead(ErasureCodingPolicy policy, long blockSize, long fileLength, int lostIndex,
                                   long seed, boolean stockClient, long timeoutMs) throws Exception {
    org.apache.hadoop.fs.Path file = fileUnder(policy);
    byte[] data = write(file, policy, blockSize, fileLength, seed);
    List<LocatedBlock> groups = hdfs.awaitReported(file, timeoutMs);
    LocatedStripedBlock group0 = (LocatedStripedBlock) groups.get(0);
    DatanodeInfo victim = null;
    for (int j = 0; j < group0.getBlockIndices().length; j++) {
      if (group0.getBlockIndices()[j] == lostIndex) {
        victim = group0.getLocations()[j];
      }
    }
    if (victim == null) {
      throw new IllegalArgumentException(policy.getName() + " has no internal block " + lostIndex + " in group 0");
    }
    DegradedReadProbe probe = new DegradedReadProbe(conf, fs.getUri(), stockClient);
    progress.accept(policy.getName() + ": reading internal block " + lostIndex + " healthy, then with DataNode "
        + victim.getXferAddr() + " stopped" + (stockClient ? " (HDFS's own client)" : ""));
    Map<Integer, Integer> block = Map.of(0, lostIndex);
    DegradedReadProbe.Result healthy = probe.readBlocks(file, policy, blockSize, data, block);
    List<MiniDFSCluster.DataNodeProperties> stopped = hdfs.stop(victim);
    try {
      DegradedReadProbe.Result degraded = probe.readBlocks(file, policy, blockSize, data, block);
      return DegradedRead.of(describe(block), policy, healthy, degraded);
    } finally {
      fs.delete(file.getParent(), true);
      hdfs.restart(stopped);
    }
  }

  private static String describe(Map<Integer, Integer> blocks) {
    StringBuilder b = new StringBuilder();
    new java.util.TreeMap<>(blocks).forEach((g, i) -> b.append(b.length() == 0 ? "" : " ").append("g").append(g)
        .append(":").append(i));
    return b.toString();
  }

  /** Whether every group has every internal block it had, none on the stopped node. */
  private static boolean complete(List<LocatedBlock> now, List<LocatedBlock> before, DatanodeInfo victim) {
    for (int g = 0; g < now.size(); g++) {
      LocatedStripedBlock a = (LocatedStripedBlock) now.get(g);
      Set<Integer> live = new HashSet<>();
      for (int j = 0; j < a.getBlockIndices().length; j++) {
        if (a.getLocations()[j].getXferPort() != victim.getXferPort()) {
          live.add((int) a.getBlockIndices()[j]);
        }
      }
      if (live.size() < ((LocatedStripedBlock) before.get(g)).getBlockIndices().length) {
        return false;
      }
    }
    return true;
  }

  /** Whether a task report arrived for every lost block (the report follows the block by a moment). */
  private static boolean reported(Set<String> lost, Map<Long, Integer> groupOf) {
    Set<String> seen = new HashSet<>();
    for (TaskReport r : ReconstructionLog.reports()) {
      Integer g = groupOf.get(r.blockGroupId());
      if (g != null && r.succeeded()) {
        for (int index : r.lost()) {
          seen.add(g + "/" + index);
        }
      }
    }
    return seen.containsAll(lost);
  }

  /** The demo's file of {@code policy}, in a directory set to that policy. */
  private org.apache.hadoop.fs.Path fileUnder(ErasureCodingPolicy policy) throws IOException {
    return new org.apache.hadoop.fs.Path(hdfs.directory("/" + policy.getName(), policy), "file");
  }

  /** Writes {@code fileLength} seeded random bytes with {@code blockSize}; returns them. */
  private byte[] write(org.apache.hadoop.fs.Path file, ErasureCodingPolicy policy, long blockSize, long fileLength,
                       long seed) throws IOException {
    progress.accept(policy.getName() + ": writing " + fileLength + " bytes");
    byte[] data = MiniHdfs.randomBytes((int) fileLength, seed);
    hdfs.write(file, blockSize, data);
    return data;
  }

  private static ExtendedBlock internal(LocatedStripedBlock group, int index, ErasureCodingPolicy policy) {
    return MiniHdfs.internal(group, index, policy);
  }

  private byte[] replica(DatanodeInfo holder, ExtendedBlock block) throws IOException {
    return hdfs.replica(holder, block);
  }

  @Override
  public void close() {
    hdfs.close();
  }
}
