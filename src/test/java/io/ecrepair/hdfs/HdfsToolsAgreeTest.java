package io.ecrepair.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.harness.ShippedPolicies;
import io.ecrepair.testing.ClusterTest;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.tools.DFSck;
import org.apache.hadoop.hdfs.tools.DebugAdmin;
import org.apache.hadoop.hdfs.tools.ECAdmin;
import org.apache.hadoop.hdfs.util.StripedBlockUtil;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * HDFS's own tools agree with our codecs. {@code hdfs debug verifyEC} (3.3.6) re-encodes each
 * internal block's bytes in slices of {@code dfs.datanode.ec.reconstruction.stripedread.buffer.size},
 * and a Clay or Butterfly parity is defined per whole cell, so the slice must be the policy's
 * cell size: with the shipped hdfs-site.ec-repair.xml merged, verifyEC at its defaults checks
 * every shipped policy of 1 MiB cells OK on healthy data, the 4 MiB-cell Butterfly with the slice
 * the README gives on the command line, and a byte changed on disk is reported. Without the
 * shipped setting (HDFS's 64 KiB slice) it reports a mismatch on healthy Clay data, which is why
 * the setting ships. {@code hdfs ec -getPolicy / -listPolicies / -verifyClusterSetup} and
 * {@code hdfs fsck} treat our policies as HDFS's own.
 */
@ClusterTest
class HdfsToolsAgreeTest {
  @TempDir
  Path tmp;

  @Test
  void hdfsToolsAgreeWithEveryShippedPolicy() throws Exception {
    List<ErasureCodingPolicy> shipped = ShippedPolicies.load(ShippedPolicies.defaultPolicyFile());
    Configuration conf = new HdfsConfiguration();
    conf.setLong(DFSConfigKeys.DFS_NAMENODE_MIN_BLOCK_SIZE_KEY, 0);
    // Six racks: BUTTERFLY-10-2 (n = 12, m = 2) needs n/m of them for -verifyClusterSetup.
    int dataNodes = ShippedPolicies.dataNodesFor(shipped);
    String[] racks = new String[dataNodes];
    for (int i = 0; i < dataNodes; i++) {
      racks[i] = "/rack" + i % 6;
    }
    MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf, tmp.resolve("dfs").toFile())
        .numDataNodes(dataNodes).racks(racks).build();
    try {
      cluster.waitActive();
      DistributedFileSystem fs = cluster.getFileSystem();
      fs.addErasureCodingPolicies(shipped.toArray(new ErasureCodingPolicy[0]));
      int vector = 0;
      int atDefaults = 0;
      for (ErasureCodingPolicy p : shipped) {
        fs.enableErasureCodingPolicy(p.getName());
        org.apache.hadoop.fs.Path dir = new org.apache.hadoop.fs.Path("/" + p.getName());
        fs.mkdirs(dir);
        fs.setErasureCodingPolicy(dir, p.getName());
        int cell = p.getCellSize();
        // A full row, then a short one (a cell and a half of data): both kinds of row are checked.
        byte[] data = new byte[p.getNumDataUnits() * cell + cell + cell / 2 + 123];
        new Random(p.getName().hashCode()).nextBytes(data);
        org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(dir, "f");
        try (FSDataOutputStream out = fs.create(file, FsPermission.getFileDefault(), true, 4096, (short) 1,
            2L * cell, null)) {
          out.write(data);
        }
        assertTrue(ListedUnits.await(fs.getClient(), file.toString(), 30_000).isPresent(),
            "the NameNode never heard of all internal blocks of " + file);
        Configuration client = cluster.getConfiguration(0);
        Configuration merged = withShippedSite(client);
        // hdfs debug verifyEC -file F with the shipped settings; a cell other than theirs (1 MiB) on the
        // command line, as the README says: hdfs debug -D dfs.datanode.ec.reconstruction.stripedread.buffer.size=CELL ...
        String atCell = DFSConfigKeys.DFS_DN_EC_RECONSTRUCTION_STRIPED_READ_BUFFER_SIZE_KEY + "=" + cell;
        boolean shippedSlice = cell == merged.getInt(DFSConfigKeys.DFS_DN_EC_RECONSTRUCTION_STRIPED_READ_BUFFER_SIZE_KEY, 0);
        Result ok = shippedSlice ? verifyEc(merged, file) : verifyEc(merged, file, "-D", atCell);
        assertEquals(0, ok.code(), p.getName() + ": " + ok.output());
        assertTrue(ok.output().contains("All EC block group status: OK"), p.getName() + ": " + ok.output());
        atDefaults += shippedSlice && cell > 64 * 1024 ? 1 : 0;

        // HDFS's other tools see our policies as they see their own.
        Result policy = tool(new ECAdmin(client), "-getPolicy", "-path", dir.toString());
        assertEquals(0, policy.code(), policy.output());
        assertEquals(p.getName(), policy.output().trim());
        Result fsck = fsck(client, dir.toString(), "-files", "-blocks");
        assertTrue(fsck.output().contains("is HEALTHY") && fsck.output().contains(p.getName()),
            p.getName() + ": " + fsck.output());

        boolean isVector = !p.getCodecName().equals("rs") && !p.getCodecName().startsWith("lrc");
        if (isVector && cell > 64 * 1024) {
          vector++;
          Result atDefault = verifyEc(client, file); // HDFS's 64 KiB, without the shipped settings
          assertNotEquals(0, atDefault.code(), p.getName() + " at HDFS's default 64 KiB slices: " + atDefault.output());
        }

        // One byte of the last parity block changed on its DataNode's disk: reported.
        LocatedStripedBlock group = (LocatedStripedBlock) fs.getClient()
            .getLocatedBlocks(file.toString(), 0, data.length).getLocatedBlocks().get(0);
        int parity = p.getNumDataUnits() + p.getNumParityUnits() - 1;
        corrupt(cluster, group, parity, cell, p.getNumDataUnits());
        Result bad = verifyEc(client, file, "-D", atCell);
        assertNotEquals(0, bad.code(), p.getName() + " with a changed byte: " + bad.output());
        assertTrue(bad.output().contains("Status: ERROR"), p.getName() + ": " + bad.output());
      }
      assertTrue(vector >= 5, "the Clay and Butterfly policies were checked at HDFS's own slice too: " + vector);
      assertEquals(10, atDefaults, "shipped policies of 1 MiB cells checked by verifyEC at the shipped settings");
      Configuration client = cluster.getConfiguration(0);
      Result list = tool(new ECAdmin(client), "-listPolicies");
      for (ErasureCodingPolicy p : shipped) {
        assertTrue(list.output().contains("ErasureCodingPolicy=[Name=" + p.getName() + ",")
            && list.output().matches("(?s).*Name=" + java.util.regex.Pattern.quote(p.getName()) + ",[^\n]*State=ENABLED.*"),
            p.getName() + " listed and enabled: " + list.output());
      }
      Result setup = tool(new ECAdmin(client), "-verifyClusterSetup");
      assertEquals(0, setup.code(), setup.output());
      assertTrue(setup.output().contains("The cluster setup can support EC policies"), setup.output());
      // Our CLAY-10-4 needs what HDFS's RS-10-4 needs: 14 DataNodes on 4 racks (this cluster has them).
      Result clay = tool(new ECAdmin(client), "-verifyClusterSetup", "-policy", "CLAY-10-4-1024k");
      fs.enableErasureCodingPolicy("RS-10-4-1024k");
      Result rs = tool(new ECAdmin(client), "-verifyClusterSetup", "-policy", "RS-10-4-1024k");
      assertEquals(rs.code(), clay.code(), clay.output() + " / " + rs.output());
      assertEquals(rs.output().replace("RS-10-4-1024k", "P"), clay.output().replace("CLAY-10-4-1024k", "P"));
    } finally {
      cluster.shutdown();
    }
  }

  record Result(int code, String output) {}

  /** A client's configuration with conf/hdfs-site.ec-repair.xml merged, as the README has operators do. */
  private static Configuration withShippedSite(Configuration client) {
    Configuration c = new Configuration(client);
    c.addResource(new org.apache.hadoop.fs.Path(Path.of("conf/hdfs-site.ec-repair.xml").toAbsolutePath().toUri()));
    return c;
  }

  /** Runs {@code hdfs debug [options] verifyEC -file F} in this JVM as the hdfs script does, capturing its output. */
  private static Result verifyEc(Configuration conf, org.apache.hadoop.fs.Path file, String... options)
      throws Exception {
    List<String> args = new java.util.ArrayList<>(List.of(options));
    args.addAll(List.of("verifyEC", "-file", file.toString()));
    return tool(new DebugAdmin(new Configuration(conf)), args.toArray(new String[0]));
  }

  /** {@code hdfs fsck PATH OPTIONS}. */
  private static Result fsck(Configuration conf, String path, String... options) throws Exception {
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    List<String> args = new java.util.ArrayList<>(List.of(path));
    args.addAll(List.of(options));
    int code = ToolRunner.run(new DFSck(new Configuration(conf), new PrintStream(captured, true, StandardCharsets.UTF_8)),
        args.toArray(new String[0]));
    return new Result(code, captured.toString(StandardCharsets.UTF_8));
  }

  /** Runs one of HDFS's command-line tools in this JVM as the hdfs script does (ToolRunner), capturing its output. */
  private static synchronized Result tool(org.apache.hadoop.util.Tool tool, String... args) throws Exception {
    PrintStream out = System.out;
    PrintStream err = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream both = new PrintStream(captured, true, StandardCharsets.UTF_8);
    System.setOut(both);
    System.setErr(both);
    try {
      int code = ToolRunner.run(tool, args);
      return new Result(code, captured.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(out);
      System.setErr(err);
    }
  }

  /** Flips a byte in the middle of the first cell of internal block {@code index}'s replica file. */
  private static void corrupt(MiniDFSCluster cluster, LocatedStripedBlock group, int index, int cell, int k)
      throws Exception {
    for (int j = 0; j < group.getBlockIndices().length; j++) {
      if (group.getBlockIndices()[j] != index) {
        continue;
      }
      ExtendedBlock block = StripedBlockUtil.constructInternalBlock(group.getBlock(), cell, k, index);
      for (int dn = 0; dn < cluster.getDataNodes().size(); dn++) {
        File f = cluster.getBlockFile(dn, block);
        if (f != null && f.exists()) {
          try (RandomAccessFile raf = new RandomAccessFile(f, "rw")) {
            long pos = Math.min(raf.length() - 1, cell / 2);
            raf.seek(pos);
            int b = raf.read();
            raf.seek(pos);
            raf.write(b ^ 0x5a);
          }
          return;
        }
      }
    }
    throw new AssertionError("no replica of internal block " + index + " found on disk");
  }
}
