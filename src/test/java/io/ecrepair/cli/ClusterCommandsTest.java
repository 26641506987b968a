package io.ecrepair.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ecrepair.hdfs.datanode.RepairCluster;
import io.ecrepair.testing.ClusterTest;
import java.io.File;
import java.io.PrintWriter;
import java.io.RandomAccessFile;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.DataNodeTestUtils;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.io.IOUtils;
import org.apache.hadoop.util.DataChecksum;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ec-repair status}, {@code verify} and {@code convert} against a live MiniDFSCluster,
 * reached as an operator reaches a cluster (its address given as a setting). The NameNode
 * schedules no reconstruction here, so a stopped DataNode's blocks stay missing.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ClusterTest
class ClusterCommandsTest {
  private static final int CELL = 64 * 1024;
  private static final int K = 4;
  private static final int M = 2;

  @TempDir
  static File tmp;

  private RepairCluster cluster;
  private String fsUri;
  private String httpAddress;
  private Path file;

  @BeforeAll
  void start() throws Exception {
    Configuration quiet = new Configuration(false);
    quiet.setInt(DFSConfigKeys.DFS_NAMENODE_REDUNDANCY_INTERVAL_SECONDS_KEY, 3600);
    cluster = new RepairCluster(tmp, K + M + 1, "clay", K, M, CELL, 4, quiet);
    fsUri = cluster.fs.getUri().toString();
    // What an operator's hdfs-site.xml tells every client: fsck goes through the NameNode's web address.
    java.net.InetSocketAddress http = cluster.cluster.getNameNode().getHttpAddress();
    httpAddress = http.getHostString() + ":" + http.getPort();
    // Three groups, the last one short (two data cells and part of a third).
    file = cluster.write("a", 2 * K * 4 * CELL + 2 * CELL + 1000, 1);
  }

  @AfterAll
  void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  record Run(int code, String out, String err) {
    JsonNode json() throws Exception {
      return new ObjectMapper().readTree(out);
    }
  }

  private Run run(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.add(1, "-Dfs.defaultFS=" + fsUri);
    all.add(2, "-D" + DFSConfigKeys.DFS_NAMENODE_HTTP_ADDRESS_KEY + "=" + httpAddress);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = EcRepairCli.run(all.toArray(new String[0]), new PrintWriter(out, true), new PrintWriter(err, true));
    return new Run(code, out.toString(), err.toString());
  }

  private static void assertOneLineError(Run r, String fragment) {
    assertNotEquals(0, r.code());
    String[] lines = r.err().strip().split("\n");
    assertEquals(1, lines.length, "one line, got: " + r.err());
    assertTrue(lines[0].contains(fragment), lines[0]);
  }

  @Test
  @Order(1)
  void statusOfAHealthyFileListsEveryInternalBlock() throws Exception {
    Run r = run("status", "/ec", "--json");
    assertEquals(0, r.code(), r.err());
    JsonNode j = r.json();
    assertEquals(1, j.get("erasureCodedFiles").asInt());
    assertEquals(3, j.get("blockGroups").asInt());
    assertEquals(0, j.get("groupsNeedingRepair").asInt());
    assertTrue(j.get("replicaStatesError").isNull(), j.toString());
    for (JsonNode g : j.get("groups")) {
      assertEquals(cluster.policy.getName(), g.get("policy").asText());
      assertEquals(K + M, g.get("units").size());
      for (JsonNode u : g.get("units")) {
        String state = u.get("state").asText();
        assertTrue(state.equals("ok") || state.equals("empty"), u.toString());
        if (state.equals("ok")) {
          assertTrue(u.get("datanode").asText().startsWith("127.0.0.1:"), u.toString());
          assertEquals("/default-rack", u.get("rack").asText());
        }
      }
    }
    // The short last group: data units 3 holds nothing.
    assertEquals("empty", j.get("groups").get(2).get("units").get(3).get("state").asText());
    Run text = run("status", "/ec/a", "--blocks");
    assertEquals(0, text.code(), text.err());
    assertTrue(text.out().contains("3 block group(s), 0 need repair"), text.out());
    assertTrue(text.out().contains("/default-rack"), text.out());
  }

  @Test
  @Order(2)
  void verifyPassesOnHealthyData() throws Exception {
    Run r = run("verify", "/ec", "--json");
    assertEquals(0, r.code(), r.out() + r.err());
    JsonNode j = r.json();
    assertEquals(3, j.get("blockGroups").asInt());
    assertEquals(3, j.get("outcomes").get("ok").asInt());
    Run text = run("verify", "/ec/a");
    assertEquals(0, text.code(), text.err());
    assertTrue(text.out().contains("ok 3") && text.out().contains("OK:"), text.out());
  }

