package io.ecrepair.hdfs.datanode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.harness.MiniHdfs;
import io.ecrepair.hdfs.ListedUnits;
import io.ecrepair.hdfs.agent.ReadFaults;
import io.ecrepair.hdfs.task.ReconstructionLog;
import io.ecrepair.hdfs.task.TaskReport;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.DataNodeTestUtils;
import org.apache.hadoop.hdfs.server.datanode.ReplicaInfo;
import org.apache.hadoop.io.erasurecode.ECSchema;

/**
 * A MiniDFSCluster with the DataNode plugin, for reconstruction tests: writes files under a
 * policy, remembers every internal block, stops DataNodes, waits for the NameNode-driven
 * reconstruction and checks every rebuilt internal block byte for byte.
 */
public final class RepairCluster implements AutoCloseable {
  public final MiniHdfs hdfs;
  public final MiniDFSCluster cluster;
  public final DistributedFileSystem fs;
  public final ErasureCodingPolicy policy;
  final long blockSize;
  /** file -> its bytes. */
  public final Map<Path, byte[]> files = new LinkedHashMap<>();
  /** "file/group/index" -> bytes of that internal block when written. */
  final Map<String, byte[]> original = new LinkedHashMap<>();
  final List<DatanodeInfo> stopped = new ArrayList<>();
  public final Configuration conf;

  public RepairCluster(File dir, int dataNodes, String codec, int k, int m, int cellSize, int cellsPerBlock,
                Configuration extra) throws IOException {
    this(dir, dataNodes, codec, k, m, cellSize, cellsPerBlock, extra, null);
  }

  /** The same, with DataNode i in rack {@code racks[i]}. */
  public RepairCluster(File dir, int dataNodes, String codec, int k, int m, int cellSize, int cellsPerBlock,
                Configuration extra, String[] racks) throws IOException {
    Configuration testDefaults = new Configuration(false);
    testDefaults.setInt(DFSConfigKeys.DFS_NAMENODE_RECONSTRUCTION_PENDING_TIMEOUT_SEC_KEY, 10);
    this.hdfs = new MiniHdfs(dir, dataNodes, MiniHdfs.pluginConf(testDefaults, extra), x -> { }, racks);
    this.conf = hdfs.conf();
    this.cluster = hdfs.cluster();
    this.fs = hdfs.fileSystem();
    this.blockSize = (long) cellSize * cellsPerBlock;
    this.policy = hdfs.enable(new ErasureCodingPolicy(new ECSchema(codec, k, m), cellSize));
    hdfs.directory("/ec", policy);
  }

  public int k() {
    return policy.getNumDataUnits();
  }

  public int cell() {
    return policy.getCellSize();
  }

  /** Writes a file of {@code length} random bytes under the policy and records its internal blocks. */
  public Path write(String name, int length, long seed) throws IOException {
    return write(name, length, seed, null);
  }

  /** The same, written with the client's checksum {@code checksum} (null: the configured one). */
  public Path write(String name, int length, long seed, org.apache.hadoop.fs.Options.ChecksumOpt checksum)
      throws IOException {
    byte[] data = new byte[length];
    new Random(seed).nextBytes(data);
    Path file = new Path("/ec/" + name);
    hdfs.write(file, blockSize, data, checksum);
    files.put(file, data);
    List<LocatedBlock> groups = hdfs.awaitReported(file, 30_000);
    for (int g = 0; g < groups.size(); g++) {
      LocatedStripedBlock group = (LocatedStripedBlock) groups.get(g);
      for (int j = 0; j < group.getBlockIndices().length; j++) {
        int index = group.getBlockIndices()[j];
        original.put(file + "/" + g + "/" + index, replica(group.getLocations()[j], internal(group, index)));
      }
    }
    return file;
  }

  public List<LocatedBlock> groups(Path file) throws IOException {
    return hdfs.groups(file);
  }

  /** The DataNode holding internal block {@code index} of group {@code g} of {@code file}. */
  public DatanodeInfo holder(Path file, int g, int index) throws IOException {
    return hdfs.holder(file, g, index);
  }

  /** Adds DataNodes (with the plugin) to host rebuilt blocks. */
  void addDataNodes(int count) throws IOException {
    cluster.startDataNodes(conf, count, true, null, null);
    cluster.waitActive();
  }

