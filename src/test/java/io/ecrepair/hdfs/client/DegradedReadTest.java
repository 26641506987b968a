package io.ecrepair.hdfs.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.codes.RepairableCode;
import io.ecrepair.harness.MiniHdfs;
import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.layout.StripedLayout;
import io.ecrepair.testing.ClusterTest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSInputStream;
import org.apache.hadoop.hdfs.DFSStripedInputStream;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.EcRepairStripedInputStream;
import org.apache.hadoop.hdfs.client.HdfsDataInputStream;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.util.ECPolicyLoader;
import org.apache.hadoop.hdfs.util.StripedBlockUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Degraded reads through {@link EcRepairDistributedFileSystem} on one MiniDFSCluster of 16
 * DataNodes, for every policy of conf/user_ec_policies.xml (plus a small-cell Clay policy whose
 * files span several groups of several rows, Hadoop's RS-6-3 and a replicated file, which must
 * stay stock): every read form against the original bytes with no DataNode down, with one
 * internal block unreadable (the bytes fetched for one degraded cell asserted: Clay d/q cells,
 * Butterfly (k+1)/2, LRC r, never k), with a DataNode dying in the middle of a read, and with
 * more and more DataNodes down until each code gives up, when reads must fail, never return
 * wrong bytes. A stock client reading a vector-coded file with a lost block gets the error that
 * names the fix.
 */
@ClusterTest
class DegradedReadTest {
  private static final int DATANODES = 16;

  @TempDir
  java.nio.file.Path tmp;

  /** A file under test; {@code ours} when its policy is read through hadoop-ec-repair's path. */
  private record Case(ErasureCodingPolicy policy, Path path, byte[] data, boolean ours) {
    String name() {
      return policy == null ? "replicated" : policy.getName();
    }
  }

  @Test
  void everyPolicyEveryReadFormUpToMDataNodesDown() throws Exception {
    try (DegradedCluster c = new DegradedCluster(tmp.resolve("dfs").toFile(), DATANODES)) {
      log("cluster up");
      List<Case> cases = writeFiles(c);
      log("files written");
      ReadForms forms = new ReadForms(c.fs, 8, 1 << 20);

      // No DataNode down: our policies read the stock way (no cell rebuilt); others get stock streams.
      long before = DegradedReadStats.total().bytesFetched();
      for (Case f : cases) {
        forms.all(f.path, f.data, f.name() + " healthy");
        assertStreamKind(c, f);
      }
      assertEquals(before, DegradedReadStats.total().bytesFetched(), "healthy reads used the degraded path");
      log("healthy reads");

      // One internal block unreadable for the stream: the bytes one degraded cell costs.
      for (Case f : cases) {
        if (f.ours) {
          assertOneDegradedCellCost(c, f);
        }
      }

      // A DataNode dies in the middle of a sequential read, which goes on: it held block 1 of the
      // small Clay file's last group, which the read has not reached yet.
      Case small = find(cases, "CLAY-6-3-109k");
      int lastGroup = c.groups(small.path).size() - 1;
      DatanodeInfo first = c.holder(small.path, lastGroup, 1);
      DataNode firstNode = c.dataNode(first);
      try (FSDataInputStream in = c.fs.open(small.path)) {
        byte[] back = new byte[small.data.length];
        int third = back.length / 3;
        in.readFully(back, 0, third);
        c.stopQuietly(first);
        in.readFully(back, third, back.length - third);
        assertArrayEquals(small.data, back, "read across a DataNode's death");
        assertTrue(DegradedReadStats.of(in).cellsRebuilt() > 0, "cells on the dead DataNode were rebuilt");
      }
      // Fresh streams meet that DataNode before the NameNode knows it is gone.
      int checked = 0;
      for (Case f : cases) {
        checked += f.ours ? firstFailureCostsOnlyTheRepair(c, f, first) : 0;
      }
      assertTrue(checked > 0, "no file lost a data cell in a full first row");
      c.forget(firstNode);
      log("a DataNode died during a read");
      Case clay12 = find(cases, "CLAY-12-4-1024k");

      // Then more DataNodes down, one at a time, each holding another block of CLAY-12-4's group 0.
      for (int down = 1; down <= 5; down++) {
        if (down > 1) {
          // The DataNode of the lowest data block of CLAY-12-4's group 0 still located.
          int unit = c.located(clay12.path, 0).stream().filter(u -> u < 12).min(Integer::compare).orElseThrow();
          c.stopAndForget(c.holder(clay12.path, 0, unit));
        }
        for (Case f : cases) {
          checkWithLosses(c, f, forms, down);
        }
        log(down + " DataNodes down");
        if (down == 1) {
          stockClientRefusesVectorCodeWithLostBlock(c, find(cases, "CLAY-6-3-109k"));
          forms.shell(find(cases, "CLAY-6-3-109k").path, find(cases, "CLAY-6-3-109k").data, tmp,
              "shell with a DataNode down");
          fileContextReads(c, find(cases, "CLAY-6-3-109k"));
        }
      }
    }
  }

