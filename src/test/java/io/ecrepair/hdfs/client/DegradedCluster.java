package io.ecrepair.hdfs.client;

import java.io.File;
import io.ecrepair.hdfs.StripedGroups;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.namenode.FSNamesystem;
import org.apache.hadoop.io.erasurecode.ECSchema;

/**
 * A MiniDFSCluster for degraded-read tests: clients get {@link EcRepairDistributedFileSystem}
 * through {@code fs.hdfs.impl} (a stock client is one call away), the NameNode never schedules
 * reconstruction (so a stopped DataNode's blocks stay missing while the test reads), and
 * stopped DataNodes are declared dead at once (their blocks lose their locations).
 */
final class DegradedCluster implements AutoCloseable {
  final MiniDFSCluster cluster;
  final Configuration conf;
  final DistributedFileSystem fs;
  final List<DatanodeInfo> stopped = new ArrayList<>();

  DegradedCluster(File dir, int dataNodes) throws IOException {
    conf = new HdfsConfiguration();
    conf.setLong(DFSConfigKeys.DFS_NAMENODE_MIN_BLOCK_SIZE_KEY, 0);
    conf.setInt(DFSConfigKeys.DFS_NAMENODE_REDUNDANCY_INTERVAL_SECONDS_KEY, 3600);
    conf.set("fs.hdfs.impl", EcRepairDistributedFileSystem.class.getName());
    conf.setBoolean("fs.hdfs.impl.disable.cache", true);
    cluster = new MiniDFSCluster.Builder(conf, dir).numDataNodes(dataNodes).build();
    cluster.waitActive();
    fs = cluster.getFileSystem();
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
    ErasureCodingPolicy p = new ErasureCodingPolicy(new ECSchema(codec, k, m), cell);
    fs.addErasureCodingPolicies(new ErasureCodingPolicy[] {p});
    fs.enableErasureCodingPolicy(p.getName());
    return fs.getAllErasureCodingPolicies().stream().map(i -> i.getPolicy())
        .filter(x -> x.getName().equals(p.getName())).findFirst().orElseThrow();
  }

  /** Writes {@code length} random bytes under {@code policy} in its own directory; returns them. */
  byte[] write(Path file, ErasureCodingPolicy policy, int length, long blockSize, long seed) throws IOException {
    fs.mkdirs(file.getParent());
    fs.setErasureCodingPolicy(file.getParent(), policy.getName());
    byte[] data = random(length, seed);
    try (FSDataOutputStream out = fs.create(file, FsPermission.getFileDefault(), true, 64 * 1024, (short) 1,
        blockSize, null)) {
      out.write(data);
    }
    awaitReported(file, policy);
    return data;
  }

  static byte[] random(int length, long seed) {
    byte[] data = new byte[length];
    SplittableRandom r = new SplittableRandom(seed);
    for (int i = 0; i < length; i++) {
      data[i] = (byte) r.nextInt(256);
    }
    return data;
  }

  List<LocatedBlock> groups(Path file) throws IOException {
    return StripedGroups.of(fs, file);
  }

  /** The DataNode holding internal block {@code unit} of group {@code g} of {@code file}. */
  DatanodeInfo holder(Path file, int g, int unit) throws IOException {
    return StripedGroups.holder(fs, file, g, unit);
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
    List<DataNode> dead = new ArrayList<>();
    for (DatanodeInfo node : nodes) {
      dead.add(dataNode(node));
      cluster.stopDataNode(node.getXferAddr());
      stopped.add(node);
    }
    forget(dead.toArray(new DataNode[0]));
  }

  /** Has the NameNode drop stopped DataNodes at once. */
  void forget(DataNode... dead) throws IOException {
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

  /** Stops a DataNode without telling the NameNode (clients find out when they read). */
  MiniDFSCluster.DataNodeProperties stopQuietly(DatanodeInfo node) {
    stopped.add(node);
    return cluster.stopDataNode(node.getXferAddr());
  }

  DataNode dataNode(DatanodeInfo info) {
    for (DataNode dn : cluster.getDataNodes()) {
      if (dn.getXferPort() == info.getXferPort()) {
        return dn;
      }
    }
    throw new AssertionError("no running DataNode " + info);
  }

  private void awaitReported(Path file, ErasureCodingPolicy policy) throws IOException {
    long deadline = System.currentTimeMillis() + 30_000;
    while (true) {
      boolean all = true;
      for (LocatedBlock b : groups(file)) {
        int dataBlocks = (int) Math.min(policy.getNumDataUnits(),
            (b.getBlockSize() + policy.getCellSize() - 1) / policy.getCellSize());
        all &= ((LocatedStripedBlock) b).getBlockIndices().length >= dataBlocks + policy.getNumParityUnits();
      }
      if (all) {
        return;
      }
      if (System.currentTimeMillis() > deadline) {
        throw new AssertionError("the NameNode did not learn every internal block of " + file);
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException(e);
      }
    }
  }

  @Override
  public void close() {
    cluster.shutdown();
  }
}
