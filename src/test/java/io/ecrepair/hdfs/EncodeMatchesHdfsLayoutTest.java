package io.ecrepair.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.gf.RegionCoders;
import io.ecrepair.layout.Manifest;
import io.ecrepair.layout.Policy;
import io.ecrepair.layout.StripedFileEncoder;
import io.ecrepair.testing.ClusterTest;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.AddErasureCodingPolicyResponse;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.util.ECPolicyLoader;
import org.apache.hadoop.hdfs.util.StripedBlockUtil;
import org.apache.hadoop.io.erasurecode.ECSchema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * `ec-repair encode` lays a file out exactly as HDFS does: the DataNodes' internal block
 * files equal our output byte for byte, for full groups, several groups and a last partial
 * stripe, whether HDFS wrote with its own rs_java coder or with our rs_isal.
 */
@ClusterTest
class EncodeMatchesHdfsLayoutTest {
  @TempDir
  static Path tmp;

  private static MiniDFSCluster cluster;
  private static DistributedFileSystem fs;

  @BeforeAll
  static void startCluster() throws IOException {
    Configuration conf = new HdfsConfiguration();
    conf.setLong(DFSConfigKeys.DFS_NAMENODE_MIN_BLOCK_SIZE_KEY, 0);
    cluster = new MiniDFSCluster.Builder(conf, tmp.resolve("dfs").toFile()).numDataNodes(16).build(); // the widest policy, RS-12-4, needs 16
    cluster.waitActive();
    fs = cluster.getFileSystem();
    fs.enableErasureCodingPolicy("RS-6-3-1024k");
    fs.addErasureCodingPolicies(new ErasureCodingPolicy[] {new ErasureCodingPolicy(new ECSchema("rs", 3, 2), 64 * 1024)});
    fs.enableErasureCodingPolicy("RS-3-2-64k");
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.shutdown();
    }
  }

  @Test
  void rs63WithStockCoderSeveralGroupsAndPartialStripe() throws Exception {
    // Block 2 MiB -> a group holds 12 MiB; two full groups, then 6 MiB + 300 KiB + 17 bytes.
    int length = 2 * 12 * 1024 * 1024 + 6 * 1024 * 1024 + 300 * 1024 + 17;
    check("RS-6-3-1024k", 2L << 20, length, fs);
  }

  @Test
  void smallCellPolicyWithOurCoderInTheWritePath() throws Exception {
    Configuration conf = new Configuration(fs.getConf());
    conf.set("io.erasurecode.codec.rs.rawcoders", "rs_isal");
    try (FileSystem ours = FileSystem.newInstance(fs.getUri(), conf)) {
      check("RS-3-2-64k", 256 * 1024, 4 * 768 * 1024 + 100_000, (DistributedFileSystem) ours);
      check("RS-3-2-64k", 256 * 1024, 1000, (DistributedFileSystem) ours); // less than one cell
    }
  }

  @Test
  void shippedPoliciesAreAcceptedAndWritable() throws Exception {
    List<ErasureCodingPolicy> shipped = new ECPolicyLoader().loadPolicy(
        Path.of("conf/user_ec_policies.xml").toAbsolutePath().toString()); // Hadoop takes absolute paths
    assertTrue(shipped.size() >= 2, "conf/user_ec_policies.xml lists policies");
    for (AddErasureCodingPolicyResponse r : fs.addErasureCodingPolicies(shipped.toArray(new ErasureCodingPolicy[0]))) {
      // RS-3-2-64k style duplicates of what this test added itself are fine; anything else is not.
      assertTrue(r.isSucceed() || r.getErrorMsg().contains("already exists"), r.toString());
    }
    for (ErasureCodingPolicy p : shipped) {
      fs.enableErasureCodingPolicy(p.getName());
      Policy policy = Policy.parse(p.getName()); // our CLI understands every shipped policy name
      // Every shipped policy is writable, and HDFS stores exactly what `encode` computes:
      // one full block group and a partial one.
      long block = 2L * policy.cellSize();
      check(p.getName(), block, (int) (policy.code().k() * block + 3 * policy.cellSize() / 2 + 11), fs);
    }
  }

  private void check(String policyName, long blockSize, int length, DistributedFileSystem writer) throws Exception {
    Policy policy = Policy.parse(policyName);
    byte[] data = new byte[length];
    new Random(length).nextBytes(data);
    org.apache.hadoop.fs.Path dir = new org.apache.hadoop.fs.Path("/" + policyName + "-" + length);
    fs.mkdirs(dir);
    fs.setErasureCodingPolicy(dir, policyName);
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(dir, "f");
    try (OutputStream out = writer.create(file, FsPermission.getFileDefault(), true, 4096, (short) 1, blockSize, null)) {
      out.write(data);
    }

    Path local = tmp.resolve(policyName + "-" + length + ".bin");
    Files.write(local, data);
    Path encoded = tmp.resolve(policyName + "-" + length + ".enc");
    Manifest manifest = new StripedFileEncoder(policy, blockSize, policy.code().create(RegionCoders.best()))
        .encode(local, encoded, x -> { });

    List<LocatedBlock> groups = ListedUnits.await(fs.getClient(), file.toString(), 30_000).orElseThrow(
        () -> new AssertionError("the NameNode did not learn every internal block of " + file));
    assertEquals(manifest.groups(), groups.size(), "block groups");
    int compared = 0;
    for (int g = 0; g < groups.size(); g++) {
      LocatedStripedBlock group = (LocatedStripedBlock) groups.get(g);
      byte[] indices = group.getBlockIndices();
      DatanodeInfo[] holders = group.getLocations();
      for (int j = 0; j < indices.length; j++) {
        ExtendedBlock internal = StripedBlockUtil.constructInternalBlock(
            group.getBlock(), policy.cellSize(), policy.code().k(), indices[j]);
        byte[] hdfsBytes = Files.readAllBytes(blockFile(holders[j], internal).toPath());
        byte[] ours = Files.readAllBytes(encoded.resolve(Manifest.blockFileName(g, indices[j])));
        assertArrayEquals(hdfsBytes, ours, policyName + " group " + g + " internal block " + indices[j]);
        compared++;
      }
    }
    assertEquals(manifest.blocks().stream().filter(b -> b.length() > 0).count(), compared,
        "every non-empty internal block was compared");
  }

  private static File blockFile(DatanodeInfo holder, ExtendedBlock block) {
    List<DataNode> dns = cluster.getDataNodes();
    for (int i = 0; i < dns.size(); i++) {
      if (dns.get(i).getXferPort() == holder.getXferPort()) {
        File f = cluster.getBlockFile(i, block);
        assertNotNull(f, "block file of " + block + " on " + holder);
        return f;
      }
    }
    throw new AssertionError("no DataNode for " + holder);
  }
}