  /**
   * Stops DataNodes and tells the NameNode at once (no heartbeat expiry wait). Several nodes
   * are declared dead together, under the namesystem lock that the NameNode's redundancy
   * monitor also takes, so it schedules the groups they share as one multi-loss task instead
   * of racing between the deaths. It does not wait for a settled cluster, so a test may also
   * stop a helper in the middle of a repair; a loss under test goes through {@link #lose}.
   */
  public void stop(DatanodeInfo... nodes) throws IOException {
    hdfs.stop(nodes);
    stopped.addAll(List.of(nodes));
  }

  /**
   * A loss on a settled cluster: waits until it is healthy ({@link #awaitHealthy}), forgets
   * earlier tasks' reports, then stops {@code nodes}. The reports that follow are the loss's
   * own: on a loaded machine a write's failed streamer leaves a block for HDFS to rebuild after
   * the write, and a task rebuilding it while a helper is stopped is not the repair under test.
   */
  void lose(DatanodeInfo... nodes) throws IOException {
    awaitHealthy();
    ReconstructionLog.clear();
    stop(nodes);
  }

  /**
   * Waits (60 s at most) until nothing is left to repair or clean up: every group of every
   * file has all its internal blocks off the stopped nodes, the NameNode has no block to
   * rebuild, rebuilding, corrupt or awaiting deletion, no task of the plugin runs, and every
   * DataNode holds exactly the replicas the NameNode places on it.
   *
   * <p>The last matters because a write whose streamer failed leaves a stale replica of one
   * internal block on a DataNode, which the NameNode deletes only after rebuilding that block
   * elsewhere. Hadoop 3.3.6 tracks one internal block of a group per DataNode (HDFS-17047): if
   * that node were chosen as a target meanwhile, the deletion report of the stale block would
   * also drop the rebuilt one from the NameNode's map, and the group would be rebuilt onto the
   * same node forever. Full block reports every 2 s make the NameNode see (and delete) what
   * its incremental reports missed.
   */
  public void awaitHealthy() throws IOException {
    long deadline = System.currentTimeMillis() + 60_000;
    long nextReport = System.currentTimeMillis() + 2_000;
    // Healthy on three looks in a row: one look can fall between a DataNode dropping a replica and
    // the NameNode hearing of it (CI saw a lost block reported missing right after a healthy look).
    int healthyLooks = 0;
    while (healthyLooks < 3) {
      String unhealthy = unhealthy();
      if (unhealthy.isEmpty()) {
        healthyLooks++;
      } else {
        healthyLooks = 0;
        if (System.currentTimeMillis() > deadline) {
          throw new AssertionError("the cluster did not settle in 60 s: " + unhealthy);
        }
        if (System.currentTimeMillis() > nextReport) {
          cluster.triggerBlockReports();
          nextReport = System.currentTimeMillis() + 2_000;
        }
      }
      pause(healthyLooks == 3 ? 0 : 100);
    }
  }

  /** What keeps the cluster from being healthy, empty when nothing does. */
  String unhealthy() throws IOException {
    org.apache.hadoop.hdfs.server.blockmanagement.BlockManager bm = cluster.getNamesystem().getBlockManager();
    List<String> why = new ArrayList<>();
    String missing = missingBlocks();
    if (!missing.isEmpty()) {
      why.add("internal blocks missing: " + missing);
    }
    long[] counts = {bm.getLowRedundancyBlocksCount(), bm.getPendingReconstructionBlocksCount(),
        bm.getCorruptReplicaBlocksCount(), bm.getPendingDeletionBlocksCount(), bm.getExcessBlocksCount()};
    String[] names = {"low redundancy", "being rebuilt", "with corrupt replicas", "replicas awaiting deletion",
        "excess replicas"};
    for (int i = 0; i < counts.length; i++) {
      if (counts[i] != 0) {
        why.add(names[i] + ": " + counts[i]);
      }
    }
    if (!ReconstructionLog.running().isEmpty()) {
      why.add("tasks running for groups " + ReconstructionLog.running());
    }
    String strays = strayReplicas();
    if (!strays.isEmpty()) {
      why.add("replicas held/known differ on " + strays);
    }
    return String.join("; ", why);
  }

  private static void pause(long millis) throws IOException {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }

