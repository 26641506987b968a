package io.ecrepair.hdfs.datanode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.hdfs.StripedGroups;
import io.ecrepair.hdfs.agent.ReadFaults;
import io.ecrepair.hdfs.task.DataNodeKeys;
import io.ecrepair.hdfs.task.ReconstructionLog;
import io.ecrepair.hdfs.task.TaskReport;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
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
import org.apache.hadoop.io.IOUtils;
import org.apache.hadoop.io.erasurecode.ECSchema;

/**
 * A MiniDFSCluster with the DataNode plugin, for reconstruction tests: writes files under a
 * policy, remembers every internal block, stops DataNodes, waits for the NameNode-driven
 * reconstruction and checks every rebuilt internal block byte for byte.
 */
public final class RepairCluster implements AutoCloseable {
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
    Configuration testDefaults = new Configuration(false);
    testDefaults.setInt(DFSConfigKeys.DFS_NAMENODE_RECONSTRUCTION_PENDING_TIMEOUT_SEC_KEY, 10);
    Configuration conf = io.ecrepair.demo.MiniClusterRepairs.pluginConf(testDefaults, extra);
    this.conf = conf;
    MiniDFSCluster.Builder builder = new MiniDFSCluster.Builder(conf, dir).numDataNodes(dataNodes);
    int agentOffset = conf.getInt(DataNodeKeys.AGENT_PORT_OFFSET_KEY, 0);
    if (agentOffset > 0) {
      // Agents listen on the transfer port + offset: give each DataNode a transfer port whose partner is free.
      builder.checkDataNodeAddrConfig(true).dataNodeConfOverlays(agentPorts(dataNodes, agentOffset));
    }
    this.cluster = builder.build();
    this.cluster.waitActive();
    if (agentOffset > 0) {
      for (DataNode dn : cluster.getDataNodes()) {
        assertTrue(EcRepairDataNodePlugin.agentPort(dn) == dn.getXferPort() + agentOffset, "repair agent up on " + dn);
      }
    }
    this.fs = cluster.getFileSystem();
    this.blockSize = (long) cellSize * cellsPerBlock;
    ErasureCodingPolicy p = new ErasureCodingPolicy(new ECSchema(codec, k, m), cellSize);
    fs.addErasureCodingPolicies(new ErasureCodingPolicy[] {p}); // a no-op for a system policy
    fs.enableErasureCodingPolicy(p.getName());
    this.policy = lookup(p.getName());
    Path dir0 = new Path("/ec");
    fs.mkdirs(dir0);
    fs.setErasureCodingPolicy(dir0, policy.getName());
  }

  /**
   * Per DataNode: a free transfer port P with P + offset free too, both below the system's
   * ephemeral range (where no other socket of the test lands by chance), the other ports
   * picked by the system.
   */
  private static Configuration[] agentPorts(int dataNodes, int offset) throws IOException {
    int low = 32768;
    try {
      low = Integer.parseInt(java.nio.file.Files.readString(java.nio.file.Path.of(
          "/proc/sys/net/ipv4/ip_local_port_range")).trim().split("\\s+")[0]);
    } catch (IOException | RuntimeException e) {
      // not Linux: assume the IANA default range
    }
    int top = Math.max(2048, Math.min(low, 65536) - offset - 1);
    Random random = new Random();
    Configuration[] overlays = new Configuration[dataNodes];
    Set<Integer> taken = new HashSet<>();
    for (int i = 0; i < dataNodes; i++) {
      int port;
      do {
        port = 1024 + random.nextInt(top - 1024);
      } while (taken.contains(port) || taken.contains(port + offset) || !free(port) || !free(port + offset));
      taken.add(port);
      taken.add(port + offset);
      Configuration c = new Configuration(false);
      c.set(DFSConfigKeys.DFS_DATANODE_ADDRESS_KEY, "127.0.0.1:" + port);
      c.set(DFSConfigKeys.DFS_DATANODE_HTTP_ADDRESS_KEY, "127.0.0.1:0");
      c.set(DFSConfigKeys.DFS_DATANODE_IPC_ADDRESS_KEY, "127.0.0.1:0");
      overlays[i] = c;
    }
    return overlays;
  }

  private static boolean free(int port) {
    try (java.net.ServerSocket s = new java.net.ServerSocket(port, 1, java.net.InetAddress.getLoopbackAddress())) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private ErasureCodingPolicy lookup(String name) throws IOException {
    return fs.getAllErasureCodingPolicies().stream().map(i -> i.getPolicy()).filter(x -> x.getName().equals(name))
        .findFirst().orElseThrow();
  }

  int k() {
    return policy.getNumDataUnits();
  }

  int cell() {
    return policy.getCellSize();
  }

  /** Writes a file of {@code length} random bytes under the policy and records its internal blocks. */
  public Path write(String name, int length, long seed) throws IOException {
    byte[] data = new byte[length];
    new Random(seed).nextBytes(data);
    Path file = new Path("/ec/" + name);
    try (FSDataOutputStream out = fs.create(file, FsPermission.getFileDefault(), true, 4096, (short) 1, blockSize,
        null)) {
      out.write(data);
    }
    files.put(file, data);
    List<LocatedBlock> groups = awaitReported(file);
    for (int g = 0; g < groups.size(); g++) {
      LocatedStripedBlock group = (LocatedStripedBlock) groups.get(g);
      for (int j = 0; j < group.getBlockIndices().length; j++) {
        int index = group.getBlockIndices()[j];
        original.put(file + "/" + g + "/" + index, replica(group.getLocations()[j], internal(group, index)));
      }
    }
    return file;
  }

  /** The file's groups once the NameNode knows every internal block (block reports arrive after close). */
  private List<LocatedBlock> awaitReported(Path file) throws IOException {
    long deadline = System.currentTimeMillis() + 30_000;
    while (true) {
      List<LocatedBlock> groups = groups(file);
      boolean all = true;
      for (LocatedBlock b : groups) {
        if (!missingIndices((LocatedStripedBlock) b, Set.of()).isEmpty()) {
          all = false;
        }
      }
      if (all) {
        return groups;
      }
      if (System.currentTimeMillis() > deadline) {
        throw new AssertionError("the NameNode did not learn every internal block of " + file);
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException(e);
      }
    }
  }

  public List<LocatedBlock> groups(Path file) throws IOException {
    return StripedGroups.of(fs, file);
  }

  /** The DataNode holding internal block {@code index} of group {@code g} of {@code file}. */
  public DatanodeInfo holder(Path file, int g, int index) throws IOException {
    return StripedGroups.holder(fs, file, g, index);
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
    List<DataNode> dead = new ArrayList<>();
    for (DatanodeInfo node : nodes) {
      dead.add(dataNode(node));
      cluster.stopDataNode(node.getXferAddr());
      stopped.add(node);
    }
    org.apache.hadoop.hdfs.server.namenode.FSNamesystem ns = cluster.getNamesystem();
    ns.writeLock();
    try {
      for (DataNode dn : dead) {
        cluster.setDataNodeDead(dn.getDatanodeId());
      }
    } finally {
      ns.writeUnlock();
    }
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
  void awaitHealthy() throws IOException {
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
        Set<Integer> missing = missingIndices((LocatedStripedBlock) groups.get(g), stoppedPorts);
        if (!missing.isEmpty()) {
          out.append(out.length() == 0 ? "" : ", ").append(file).append('/').append(g).append(": ").append(missing);
        }
      }
    }
    return out.toString();
  }

  /**
   * The internal blocks a group should have (its data blocks holding bytes, and every parity)
   * with no location off the stopped nodes. Counted by index: a block listed twice (a stale
   * replica beside a rebuilt one) does not stand in for another.
   */
  private Set<Integer> missingIndices(LocatedStripedBlock group, Set<Integer> stoppedPorts) {
    int dataBlocks = (int) Math.min(k(), (group.getBlockSize() + cell() - 1) / cell());
    Set<Integer> missing = new java.util.TreeSet<>();
    for (int i = 0; i < dataBlocks; i++) {
      missing.add(i);
    }
    for (int i = 0; i < policy.getNumParityUnits(); i++) {
      missing.add(k() + i);
    }
    for (int j = 0; j < group.getBlockIndices().length; j++) {
      if (!stoppedPorts.contains(group.getLocations()[j].getXferPort())) {
        missing.remove((int) group.getBlockIndices()[j]);
      }
    }
    return missing;
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
  List<TaskReport> loseAndVerify(DatanodeInfo... victims) throws Exception {
    lose(victims);
    awaitReconstruction(120_000);
    org.junit.jupiter.api.Assertions.assertEquals(original.size(), verifyBlocks(),
        "every internal block present and equal");
    verifyFiles();
    List<TaskReport> reports = ReconstructionLog.reports();
    assertTrue(!reports.isEmpty(), "the reconstruction ran");
    return reports;
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
    return StripedBlockUtil.constructInternalBlock(group.getBlock(), cell(), k(), index);
  }

  public DataNode dataNode(DatanodeInfo info) {
    for (DataNode dn : cluster.getDataNodes()) {
      if (dn.getXferPort() == info.getXferPort()) {
        return dn;
      }
    }
    throw new AssertionError("no running DataNode " + info);
  }

  /** A replica's bytes as its DataNode stores them. */
  public byte[] replica(DatanodeInfo holder, ExtendedBlock block) throws IOException {
    DataNode dn = dataNode(holder);
    ExtendedBlock stored = new ExtendedBlock(block.getBlockPoolId(), block.getBlockId(),
        dn.getFSDataset().getLength(block), block.getGenerationStamp());
    byte[] bytes = new byte[(int) stored.getNumBytes()];
    try (InputStream in = dn.getFSDataset().getBlockInputStream(stored, 0)) {
      IOUtils.readFully(in, bytes, 0, bytes.length);
    }
    return bytes;
  }

  @Override
  public void close() {
    cluster.shutdown();
  }
}
