package io.ecrepair.harness;

import io.ecrepair.SystemProperties;
import io.ecrepair.hdfs.CostKeys;
import io.ecrepair.hdfs.ListedUnits;
import io.ecrepair.hdfs.datanode.EcRepairDataNodePlugin;
import io.ecrepair.hdfs.task.DataNodeKeys;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.MiniDFSClusterAccess;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicyInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.namenode.FSNamesystem;
import org.apache.hadoop.hdfs.util.StripedBlockUtil;
import org.apache.hadoop.io.IOUtils;

/**
 * An in-process HDFS (MiniDFSCluster), with hadoop-ec-repair's DataNode plugin on every
 * DataNode when its configuration comes from {@link #pluginConf}, and what the demo, the benchmarks and the tests do with one: enable policies, write
 * files, find internal blocks and read their replicas from the DataNodes' disks, stop
 * DataNodes (telling the NameNode at once) and start them again.
 */
public final class MiniHdfs implements AutoCloseable {
  private final MiniDFSCluster cluster;
  private final DistributedFileSystem fs;
  private final Configuration conf;
  /** A temporary directory of ours, deleted on close; null when the caller gave the directory. */
  private final Path ownDir;

  /**
   * The configuration of an in-process HDFS with the ec-repair DataNode plugin, whose
   * NameNode notices losses and schedules reconstruction within seconds. Later arguments win.
   */
  public static Configuration pluginConf(Configuration... settings) {
    Configuration c = new HdfsConfiguration();
    c.set(DFSConfigKeys.DFS_DATANODE_PLUGINS_KEY, EcRepairDataNodePlugin.class.getName());
    c.setLong(DFSConfigKeys.DFS_NAMENODE_MIN_BLOCK_SIZE_KEY, 0);
    c.setInt(DFSConfigKeys.DFS_HEARTBEAT_INTERVAL_KEY, 1);
    c.setInt(DFSConfigKeys.DFS_NAMENODE_REDUNDANCY_INTERVAL_SECONDS_KEY, 1);
    c.setInt(DFSConfigKeys.DFS_NAMENODE_REPLICATION_MAX_STREAMS_KEY, 32);
    c.setInt(DFSConfigKeys.DFS_NAMENODE_REPLICATION_STREAMS_HARD_LIMIT_KEY, 64);
    for (Configuration s : settings) {
      if (s != null) {
        for (Map.Entry<String, String> e : s) {
          c.set(e.getKey(), e.getValue());
        }
      }
    }
    return c;
  }

  /**
   * Starts the cluster with {@code conf} (from {@link #pluginConf} for the plugin). With a repair agent port
   * offset set, every DataNode gets a transfer port whose agent port is free too.
   *
   * @param baseDir where the cluster keeps its files; null for a temporary directory removed on close
   */
  public MiniHdfs(File baseDir, int dataNodes, Configuration conf, Consumer<String> progress) throws IOException {
    this(baseDir, dataNodes, conf, progress, null);
  }

  /** The same, with DataNode i in rack {@code racks[i]} (null: one default rack). */
  public MiniHdfs(File baseDir, int dataNodes, Configuration conf, Consumer<String> progress, String[] racks)
      throws IOException {
    // Its DataNodes share one host: what reads measure between them is noise, and the helper
    // choices (and the bytes the demo and tests count) should not depend on it unless asked.
    if (conf.get(CostKeys.COSTS_MEASURED_KEY) == null) {
      conf.setBoolean(CostKeys.COSTS_MEASURED_KEY, false);
    }
    this.conf = conf;
    this.ownDir = baseDir == null ? Files.createTempDirectory("ec-repair-minicluster") : null;
    File dir = baseDir != null ? baseDir : ownDir.resolve("dfs").toFile();
    boolean plugin = conf.get(DFSConfigKeys.DFS_DATANODE_PLUGINS_KEY, "").contains(EcRepairDataNodePlugin.class.getName());
    int agentOffset = conf.getInt(DataNodeKeys.AGENT_PORT_OFFSET_KEY, DataNodeKeys.AGENT_PORT_OFFSET_DEFAULT);
    progress.accept("starting an in-process HDFS: 1 NameNode, " + dataNodes + " DataNodes"
        + (plugin ? " with the ec-repair plugin" + (agentOffset > 0 ? " and its repair agents" : "") : ""));
    boolean ok = false;
    try {
      MiniDFSCluster.Builder builder = new MiniDFSCluster.Builder(conf, dir).numDataNodes(dataNodes).racks(racks);
      if (agentOffset > 0) {
        builder.checkDataNodeAddrConfig(true).dataNodeConfOverlays(agentPorts(dataNodes, agentOffset));
      }
      this.cluster = builder.build();
      cluster.waitActive();
      if (agentOffset > 0) {
        for (DataNode dn : cluster.getDataNodes()) {
          if (EcRepairDataNodePlugin.agentPort(dn) != dn.getXferPort() + agentOffset) {
            throw new IOException("the repair agent of " + dn + " is not up");
          }
        }
      }
      this.fs = cluster.getFileSystem();
      ok = true;
    } finally {
      if (!ok) {
        deleteTree(ownDir);
      }
    }
  }