  private final long t0 = System.nanoTime();

  private void log(String what) {
    System.err.printf("DegradedReadTest %.1f s: %s%n", (System.nanoTime() - t0) / 1e9, what);
  }

  private List<Case> writeFiles(DegradedCluster c) throws IOException {
    List<Case> cases = new ArrayList<>();
    List<ErasureCodingPolicy> shipped = new ECPolicyLoader().loadPolicy(new java.io.File("conf/user_ec_policies.xml").getAbsolutePath());
    assertEquals(12, shipped.size(), "conf/user_ec_policies.xml policies");
    c.fs.addErasureCodingPolicies(shipped.toArray(new ErasureCodingPolicy[0]));
    List<ErasureCodingPolicy> all = new ArrayList<>();
    for (ErasureCodingPolicy p : shipped) {
      all.add(c.policy(p.getCodecName(), p.getNumDataUnits(), p.getNumParityUnits(), p.getCellSize()));
    }
    long seed = 1;
    for (ErasureCodingPolicy p : all) {
      int cell = p.getCellSize();
      int k = p.getNumDataUnits();
      // One full row, then a group holding only part of its first cell (the other data units empty);
      // the 4 MiB-cell Butterfly gets one partial row.
      int length = (long) k * cell > 16 << 20 ? 5 * cell + 4321 : k * cell + cell / 2 + 4321;
      Path file = new Path("/" + p.getName() + "/f");
      cases.add(new Case(p, file, c.write(file, p, length, cell, seed++), ClientPolicies.owns(p)));
    }
    // Several groups of several rows, with the sub-chunk tail bytes of a cell not a multiple of alpha.
    ErasureCodingPolicy small = c.policy("clay", 6, 3, 27 * 4096 + 1024);
    Path smallFile = new Path("/small/f");
    int cell = small.getCellSize();
    cases.add(new Case(small, smallFile, c.write(smallFile, small, 6 * cell * 7 + 5 * cell + 999, 3L * cell, seed++),
        true));
    ErasureCodingPolicy rs = c.policy("rs", 6, 3, 1 << 20);
    Path rsFile = new Path("/rs/f");
    cases.add(new Case(rs, rsFile, c.write(rsFile, rs, 7 << 20, 1 << 20, seed++), false));
    Path replicated = new Path("/replicated/f");
    byte[] data = MiniHdfs.randomBytes(3 << 20, seed);
    c.fs.mkdirs(replicated.getParent());
    // Five DataNodes are stopped over the test, and the NameNode does not re-replicate in time:
    // six replicas keep one alive whichever five go.
    try (var out = c.fs.create(replicated, (short) 6)) {
      out.write(data);
    }
    cases.add(new Case(null, replicated, data, false));
    return cases;
  }

