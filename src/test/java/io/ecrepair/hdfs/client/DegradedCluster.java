package io.ecrepair.hdfs.client;

import io.ecrepair.harness.MiniHdfs;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.io.erasurecode.ECSchema;

/**
 * A MiniDFSCluster for degraded-read tests: clients get {@link EcRepairDistributedFileSystem}
 * through {@code fs.hdfs.impl} (a stock client is one call away), the NameNode never schedules
 * reconstruction (so a stopped DataNode's blocks stay missing while the test reads), and
 * stopped DataNodes are declared dead at once (their blocks lose their locations).
 */
final class DegradedCluster implements AutoCloseable {
  static final int AGENT_PORT_OFFSET = 10;
  final MiniHdfs hdfs;
  final MiniDFSCluster cluster;
  final Configuration conf;
  final DistributedFileSystem fs;
  final List<DatanodeInfo> stopped = new ArrayList<>();

  DegradedCluster(File dir, int dataNodes) throws IOException {
    this(dir, dataNodes, null);
  }

  /**
   * @param agents when not null, the DataNodes run the plugin with repair agents (and clients
   *     know their port offset), so degraded reads can ask them; these settings are added
   */
  DegradedCluster(File dir, int dataNodes, Configuration agents) throws IOException {
    Configuration c = new HdfsConfiguration();
    if (agents != null) {
      c = MiniHdfs.pluginConf(agents);
      c.setInt(io.ecrepair.hdfs.task.DataNodeKeys.AGENT_PORT_OFFSET_KEY, AGENT_PORT_OFFSET);
    }
    c.setLong(DFSConfigKeys.DFS_NAMENODE_MIN_BLOCK_SIZE_KEY, 0);
    c.setInt(DFSConfigKeys.DFS_NAMENODE_REDUNDANCY_INTERVAL_SECONDS_KEY, 3600);
    c.set("fs.hdfs.impl", EcRepairDistributedFileSystem.class.getName());
    c.setBoolean("fs.hdfs.impl.disable.cache", true);
    hdfs = new MiniHdfs(dir, dataNodes, c, x -> { });
    conf = hdfs.conf();
    cluster = hdfs.cluster();
    fs = hdfs.fileSystem();
    if (!(fs instanceof EcRepairDistributedFileSystem)) {
      throw new AssertionError("fs.hdfs.impl did not select our FileSystem: " + fs.getClass());
    }
  }

  URI uri() {
    return fs.getUri();
  }

  /** A client with HDFS's own FileSystem. */
  DistributedFileSystem stockClient() throws IOException {
    Configuration c = new Configuration(conf);
    c.set("fs.hdfs.impl", DistributedFileSystem.class.getName());
    return (DistributedFileSystem) FileSystem.newInstance(uri(), c);
  }

  /** A new client with our FileSystem (its own dead-node view). */
  EcRepairDistributedFileSystem ourClient() throws IOException {
    return (EcRepairDistributedFileSystem) FileSystem.newInstance(uri(), conf);
  }

  /** Adds and enables a policy (a no-op add for system policies); returns HDFS's copy. */
  ErasureCodingPolicy policy(String codec, int k, int m, int cell) throws IOException {
    return hdfs.enable(new ErasureCodingPolicy(new ECSchema(codec, k, m), cell));
  }

  /** Writes {@code length} random bytes under {@code policy} in its own directory; returns them. */
  byte[] write(Path file, ErasureCodingPolicy policy, int length, long blockSize, long seed) throws IOException {
    hdfs.directory(file.getParent().toString(), policy);
    byte[] data = MiniHdfs.randomBytes(length, seed);
    hdfs.write(file, blockSize, data);
    hdfs.awaitReported(file, 30_000);
    return data;
  }

  List<LocatedBlock> groups(Path file) throws IOException {
    return hdfs.groups(file);
  }

  /** The DataNode holding internal block {@code unit} of group {@code g} of {@code file}. */
  DatanodeInfo holder(Path file, int g, int unit) throws IOException {
    return hdfs.holder(file, g, unit);
  }

  /** Internal block indices of group g that the NameNode locates. */
  List<Integer> located(Path file, int g) throws IOException {
    LocatedStripedBlock group = (LocatedStripedBlock) groups(file).get(g);
    List<Integer> out = new ArrayList<>();
    for (byte b : group.getBlockIndices()) {
      out.add((int) b);
    }
    return out;
  }

  /** Stops DataNodes and has the NameNode drop them at once (their replicas lose their locations). */
  void stopAndForget(DatanodeInfo... nodes) throws IOException {
    hdfs.stop(nodes);
    stopped.addAll(List.of(nodes));
  }

  /** Has the NameNode drop stopped DataNodes at once. */
  void forget(DataNode... dead) throws IOException {
    hdfs.declareDead(dead);
  }

  /** Stops a DataNode without telling the NameNode (clients find out when they read). */
  MiniDFSCluster.DataNodeProperties stopQuietly(DatanodeInfo node) {
    stopped.add(node);
    return cluster.stopDataNode(node.getXferAddr());
  }

  DataNode dataNode(DatanodeInfo info) {
    return hdfs.dataNode(info);
  }

  @Override
  public void close() {
    hdfs.close();
  }
}