  /**
   * Per DataNode: a free transfer port P with P + offset free too, both below the system's
   * ephemeral range (where no other socket lands by chance), the other ports picked by the
   * system.
   */
  private static Configuration[] agentPorts(int dataNodes, int offset) {
    Random random = new Random();
    Configuration[] overlays = new Configuration[dataNodes];
    Set<Integer> taken = new HashSet<>();
    for (int i = 0; i < dataNodes; i++) {
      int port = transferPortWithAgent(offset, random, taken);
      Configuration c = new Configuration(false);
      c.set(DFSConfigKeys.DFS_DATANODE_ADDRESS_KEY, "127.0.0.1:" + port);
      c.set(DFSConfigKeys.DFS_DATANODE_HTTP_ADDRESS_KEY, "127.0.0.1:0");
      c.set(DFSConfigKeys.DFS_DATANODE_IPC_ADDRESS_KEY, "127.0.0.1:0");
      overlays[i] = c;
    }
    return overlays;
  }

  /** A free port P below the ephemeral range with P + offset free too, neither in {@code taken} (both added). */
  private static int transferPortWithAgent(int offset, Random random, Set<Integer> taken) {
    int low = 32768;
    try {
      low = Integer.parseInt(Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim()
          .split("\\s+")[0]);
    } catch (IOException | RuntimeException e) {
      // not Linux: assume the IANA default range
    }
    int top = Math.max(2048, Math.min(low, 65536) - offset - 1);
    int[] slice = portSlice(System.getProperty(SystemProperties.PORT_SLICE_PROPERTY));
    int width = (top - 1024) / slice[1];
    int from = 1024 + slice[0] * width;
    int port;
    do {
      port = from + random.nextInt(width);
    } while (taken.contains(port) || taken.contains(port + offset) || !free(port) || !free(port + offset));
    taken.add(port);
    taken.add(port + offset);
    return port;
  }

  /**
   * {index from 0, count} of an "i/n" slice (i from 1; taken modulo n); the whole range when
   * unset. Test JVMs side by side each pick from their own slice, so two never pick the same free port.
   */
  static int[] portSlice(String spec) {
    if (spec == null || spec.isBlank()) {
      return new int[] {0, 1};
    }
    String[] parts = spec.trim().split("/");
    try {
      if (parts.length != 2) {
        throw new NumberFormatException();
      }
      int index = Integer.parseInt(parts[0]);
      int count = Integer.parseInt(parts[1]);
      if (count < 1 || count > 64 || index < 1) {
        throw new NumberFormatException();
      }
      return new int[] {(index - 1) % count, count};
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(SystemProperties.PORT_SLICE_PROPERTY + " is \"" + spec + "\"; it takes i/n, as 2/4");
    }
  }