  private static Case find(List<Case> cases, String policy) {
    return cases.stream().filter(f -> f.name().equals(policy)).findFirst().orElseThrow();
  }

  private static void assertStreamKind(DegradedCluster c, Case f) throws IOException {
    try (FSDataInputStream in = c.fs.open(f.path)) {
      Object s = in.getWrappedStream();
      if (f.ours) {
        assertSame(EcRepairStripedInputStream.class, s.getClass(), f.name());
      } else if (f.policy != null) {
        assertSame(DFSStripedInputStream.class, s.getClass(), f.name() + " must get HDFS's stream");
      } else {
        assertSame(DFSInputStream.class, s.getClass(), "a replicated file must get HDFS's stream");
      }
    }
  }

  /**
   * A fresh stream that gave up on the DataNode of internal block 1 of group 0 preads that cell
   * of row 0: it fetches what the code's repair of one block reads (d/q cells for Clay, (k+1)/2
   * for Butterfly, r for LRC), less than k cells, and a second pread inside the cell fetches
   * nothing more. With blocks 1 and 2 both gone (MDS codes), at most k cells.
   */
  private static void assertOneDegradedCellCost(DegradedCluster c, Case f) throws Exception {
    int cell = f.policy.getCellSize();
    int k = f.policy.getNumDataUnits();
    CodeSpec spec = RepairCatalog.spec(f.policy);
    int alpha = spec.subPacketization();
    long expected = Math.round(spec.repairBlocksPerLostBlock() * (cell - cell % alpha));
    long tolerance = (long) spec.n() * (cell % alpha); // tail bytes are repaired byte-wise
    try (DistributedFileSystem client = c.ourClient(); FSDataInputStream in = client.open(f.path)) {
      EcRepairStripedInputStream s = (EcRepairStripedInputStream) in.getWrappedStream();
      s.markDead(c.holder(f.path, 0, 1));
      byte[] got = new byte[cell];
      in.readFully(cell, got);
      ReadForms.assertRange(f.data, cell, got, f.name() + " degraded cell");
      DegradedReadStats stats = DegradedReadStats.of(in);
      assertEquals(1, stats.cellsRebuilt(), f.name());
      // Exactly the code's figure in a full row; less where helpers' cells are short or empty (zeros).
      boolean fullRow = f.data.length >= (long) k * cell;
      assertTrue(fullRow ? Math.abs(stats.bytesFetched() - expected) <= tolerance
          : stats.bytesFetched() <= expected + tolerance, f.name() + ": one degraded cell fetched "
          + stats.bytesFetched() + " bytes, the code's repair reads " + expected);
      assertTrue(stats.bytesFetched() < (long) k * cell, f.name() + ": fetched k cells or more");
      long fetched = stats.bytesFetched();
      got = new byte[1000];
      in.readFully(cell + 5000, got);
      ReadForms.assertRange(f.data, cell + 5000, got, f.name() + " cached cell");
      assertEquals(fetched, stats.bytesFetched(), f.name() + ": a second read of the rebuilt cell fetched again");
      assertEquals(1, stats.cellsRebuilt());
    }
    if (!f.policy.getCodecName().startsWith("lrc")) {
      try (DistributedFileSystem client = c.ourClient(); FSDataInputStream in = client.open(f.path)) {
        EcRepairStripedInputStream s = (EcRepairStripedInputStream) in.getWrappedStream();
        s.markDead(c.holder(f.path, 0, 1));
        s.markDead(c.holder(f.path, 0, 2));
        byte[] got = new byte[2 * cell];
        in.readFully(cell, got);
        ReadForms.assertRange(f.data, cell, got, f.name() + " two lost cells");
        assertTrue(DegradedReadStats.of(in).bytesFetched() <= (long) k * cell, f.name() + " two lost cells fetched "
            + DegradedReadStats.of(in).bytesFetched());
      }
    }
  }