  @Test
  @Order(3)
  void verifyFindsAndReportsTheBlockWhoseBytesContradictTheOthers() throws Exception {
    // A byte changed with its checksum recomputed, in a parity block, then in a data block:
    // only decoding can tell, and tell which block it is.
    for (int index : new int[] {K + 1, 2}) {
      Path bad = cluster.write("bad" + index, K * 4 * CELL, 2);
      rewriteReplica(bad, 0, index, CELL + 7, true);
      Run r = run("verify", "/ec/bad" + index, "--json");
      assertEquals(EcRepairCli.FAILED, r.code(), r.out() + r.err());
      JsonNode g = r.json().get("groups").get(0);
      assertEquals("mismatch", g.get("outcome").asText());
      String detail = g.get("detail").asText();
      assertTrue(detail.contains("internal block " + index + " on 127.0.0.1:"), detail);
      assertTrue(detail.contains("block offset " + (CELL + 7)), detail);
      assertTrue(detail.contains("reported to the NameNode"), detail);
      JsonNode status = run("status", "/ec/bad" + index, "--json").json().get("groups").get(0);
      for (int u = 0; u < K + M; u++) {
        assertEquals(u == index ? "corrupt" : "ok", status.get("units").get(u).get("state").asText(), status.toString());
      }
      cluster.fs.delete(bad, false);
    }
  }

  @Test
  @Order(3)
  void twoBlocksWithWrongBytesAreNotBlamedOnAThird() throws Exception {
    Path bad = cluster.write("bad2", K * 4 * CELL, 5);
    rewriteReplica(bad, 0, 1, 3 * CELL + 11, true);
    rewriteReplica(bad, 0, K, 3 * CELL + 11, true);
    Run r = run("verify", "/ec/bad2", "--json");
    assertEquals(EcRepairCli.FAILED, r.code(), r.out() + r.err());
    JsonNode g = r.json().get("groups").get(0);
    assertEquals("mismatch", g.get("outcome").asText());
    assertTrue(g.get("detail").asText().contains("cannot be told"), g.toString());
    JsonNode status = run("status", "/ec/bad2", "--json").json().get("groups").get(0);
    for (int u = 0; u < K + M; u++) {
      assertEquals("ok", status.get("units").get(u).get("state").asText(), status.toString());
    }
    cluster.fs.delete(bad, false);
  }

  @Test
  @Order(4)
  void aReplicaFailingItsChecksumIsReportedToTheNameNode() throws Exception {
    Path rot = cluster.write("rot", K * 4 * CELL, 3);
    rewriteReplica(rot, 0, K, 100, false);
    Run r = run("verify", "/ec/rot");
    assertEquals(EcRepairCli.FAILED, r.code(), r.out() + r.err());
    assertTrue(r.out().contains("corrupt") && r.out().contains("reported to the NameNode"), r.out());
    // The NameNode now knows the replica is corrupt, and status says so.
    JsonNode g = run("status", "/ec/rot", "--json").json().get("groups").get(0);
    assertEquals("corrupt", g.get("units").get(K).get("state").asText(), g.toString());
    assertEquals(K, g.get("lost").get(0).asInt());
    cluster.fs.delete(rot, false);
  }

  @Test
  @Order(4)
  void aCorruptParityReplicaOfAGroupShorterThanACellIsFound() throws Exception {
    // The group's data is part of one cell: data blocks 1.. are empty, every parity block holds
    // as many bytes as block 0. One of them rots on disk.
    Path tiny = cluster.write("tiny", CELL * 3 / 4 + 5, 4);
    rewriteReplica(tiny, 0, K + 1, CELL / 2 + 3, false);
    Run r = run("verify", "/ec/tiny");
    assertEquals(EcRepairCli.FAILED, r.code(), r.out() + r.err());
    assertTrue(r.out().contains("corrupt") && r.out().contains("reported to the NameNode"), r.out());
    cluster.fs.delete(tiny, false);
  }