  private static boolean free(int port) {
    try (java.net.ServerSocket s = new java.net.ServerSocket(port, 1, java.net.InetAddress.getLoopbackAddress())) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  public MiniDFSCluster cluster() {
    return cluster;
  }

  public DistributedFileSystem fileSystem() {
    return fs;
  }

  /** The configuration the cluster was started with (a client's, too). */
  public Configuration conf() {
    return conf;
  }

  /** Adds (when not a system policy) and enables the policy; returns HDFS's copy of it. */
  public ErasureCodingPolicy enable(ErasureCodingPolicy policy) throws IOException {
    fs.addErasureCodingPolicies(new ErasureCodingPolicy[] {policy});
    ErasureCodingPolicy known = null;
    for (ErasureCodingPolicyInfo info : fs.getAllErasureCodingPolicies()) {
      if (info.getPolicy().getName().equals(policy.getName())) {
        known = info.getPolicy();
      }
    }
    if (known == null) {
      throw new IllegalArgumentException("HDFS did not accept policy " + policy.getName());
    }
    fs.enableErasureCodingPolicy(known.getName());
    return known;
  }

  /** A directory set to {@code policy}, created if need be. */
  public org.apache.hadoop.fs.Path directory(String path, ErasureCodingPolicy policy) throws IOException {
    org.apache.hadoop.fs.Path dir = new org.apache.hadoop.fs.Path(path);
    fs.mkdirs(dir);
    fs.setErasureCodingPolicy(dir, policy.getName());
    return dir;
  }

  /** Writes {@code data} to {@code file} with one replica per block (EC files ignore it) and {@code blockSize}. */
  public void write(org.apache.hadoop.fs.Path file, long blockSize, byte[] data) throws IOException {
    write(file, blockSize, data, null);
  }

  /** The same, with the client's checksum type and chunk size ({@code null}: the configured ones). */
  public void write(org.apache.hadoop.fs.Path file, long blockSize, byte[] data,
                    org.apache.hadoop.fs.Options.ChecksumOpt checksum) throws IOException {
    try (FSDataOutputStream out = fs.create(file, FsPermission.getFileDefault(),
        java.util.EnumSet.of(org.apache.hadoop.fs.CreateFlag.CREATE, org.apache.hadoop.fs.CreateFlag.OVERWRITE),
        64 * 1024, (short) 1, blockSize, null, checksum)) {
      out.write(data);
    }
  }

  /** Whether the file reads back as {@code data}. */
  public boolean readsBack(org.apache.hadoop.fs.Path file, byte[] data) throws IOException {
    byte[] back = new byte[data.length];
    try (FSDataInputStream in = fs.open(file)) {
      IOUtils.readFully(in, back, 0, back.length);
      if (in.read() != -1) {
        return false;
      }
    }
    return java.util.Arrays.equals(data, back);
  }

  /** Seeded random bytes. */
  public static byte[] randomBytes(int length, long seed) {
    byte[] data = new byte[length];
    ByteBuffer b = ByteBuffer.wrap(data);
    SplittableRandom r = new SplittableRandom(seed);
    while (b.remaining() >= 8) {
      b.putLong(r.nextLong());
    }
    while (b.hasRemaining()) {
      b.put((byte) r.nextInt());
    }
    return data;
  }

  /** The file's block groups, in file order, as the NameNode lists them. */
  public List<LocatedBlock> groups(org.apache.hadoop.fs.Path file) throws IOException {
    return groups(fs, file);
  }

  /** The file's block groups, in file order, as the NameNode lists them to {@code fs}. */
  public static List<LocatedBlock> groups(DistributedFileSystem fs, org.apache.hadoop.fs.Path file)
      throws IOException {
    return fs.getClient().getLocatedBlocks(file.toString(), 0, Long.MAX_VALUE).getLocatedBlocks();
  }

  /** The DataNode holding internal block {@code index} of group {@code g} of {@code file}. */
  public DatanodeInfo holder(org.apache.hadoop.fs.Path file, int g, int index) throws IOException {
    LocatedStripedBlock group = (LocatedStripedBlock) groups(file).get(g);
    for (int j = 0; j < group.getBlockIndices().length; j++) {
      if (group.getBlockIndices()[j] == index) {
        return group.getLocations()[j];
      }
    }
    throw new IllegalStateException("no internal block " + index + " in group " + g + " of " + file);
  }

  /**
   * The file's groups once the NameNode knows each one's internal blocks (its data blocks that
   * hold bytes and every parity; block reports arrive after the file is closed).
   */
  public List<LocatedBlock> awaitReported(org.apache.hadoop.fs.Path file, long timeoutMs) throws IOException {
    return ListedUnits.await(fs.getClient(), file.toUri().getPath(), timeoutMs)
        .orElseThrow(() -> new IOException("the NameNode did not learn every internal block of " + file + " in "
            + timeoutMs / 1000 + " s"));
  }

  public static ExtendedBlock internal(LocatedStripedBlock group, int index, ErasureCodingPolicy policy) {
    return StripedBlockUtil.constructInternalBlock(group.getBlock(), policy.getCellSize(), policy.getNumDataUnits(),
        index);
  }

  /** The running DataNode of {@code info}. */
  public DataNode dataNode(DatanodeInfo info) {
    for (DataNode dn : cluster.getDataNodes()) {
      if (dn.getXferPort() == info.getXferPort()) {
        return dn;
      }
    }
    throw new IllegalStateException("no running DataNode " + info);
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

  /**
   * Stops DataNodes and tells the NameNode at once (no heartbeat expiry wait). Several nodes
   * are declared dead together, under the namesystem lock that the NameNode's redundancy
   * monitor also takes, so it schedules the groups they share as one multi-loss task instead
   * of racing between the deaths. Returns what {@link #restart} needs.
   */
  public List<MiniDFSCluster.DataNodeProperties> stop(DatanodeInfo... nodes) throws IOException {
    List<DataNode> dead = new ArrayList<>();
    List<MiniDFSCluster.DataNodeProperties> stopped = new ArrayList<>();
    for (DatanodeInfo node : nodes) {
      dead.add(dataNode(node));
      stopped.add(cluster.stopDataNode(node.getXferAddr()));
    }
    declareDead(dead.toArray(new DataNode[0]));
    return stopped;
  }

  /** Has the NameNode drop stopped DataNodes at once, together (their replicas lose their locations). */
  public void declareDead(DataNode... dead) throws IOException {
    FSNamesystem ns = cluster.getNamesystem();
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
   * Starts stopped DataNodes again, on their ports where they are still free, and waits until
   * the NameNode knows them.
   */
  public void restart(List<MiniDFSCluster.DataNodeProperties> stopped) throws IOException {
    for (MiniDFSCluster.DataNodeProperties p : stopped) {
      restart(p);
    }
    cluster.waitActive();
  }

  private void restart(MiniDFSCluster.DataNodeProperties stopped) throws IOException {
    try {
      cluster.restartDataNode(stopped, true);
      return;
    } catch (IOException e) {
      if (!bindFailure(e)) {
        throw e;
      }
    }
    // Another socket took one of the old ports meanwhile (the IPC port is an ephemeral one the
    // system hands out again). The DataNode keeps its identity and storage on new ports.
    Configuration dnConf = MiniDFSClusterAccess.conf(stopped);
    int offset = dnConf.getInt(DataNodeKeys.AGENT_PORT_OFFSET_KEY, DataNodeKeys.AGENT_PORT_OFFSET_DEFAULT);
    int transfer = offset > 0 ? transferPortWithAgent(offset, new Random(), new HashSet<>()) : 0;
    dnConf.set(DFSConfigKeys.DFS_DATANODE_ADDRESS_KEY, "127.0.0.1:" + transfer);
    dnConf.set(DFSConfigKeys.DFS_DATANODE_IPC_ADDRESS_KEY, "127.0.0.1:0");
    cluster.restartDataNode(stopped, false);
  }

  private static boolean bindFailure(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.net.BindException) {
        return true;
      }
    }
    return false;
  }

  static void pause(long millis) throws IOException {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted");
    }
  }

  @Override
  public void close() {
    try {
      cluster.shutdown();
    } finally {
      deleteTree(ownDir);
    }
  }

  private static void deleteTree(Path dir) {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      walk.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
    } catch (IOException e) {
      // best effort: a temporary directory
    }
  }
}
