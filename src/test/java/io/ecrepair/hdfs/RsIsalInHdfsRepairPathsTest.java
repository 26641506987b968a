package io.ecrepair.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.testing.ClusterTest;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.util.StripedBlockUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With {@code io.erasurecode.codec.rs.rawcoders=rs_isal} on every node, HDFS's own degraded
 * reads and NameNode-driven reconstruction run through our decoder, and both give exactly
 * the original bytes.
 */
@ClusterTest
class RsIsalInHdfsRepairPathsTest {
  private static final String POLICY = "RS-6-3-1024k";
  private static final int CELL = 1024 * 1024;
  private static final long BLOCK = 2L * CELL;

  @TempDir
  Path tmp;

  private MiniDFSCluster cluster;

  @AfterEach
  void stop() {
    if (cluster != null) {
      cluster.shutdown();
    }
  }

  @Test
  void degradedReadAndReconstructionGiveTheOriginalBytes() throws Exception {
    Configuration conf = new HdfsConfiguration();
    conf.set("io.erasurecode.codec.rs.rawcoders", "rs_isal");
    conf.setLong(DFSConfigKeys.DFS_NAMENODE_MIN_BLOCK_SIZE_KEY, 0);
    conf.setInt(DFSConfigKeys.DFS_HEARTBEAT_INTERVAL_KEY, 1);
    conf.setInt(DFSConfigKeys.DFS_NAMENODE_REDUNDANCY_INTERVAL_SECONDS_KEY, 1);
    cluster = new MiniDFSCluster.Builder(conf, tmp.resolve("dfs").toFile()).numDataNodes(10).build();
    cluster.waitActive();
    DistributedFileSystem fs = cluster.getFileSystem();
    fs.enableErasureCodingPolicy(POLICY);
    org.apache.hadoop.fs.Path dir = new org.apache.hadoop.fs.Path("/ec");
    fs.mkdirs(dir);
    fs.setErasureCodingPolicy(dir, POLICY);

    // One full group (12 MiB) and a partial one (3 MiB + 123 bytes).
    byte[] data = new byte[12 * CELL + 3 * CELL + 123];
    new Random(3).nextBytes(data);
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(dir, "f");
    try (FSDataOutputStream out = fs.create(file, FsPermission.getFileDefault(), true, 4096, (short) 1, BLOCK, null)) {
      out.write(data);
    }

    // Remember every internal block, then lose the DataNode holding index 2 of group 0. The
    // NameNode may hear of the last internal blocks a moment after close: wait for all of them
    // (group 0 is full: 9; group 1 holds 3 MiB + 123 bytes: 4 data cells and 3 parities).
    List<LocatedBlock> groups;
    long reported = System.currentTimeMillis() + 30_000;
    while (true) {
      groups = fs.getClient().getLocatedBlocks(file.toString(), 0, data.length).getLocatedBlocks();
      if (((LocatedStripedBlock) groups.get(0)).getBlockIndices().length == 9
          && ((LocatedStripedBlock) groups.get(1)).getBlockIndices().length == 7) {
        break;
      }
      assertTrue(System.currentTimeMillis() < reported, "the NameNode never heard of every internal block");
      Thread.sleep(100);
    }
    Map<String, byte[]> original = new HashMap<>();
    DatanodeInfo victim = null;
    for (int g = 0; g < groups.size(); g++) {
      LocatedStripedBlock group = (LocatedStripedBlock) groups.get(g);
      for (int j = 0; j < group.getBlockIndices().length; j++) {
        int index = group.getBlockIndices()[j];
        original.put(g + "/" + index, replica(group.getLocations()[j], internal(group, index)));
        if (g == 0 && index == 2) {
          victim = group.getLocations()[j];
        }
      }
    }
    DataNode dead = dataNode(victim);
    cluster.stopDataNode(victim.getXferAddr());

    // Degraded read: the client decodes the missing cells with rs_isal.
    assertArrayEquals(data, readAll(fs, file, data.length), "degraded read");
    byte[] piece = new byte[5000];
    try (FSDataInputStream in = fs.open(file)) {
      in.readFully(2L * CELL + 777, piece); // inside a lost cell of group 0
    }
    assertArrayEquals(java.util.Arrays.copyOfRange(data, 2 * CELL + 777, 2 * CELL + 777 + 5000), piece, "pread");

    // NameNode-driven reconstruction on the spare DataNode, decoding with rs_isal.
    cluster.setDataNodeDead(dead.getDatanodeId());
    long deadline = System.currentTimeMillis() + 120_000;
    List<LocatedBlock> now;
    while (true) {
      now = fs.getClient().getLocatedBlocks(file.toString(), 0, data.length).getLocatedBlocks();
      if (allIndicesLive(now, groups, victim)) {
        break;
      }
      assertTrue(System.currentTimeMillis() < deadline, "reconstruction did not finish in 120 s");
      Thread.sleep(500);
    }
    int rebuilt = 0;
    for (int g = 0; g < now.size(); g++) {
      LocatedStripedBlock group = (LocatedStripedBlock) now.get(g);
      for (int j = 0; j < group.getBlockIndices().length; j++) {
        int index = group.getBlockIndices()[j];
        byte[] bytes = replica(group.getLocations()[j], internal(group, index));
        assertArrayEquals(original.get(g + "/" + index), bytes, "group " + g + " internal block " + index);
        rebuilt++;
      }
    }
    assertEquals(original.size(), rebuilt);
    assertArrayEquals(data, readAll(fs, file, data.length), "read after reconstruction");
  }

  private static boolean allIndicesLive(List<LocatedBlock> now, List<LocatedBlock> before, DatanodeInfo victim) {
    for (int g = 0; g < now.size(); g++) {
      LocatedStripedBlock a = (LocatedStripedBlock) now.get(g);
      LocatedStripedBlock b = (LocatedStripedBlock) before.get(g);
      if (a.getBlockIndices().length < b.getBlockIndices().length) {
        return false;
      }
      for (DatanodeInfo d : a.getLocations()) {
        if (d.getXferPort() == victim.getXferPort()) {
          return false;
        }
      }
    }
    return true;
  }

  private static ExtendedBlock internal(LocatedStripedBlock group, int index) {
    return StripedBlockUtil.constructInternalBlock(group.getBlock(), CELL, 6, index);
  }

  private static byte[] readAll(DistributedFileSystem fs, org.apache.hadoop.fs.Path file, int length) throws Exception {
    byte[] back = new byte[length];
    try (FSDataInputStream in = fs.open(file)) {
      in.readFully(0, back);
    }
    return back;
  }

  private DataNode dataNode(DatanodeInfo info) {
    for (DataNode dn : cluster.getDataNodes()) {
      if (dn.getXferPort() == info.getXferPort()) {
        return dn;
      }
    }
    throw new AssertionError("no DataNode " + info);
  }

  /** A replica's bytes as its DataNode serves them (MiniDFSCluster's file helpers assume no node was stopped). */
  private byte[] replica(DatanodeInfo holder, ExtendedBlock block) throws Exception {
    DataNode dn = dataNode(holder);
    ExtendedBlock stored = new ExtendedBlock(block.getBlockPoolId(), block.getBlockId(),
        dn.getFSDataset().getLength(block), block.getGenerationStamp());
    byte[] bytes = new byte[(int) stored.getNumBytes()];
    try (java.io.InputStream in = dn.getFSDataset().getBlockInputStream(stored, 0)) {
      org.apache.hadoop.io.IOUtils.readFully(in, bytes, 0, bytes.length);
    }
    return bytes;
  }
}