  @Test
  @Order(5)
  void convertRewritesAFileUnderAnotherPolicyKeepingItsBytesAndAttributes() throws Exception {
    Path plainDir = new Path("/plain");
    cluster.fs.mkdirs(plainDir);
    byte[] data = new byte[3 * K * 4 * CELL / 2 + 333];
    new Random(4).nextBytes(data);
    Path plain = new Path(plainDir, "f");
    try (FSDataOutputStream out = cluster.fs.create(plain, FsPermission.getFileDefault(), true, 4096, (short) 1,
        4L * CELL, null)) {
      out.write(data);
    }
    cluster.fs.setPermission(plain, new FsPermission((short) 0640));
    cluster.fs.setXAttr(plain, "user.origin", new byte[] {1, 2, 3});
    cluster.fs.setTimes(plain, 1_600_000_000_000L, 1_600_000_001_000L);

    Run r = run("convert", "/plain", "--policy", cluster.policy.getName(), "--json");
    assertEquals(0, r.code(), r.out() + r.err());
    JsonNode f = r.json().get("files").get(0);
    assertEquals("converted", f.get("outcome").asText(), f.toString());
    assertEquals("replication", f.get("from").asText());
    assertEquals(cluster.policy.getName(), cluster.fs.getErasureCodingPolicy(plain).getName());
    assertEquals(cluster.policy.getName(), cluster.fs.getErasureCodingPolicy(plainDir).getName(),
        "the directory gets the policy for new files");
    byte[] back = new byte[data.length];
    try (var in = cluster.fs.open(plain)) {
      IOUtils.readFully(in, back, 0, back.length);
      assertEquals(-1, in.read());
    }
    assertArrayEquals(data, back);
    FileStatus st = cluster.fs.getFileStatus(plain);
    assertEquals(0640, st.getPermission().toShort());
    assertEquals(1_600_000_000_000L, st.getModificationTime());
    assertArrayEquals(new byte[] {1, 2, 3}, cluster.fs.getXAttr(plain, "user.origin"));
    assertEquals(1, cluster.fs.listStatus(plainDir).length, "no copy left behind");
    assertEquals(0, run("verify", "/plain").code());

    // Again: nothing to do. Back to replication: the bytes stay.
    assertEquals("unchanged", run("convert", "/plain/f", "--policy", cluster.policy.getName(), "--json").json()
        .get("files").get(0).get("outcome").asText());
    Run back2 = run("convert", "/plain/f", "--policy", "replication");
    assertEquals(0, back2.code(), back2.out() + back2.err());
    assertNull(cluster.fs.getErasureCodingPolicy(plain));
    try (var in = cluster.fs.open(plain)) {
      IOUtils.readFully(in, back, 0, back.length);
    }
    assertArrayEquals(data, back);
  }

  @Test
  @Order(6)
  void badInputGetsOneLine() {
    assertOneLineError(run("convert", "/plain", "--policy", "NOPE-1-1-64k"), "the cluster has no policy NOPE-1-1-64k");
    assertOneLineError(run("convert", "/plain", "--policy", "RS-10-4-1024k"), "is not enabled");
    assertOneLineError(run("status", "/no/such/path"), "no such file or directory");
    assertOneLineError(run("verify", "file:///tmp"), "is not on HDFS");
    assertOneLineError(run("status"), "Missing required parameter");
    for (String command : List.of("status", "verify", "convert")) {
      Run help = run(command, "--help");
      assertEquals(0, help.code());
      assertTrue(help.out().contains("Usage: ec-repair " + command), help.out());
    }
  }

  @Test
  @Order(7)
  void aCorruptSecondReplicaOfAUnitIsFound() throws Exception {
    // A unit with two replicas (as after a DataNode that was rebuilt around comes back), the
    // second one rotten on disk: readers and the first replica's checks never touch it, and it
    // holds a DataNode that HDFS will not place a rebuilt unit of the group on.
    Path dup = cluster.write("dup", K * 4 * CELL, 5);
    LocatedStripedBlock group = (LocatedStripedBlock) cluster.groups(dup).get(0);
    ExtendedBlock unit0 = cluster.internal(group, 0);
    java.util.Set<Integer> holders = new java.util.HashSet<>();
    for (DatanodeInfo d : group.getLocations()) {
      holders.add(cluster.cluster.getDataNodes().indexOf(cluster.dataNode(d)));
    }
    int source = cluster.cluster.getDataNodes().indexOf(cluster.dataNode(cluster.holder(dup, 0, 0)));
    int spare = java.util.stream.IntStream.range(0, cluster.cluster.getDataNodes().size())
        .filter(i -> !holders.contains(i)).findFirst().orElseThrow();
    File block = cluster.cluster.getBlockFile(source, unit0);
    File meta = new File(block.getParentFile(), block.getName() + "_" + unit0.getGenerationStamp() + ".meta");
    File into = org.apache.hadoop.hdfs.server.datanode.DatanodeUtil.idToBlockDir(MiniDFSCluster.getFinalizedDir(
        cluster.cluster.getInstanceStorageDir(spare, 0), unit0.getBlockPoolId()), unit0.getBlockId());
    into.mkdirs();
    byte[] bytes = java.nio.file.Files.readAllBytes(block.toPath());
    bytes[CELL + 11] ^= 0x5a;
    java.nio.file.Files.write(new File(into, block.getName()).toPath(), bytes);
    java.nio.file.Files.copy(meta.toPath(), new File(into, meta.getName()).toPath());
    // HDFS deletes the excess copy of a unit from the node that has been silent longest: the
    // source is made that node, and never hears of it, so both copies stay while verify reads.
    DataNode sourceNode = cluster.cluster.getDataNodes().get(source);
    DataNodeTestUtils.setHeartbeatsDisabledForTests(sourceNode, true);
    try {
      Thread.sleep(6_000); // more than 4 heartbeat intervals (1 s here)
      DataNode spareNode = cluster.cluster.getDataNodes().get(spare);
      DataNodeTestUtils.runDirectoryScanner(spareNode);
      DataNodeTestUtils.triggerBlockReport(spareNode);
      long deadline = System.currentTimeMillis() + 30_000;
      while (cluster.groups(dup).get(0).getLocations().length <= K + M) {
        assertTrue(System.currentTimeMillis() < deadline, "the NameNode did not list the second replica: "
            + java.util.Arrays.toString(cluster.groups(dup).get(0).getLocations()) + " copy at " + into + " exists "
            + new File(into, block.getName()).exists() + "; source " + block);
        Thread.sleep(200);
      }
      Run r = run("verify", "/ec/dup");
      assertEquals(EcRepairCli.FAILED, r.code(), r.out() + r.err());
      assertTrue(r.out().contains("another replica") && r.out().contains("reported to the NameNode"), r.out());
    } finally {
      DataNodeTestUtils.setHeartbeatsDisabledForTests(sourceNode, false);
      cluster.fs.delete(dup, false);
    }
  }