  /** "node: held/known" for every running DataNode whose replicas differ from the NameNode's count of them. */
  String strayReplicas() throws IOException {
    String bpid = cluster.getNamesystem().getBlockPoolId();
    org.apache.hadoop.hdfs.server.blockmanagement.DatanodeManager dm =
        cluster.getNamesystem().getBlockManager().getDatanodeManager();
    StringBuilder out = new StringBuilder();
    for (DataNode dn : cluster.getDataNodes()) {
      if (!dn.isDatanodeUp()) {
        continue;
      }
      long held = 0;
      for (org.apache.hadoop.hdfs.protocol.BlockListAsLongs report : dn.getFSDataset().getBlockReports(bpid).values()) {
        held += report.getNumberOfBlocks();
      }
      org.apache.hadoop.hdfs.server.blockmanagement.DatanodeDescriptor d = dm.getDatanode(dn.getDatanodeId());
      long known = d == null ? -1 : d.numBlocks();
      if (held != known) {
        out.append(out.length() == 0 ? "" : ", ").append(dn.getXferAddress()).append(": ").append(held).append('/')
            .append(known);
      }
    }
    return out.toString();
  }

  /** Waits until every group of every file has all its internal blocks again, none on a stopped node. */
  void awaitReconstruction(long timeoutMs) throws Exception {
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (!missingBlocks().isEmpty()) {
      assertTrue(System.currentTimeMillis() < deadline, "reconstruction did not finish in " + timeoutMs + " ms; "
          + "replicas held/known where they differ: [" + strayReplicas() + "]; reports: " + ReconstructionLog.reports());
      Thread.sleep(200);
    }
  }

  /** "file/group: [indices]" for every group missing internal blocks off the stopped nodes; empty when none is. */
  private String missingBlocks() throws IOException {
    Set<Integer> stoppedPorts = new HashSet<>();
    for (DatanodeInfo d : stopped) {
      stoppedPorts.add(d.getXferPort());
    }
    StringBuilder out = new StringBuilder();
    for (Path file : files.keySet()) {
      List<LocatedBlock> groups = groups(file);
      for (int g = 0; g < groups.size(); g++) {
        Set<Integer> missing = ListedUnits.unlisted((LocatedStripedBlock) groups.get(g), policy, stoppedPorts);
        if (!missing.isEmpty()) {
          out.append(out.length() == 0 ? "" : ", ").append(file).append('/').append(g).append(": ").append(missing);
        }
      }
    }
    return out.toString();
  }

  /**
   * Compares every internal block now stored (off the stopped nodes) with the original bytes;
   * returns how many. A replica the NameNode listed but its DataNode no longer holds (HDFS
   * deleting an excess replica, e.g. of a block it also rebuilt while a live copy existed)
   * makes it list the blocks again and start over, for up to 10 s.
   */
  int verifyBlocks() throws Exception {
    long deadline = System.currentTimeMillis() + 10_000;
    while (true) {
      try {
        return verifyListedBlocks();
      } catch (java.io.FileNotFoundException gone) {
        if (System.currentTimeMillis() > deadline) {
          throw gone;
        }
        Thread.sleep(500);
      }
    }
  }

  private int verifyListedBlocks() throws Exception {
    Set<Integer> stoppedPorts = new HashSet<>();
    for (DatanodeInfo d : stopped) {
      stoppedPorts.add(d.getXferPort());
    }
    int checked = 0;
    for (Path file : files.keySet()) {
      List<LocatedBlock> groups = groups(file);
      for (int g = 0; g < groups.size(); g++) {
        LocatedStripedBlock group = (LocatedStripedBlock) groups.get(g);
        for (int j = 0; j < group.getBlockIndices().length; j++) {
          if (stoppedPorts.contains(group.getLocations()[j].getXferPort())) {
            continue;
          }
          int index = group.getBlockIndices()[j];
          byte[] now = replica(group.getLocations()[j], internal(group, index));
          assertArrayEquals(original.get(file + "/" + g + "/" + index), now,
              file + " group " + g + " internal block " + index + " on " + group.getLocations()[j]);
          checked++;
        }
      }
    }
    return checked;
  }

  /** Several groups with a partial last stripe, a file under one cell, a partial stripe; returns the first. */
  Path writeMixedFiles() throws IOException {
    Path big = write("several-groups", (int) (2 * k() * blockSize + 3L * cell() + 99), 1);
    write("under-one-cell", 1000, 2);
    write("partial-stripe", 2 * cell() + cell() / 2 + 17, 3);
    return big;
  }