  /**
   * A fresh stream that does not yet know that {@code dead} is down preads a data cell it held in
   * a full first row: HDFS's reader fails to open that block and, with our stream, opens no other (it
   * would fetch the row's k cells for a decoder that refuses our codes), so the read costs what
   * the code's repair of the cell reads. Returns how many cells it checked (0 or 1).
   */
  private static int firstFailureCostsOnlyTheRepair(DegradedCluster c, Case f, DatanodeInfo dead) throws Exception {
    int cell = f.policy.getCellSize();
    int k = f.policy.getNumDataUnits();
    for (LocatedBlock block : c.groups(f.path)) {
      LocatedStripedBlock group = (LocatedStripedBlock) block;
      int unit = -1;
      for (int j = 0; j < group.getLocations().length; j++) {
        if (group.getLocations()[j].getXferAddr().equals(dead.getXferAddr())) {
          unit = group.getBlockIndices()[j];
        }
      }
      if (unit < 0 || unit >= k || group.getBlockSize() < (long) k * cell) {
        continue;
      }
      CodeSpec spec = RepairCatalog.spec(f.policy);
      long expected = Math.round(spec.repairBlocksPerLostBlock() * cell);
      long at = group.getStartOffset() + (long) unit * cell;
      try (FSDataInputStream in = c.fs.open(f.path)) {
        byte[] got = new byte[cell];
        in.readFully(at, got);
        ReadForms.assertRange(f.data, (int) at, got, f.name() + " first read of a lost cell");
        long read = ((HdfsDataInputStream) in).getReadStatistics().getTotalBytesRead();
        assertEquals(1, DegradedReadStats.of(in).cellsRebuilt(), f.name());
        assertTrue(read <= expected + (long) spec.n() * spec.subPacketization(), f.name() + ": the first read of a "
            + "lost cell fetched " + read + " bytes, the code's repair reads " + expected);
      }
      return 1;
    }
    return 0;
  }

  /**
   * With {@code down} DataNodes down: a file whose groups the code can all rebuild reads right in
   * every form and a sequential read rebuilds each affected row once; otherwise reads fail.
   */
  private static void checkWithLosses(DegradedCluster c, Case f, ReadForms forms, int down) throws Exception {
    if (f.policy == null) {
      forms.all(f.path, f.data, "replicated, " + down + " down");
      return;
    }
    Map<Integer, int[]> lost = lostUnits(c, f);
    RepairableCode code = RepairCatalog.code(RepairCatalog.spec(f.policy));
    boolean decodable = lost.values().stream().allMatch(u -> u.length == 0 || code.decodable(u));
    String what = f.name() + " with " + down + " DataNodes down, lost " + describe(lost);
    System.err.println("DegradedReadTest: " + what + (decodable ? "" : " (undecodable: reads must fail)"));
    if (!decodable) {
      try (FSDataInputStream in = c.fs.open(f.path)) {
        assertThrows(IOException.class, () -> in.readFully(0, new byte[f.data.length]), what);
      }
      return;
    }
    if (down <= 2) {
      forms.all(f.path, f.data, what);
    }
    try (FSDataInputStream in = c.fs.open(f.path)) {
      byte[] back = new byte[f.data.length];
      in.readFully(back);
      assertArrayEquals(f.data, back, what + " sequential");
      if (f.ours) {
        assertEquals(rowsWithLostData(f, c, lost), DegradedReadStats.of(in).rowsRebuilt(),
            what + ": rows rebuilt by a sequential read");
      }
    }
  }