  @Test
  @Order(8)
  void withADataNodeStoppedStatusListsTheMissingBlocksAndTheirRepairCostAndVerifyChecksWhatIsLeft()
      throws Exception {
    DatanodeInfo victim = cluster.holder(file, 0, 0);
    cluster.stop(victim);
    JsonNode j = run("status", "/ec/a", "--json").json();
    assertTrue(j.get("groupsNeedingRepair").asInt() >= 1, j.toString());
    JsonNode g0 = j.get("groups").get(0);
    assertEquals("missing", g0.get("units").get(0).get("state").asText());
    assertEquals(0, g0.get("lost").get(0).asInt());
    long block = 4L * CELL;
    assertEquals(block, g0.get("lostBytes").asLong());
    // Clay(4,2): d = 5 helpers send 1/(d - k + 1) of a block each (2.5 blocks); HDFS reads k = 4 blocks.
    assertEquals(5 * block / 2, g0.get("ourBytes").asLong(), g0.toString());
    assertEquals(K * block, g0.get("hdfsBytes").asLong(), g0.toString());
    Run text = run("status", "/ec/a");
    assertTrue(text.out().contains("missing") && text.out().contains("1.60x"), text.out());

    // Verify decodes a missing data block from one parity block and checks the other against it.
    Run v = run("verify", "/ec/a", "--json");
    assertEquals(0, v.code(), v.out() + v.err());
    for (JsonNode g : v.json().get("groups")) {
      assertEquals("ok", g.get("outcome").asText(), g.toString());
    }
    String detail = v.json().get("groups").get(0).get("detail").asText();
    assertTrue(detail.contains("data block(s) [0] unavailable, decoded from parity [4]")
        && detail.contains("checked parity block(s) [5]"), detail);
  }

  /**
   * Changes one byte of internal block {@code index} of group {@code g} on disk, with its
   * stored checksums recomputed ({@code fixChecksum}: a replica whose bytes verify but whose
   * parity is wrong) or left stale (a replica that fails its checksum).
   */
  private void rewriteReplica(Path f, int g, int index, int offset, boolean fixChecksum) throws Exception {
    LocatedStripedBlock group = (LocatedStripedBlock) cluster.groups(f).get(g);
    ExtendedBlock internal = cluster.internal(group, index);
    for (int dn = 0; dn < cluster.cluster.getDataNodes().size(); dn++) {
      File blockFile = cluster.cluster.getBlockFile(dn, internal);
      if (blockFile == null || !blockFile.exists()) {
        continue;
      }
      byte[] bytes = java.nio.file.Files.readAllBytes(blockFile.toPath());
      bytes[offset] ^= 0x5a;
      java.nio.file.Files.write(blockFile.toPath(), bytes);
      if (fixChecksum) {
        File meta = new File(blockFile.getParentFile(), blockFile.getName() + "_" + internal.getGenerationStamp()
            + ".meta");
        try (RandomAccessFile raf = new RandomAccessFile(meta, "rw")) {
          raf.seek(2); // version
          DataChecksum cs = DataChecksum.newDataChecksum(DataChecksum.Type.valueOf(raf.readByte()), raf.readInt());
          int chunks = (bytes.length + cs.getBytesPerChecksum() - 1) / cs.getBytesPerChecksum();
          ByteBuffer sums = ByteBuffer.allocate(chunks * cs.getChecksumSize());
          cs.calculateChunkedSums(ByteBuffer.wrap(bytes), sums);
          raf.write(sums.array());
        }
      }
      return;
    }
    throw new AssertionError("no replica of internal block " + index + " on disk");
  }
}