  /**
   * Stops {@code victims} together, waits for the NameNode-driven reconstruction, checks every
   * internal block and file byte for byte; returns the tasks' reports.
   */
  public List<TaskReport> loseAndVerify(DatanodeInfo... victims) throws Exception {
    lose(victims);
    awaitReconstruction(120_000);
    org.junit.jupiter.api.Assertions.assertEquals(original.size(), verifyBlocks(),
        "every internal block present and equal");
    verifyFiles();
    awaitTasksEnded();
    List<TaskReport> reports = ReconstructionLog.reports();
    assertTrue(!reports.isEmpty(), "the reconstruction ran");
    return reports;
  }

  /**
   * Waits (60 s at most) until the NameNode has no rebuild pending and no task of the plugin
   * runs: a second task the NameNode sent for a block already listed may still be running when
   * the last block is, and its report belongs to the loss too.
   */
  private void awaitTasksEnded() throws IOException {
    org.apache.hadoop.hdfs.server.blockmanagement.BlockManager bm = cluster.getNamesystem().getBlockManager();
    long deadline = System.currentTimeMillis() + 60_000;
    while (bm.getPendingReconstructionBlocksCount() != 0 || !ReconstructionLog.running().isEmpty()) {
      assertTrue(System.currentTimeMillis() < deadline, "tasks still running 60 s after the repair: groups "
          + ReconstructionLog.running() + ", " + bm.getPendingReconstructionBlocksCount() + " pending");
      pause(100);
    }
  }

  /**
   * Stops {@code victim} while a fault hook is set, waits (60 s at most) until the hook says
   * its fault happened, clears the hook, then waits for the reconstruction and checks every
   * internal block and file byte for byte; returns the tasks' reports.
   */
  List<TaskReport> loseWithFault(DatanodeInfo victim, java.util.function.BooleanSupplier faultHappened,
                                 String noFault) throws Exception {
    try {
      lose(victim);
      long deadline = System.currentTimeMillis() + 60_000;
      while (!faultHappened.getAsBoolean()) {
        assertTrue(System.currentTimeMillis() < deadline, noFault);
        Thread.sleep(50);
      }
    } finally {
      ReadFaults.set(null);
    }
    awaitReconstruction(180_000);
    org.junit.jupiter.api.Assertions.assertEquals(original.size(), verifyBlocks(),
        "every internal block present and equal");
    verifyFiles();
    return ReconstructionLog.reports();
  }

  /** Reads every file back whole through a stock client and compares. */
  void verifyFiles() throws IOException {
    for (Map.Entry<Path, byte[]> e : files.entrySet()) {
      byte[] back = new byte[e.getValue().length];
      try (FSDataInputStream in = fs.open(e.getKey())) {
        in.readFully(0, back);
      }
      assertArrayEquals(e.getValue(), back, "read back " + e.getKey());
    }
  }

  public ExtendedBlock internal(LocatedStripedBlock group, int index) {
    return MiniHdfs.internal(group, index, policy);
  }

  public DataNode dataNode(DatanodeInfo info) {
    return hdfs.dataNode(info);
  }

  /** A replica's bytes as its DataNode stores them. */
  public byte[] replica(DatanodeInfo holder, ExtendedBlock block) throws IOException {
    return hdfs.replica(holder, block);
  }

  /**
   * Waits until each unit of a group being written has {@code expected(unit)} bytes on its
   * DataNode's disk (-1: no replica), as HDFS's own replica records say.
   */
  public void awaitUnitLengths(LocatedStripedBlock group, java.util.function.IntUnaryOperator expected) throws Exception {
    long deadline = System.nanoTime() + 30_000_000_000L;
    String last = "";
    while (System.nanoTime() < deadline) {
      last = unitLengths(group);
      StringBuilder want = new StringBuilder();
      for (int u = 0; u < group.getBlockIndices().length; u++) {
        want.append(u).append('=').append(expected.applyAsInt(u)).append(' ');
      }
      if (last.contentEquals(want)) {
        return;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("unit lengths on the DataNodes stayed " + last);
  }

  private String unitLengths(LocatedStripedBlock group) throws IOException {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < group.getBlockIndices().length; i++) {
      int unit = group.getBlockIndices()[i];
      DataNode dn = dataNode(group.getLocations()[i]);
      ReplicaInfo r = DataNodeTestUtils.fetchReplicaInfo(dn, group.getBlock().getBlockPoolId(),
          group.getBlock().getBlockId() + unit);
      s.append(unit).append('=').append(r == null ? -1 : r.getBytesOnDisk()).append(' ');
    }
    return s.toString();
  }

  @Override
  public void close() {
    hdfs.close();
  }
}
