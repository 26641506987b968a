package io.ecrepair.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.testing.ClusterTest;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
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
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.io.erasurecode.ECSchema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stock HDFS client reading a Clay file whose internal block is lost gets a clear error
 * naming what it needs, never wrong bytes (HDFS decodes partial cell ranges,
 * docs/architecture.md#what-hdfs-offers-a-plugin); healthy cells still read normally.
 */
@ClusterTest
class VectorCodeStockReadTest {
  private static final int CELL = 64 * 1024;

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
  void degradedStockReadOfClayRefusesInsteadOfReturningWrongBytes() throws Exception {
    Configuration conf = new HdfsConfiguration();
    conf.setLong(DFSConfigKeys.DFS_NAMENODE_MIN_BLOCK_SIZE_KEY, 0);
    cluster = new MiniDFSCluster.Builder(conf, tmp.resolve("dfs").toFile()).numDataNodes(9).build();
    cluster.waitActive();
    DistributedFileSystem fs = cluster.getFileSystem();
    ErasureCodingPolicy clay = new ErasureCodingPolicy(new ECSchema("clay", 6, 3), CELL);
    fs.addErasureCodingPolicies(new ErasureCodingPolicy[] {clay});
    fs.enableErasureCodingPolicy("CLAY-6-3-64k");
    org.apache.hadoop.fs.Path dir = new org.apache.hadoop.fs.Path("/clay");
    fs.mkdirs(dir);
    fs.setErasureCodingPolicy(dir, "CLAY-6-3-64k");
    byte[] data = new byte[6 * 4 * CELL + 1234];
    new Random(2).nextBytes(data);
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(dir, "f");
    try (FSDataOutputStream out = fs.create(file, FsPermission.getFileDefault(), true, 4096, (short) 1, 4L * CELL, null)) {
      out.write(data);
    }
    // The file closed once each group's minimum was reported; HDFS's client cannot decode Clay.
    assertTrue(ListedUnits.await(fs.getClient(), file.toString(), 30_000).isPresent(), "block reports");
    byte[] back = new byte[data.length];
    try (FSDataInputStream in = fs.open(file)) {
      in.readFully(0, back);
    }
    assertArrayEquals(data, back, "healthy read");

    List<org.apache.hadoop.hdfs.protocol.LocatedBlock> groups =
        fs.getClient().getLocatedBlocks(file.toString(), 0, data.length).getLocatedBlocks();
    LocatedStripedBlock g0 = (LocatedStripedBlock) groups.get(0);
    DatanodeInfo holderOf1 = null;
    for (int j = 0; j < g0.getBlockIndices().length; j++) {
      if (g0.getBlockIndices()[j] == 1) {
        holderOf1 = g0.getLocations()[j];
      }
    }
    cluster.stopDataNode(holderOf1.getXferAddr());

    // Cell 0 lives on block 0: no decoding needed, the bytes come back.
    byte[] head = new byte[1000];
    try (FSDataInputStream in = fs.open(file)) {
      in.readFully(0, head);
    }
    assertArrayEquals(java.util.Arrays.copyOf(data, 1000), head);

    // Cell 1 lives on the lost block 1: the stock client must fail, not return guessed bytes.
    byte[] lost = new byte[5000];
    IOException refusal = null;
    try (FSDataInputStream in = fs.open(file)) {
      in.readFully(CELL + 100, lost);
    } catch (IOException e) {
      refusal = e;
    }
    assertTrue(refusal != null, "a stock degraded read of a Clay file must not succeed");
    StringBuilder chain = new StringBuilder();
    for (Throwable t = refusal; t != null; t = t.getCause()) {
      chain.append(t.getMessage()).append(" | ");
    }
    assertTrue(chain.toString().contains("hadoop-ec-repair"), "the error names what is needed: " + chain);
    assertTrue(chain.toString().contains("fs.hdfs.impl=io.ecrepair.hdfs.client.EcRepairDistributedFileSystem"),
        "the error names the client FileSystem setting that fixes the read: " + chain);
  }
}