  /** Per group, the internal blocks holding bytes that the NameNode no longer locates. */
  private static Map<Integer, int[]> lostUnits(DegradedCluster c, Case f) throws IOException {
    Map<Integer, int[]> out = new LinkedHashMap<>();
    List<LocatedBlock> groups = c.groups(f.path);
    int n = f.policy.getNumDataUnits() + f.policy.getNumParityUnits();
    for (int g = 0; g < groups.size(); g++) {
      LocatedStripedBlock group = (LocatedStripedBlock) groups.get(g);
      List<Integer> located = c.located(f.path, g);
      int[] lost = new int[0];
      for (int u = 0; u < n; u++) {
        if (!located.contains(u) && StripedBlockUtil.getInternalBlockLength(group.getBlockSize(), f.policy, u) > 0) {
          lost = Arrays.copyOf(lost, lost.length + 1);
          lost[lost.length - 1] = u;
        }
      }
      out.put(g, lost);
    }
    return out;
  }

  private static long rowsWithLostData(Case f, DegradedCluster c, Map<Integer, int[]> lost) throws IOException {
    int k = f.policy.getNumDataUnits();
    int cell = f.policy.getCellSize();
    List<LocatedBlock> groups = c.groups(f.path);
    long rows = 0;
    for (int g = 0; g < groups.size(); g++) {
      long groupLength = groups.get(g).getBlockSize();
      StripedLayout layout = new StripedLayout(k, f.policy.getNumParityUnits(), cell,
          Math.max(1, (groupLength + (long) k * cell - 1) / ((long) k * cell)) * cell);
      for (int r = 0; r < layout.rowCount(groupLength); r++) {
        int row = r;
        if (Arrays.stream(lost.get(g)).anyMatch(u -> u < k && layout.cellLength(groupLength, row, u) > 0)) {
          rows++;
        }
      }
    }
    return rows;
  }

  private static String describe(Map<Integer, int[]> lost) {
    StringBuilder b = new StringBuilder();
    lost.forEach((g, u) -> b.append(" g").append(g).append(Arrays.toString(u)));
    return b.toString().trim();
  }

  /** FileContext with {@code fs.AbstractFileSystem.hdfs.impl} set reads a degraded file too. */
  private static void fileContextReads(DegradedCluster c, Case f) throws Exception {
    Configuration conf = new Configuration(c.conf);
    conf.set("fs.AbstractFileSystem.hdfs.impl", EcRepairHdfs.class.getName());
    FileContext fc = FileContext.getFileContext(c.uri(), conf);
    try (FSDataInputStream in = fc.open(f.path)) {
      byte[] back = new byte[f.data.length];
      in.readFully(0, back);
      assertArrayEquals(f.data, back, "FileContext read with a DataNode down");
      assertTrue(DegradedReadStats.of(in).cellsRebuilt() > 0, "FileContext read rebuilt cells");
    }
  }

  /** A stock client reading a lost cell of a Clay file fails with an error naming the fix. */
  private static void stockClientRefusesVectorCodeWithLostBlock(DegradedCluster c, Case f) throws Exception {
    Map<Integer, int[]> lost = lostUnits(c, f);
    int cell = f.policy.getCellSize();
    int k = f.policy.getNumDataUnits();
    long groupCapacity = (long) k * 3 * cell;
    for (Map.Entry<Integer, int[]> e : lost.entrySet()) {
      for (int u : e.getValue()) {
        if (u >= k) {
          continue;
        }
        long offset = e.getKey() * groupCapacity + (long) u * cell; // row 0 of the group
        try (DistributedFileSystem stock = c.stockClient(); FSDataInputStream in = stock.open(f.path)) {
          IOException refusal = assertThrows(IOException.class, () -> in.readFully(offset, new byte[cell]));
          StringBuilder chain = new StringBuilder();
          for (Throwable t = refusal; t != null; t = t.getCause()) {
            chain.append(t.getMessage()).append(" | ");
          }
          assertTrue(chain.toString().contains("fs.hdfs.impl=" + EcRepairDistributedFileSystem.class.getName()),
              "the stock error names the fix: " + chain);
        }
        return;
      }
    }
    throw new AssertionError(f.name() + " lost no data block: " + describe(lost));
  }
}
