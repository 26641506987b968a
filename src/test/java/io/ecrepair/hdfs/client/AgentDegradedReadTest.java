package io.ecrepair.hdfs.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.hdfs.agent.ReadFaults;
import io.ecrepair.testing.ClusterTest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.EcRepairStripedInputStream;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Degraded reads with the client as the requestor of a repair the helpers' repair agents run
 * ({@link AgentReads}), on a MiniDFSCluster whose DataNodes run the plugin: for RS (a chain), LRC
 * (a chain over the local group), Clay and Butterfly (the stored plan that loads the client
 * least; CLAY(6,3)'s 27 sub-chunks leave 7 bytes of each 64 KiB cell, whose tails the client
 * reads beside the plan), the lost cells of a whole group come back through the agents with the
 * right bytes and with the client receiving at most 1.1 blocks per lost block and fetching no
 * read set. Two lost units come back through a chain each (RS, LRC) or the read set (Clay,
 * Butterfly). Every read form gives the right bytes with a DataNode really down; a flipped byte
 * in a frame on its way to the client, a helper breaking off or stalling, and a client that
 * cannot reach the agents all read right through the fetch path, and agents that could not be
 * reached are not dialed again.
 */
@ClusterTest
class AgentDegradedReadTest {
  private static final int CELL = 64 * 1024;
  private static final int ROWS = 4;

  @TempDir
  java.nio.file.Path tmp;

  private record Case(ErasureCodingPolicy policy, Path path, byte[] data) {
    String name() {
      return policy.getName();
    }
  }

  @Test
  void lostCellsComeBackThroughTheAgents() throws Exception {
    try (DegradedCluster c = new DegradedCluster(tmp.resolve("dfs").toFile(), 12, new Configuration(false))) {
      List<Case> cases = new ArrayList<>();
      long seed = 3;
      for (Object[] p : new Object[][] {{"rs", 6, 3}, {"lrc-l2", 6, 4}, {"clay", 6, 3}, {"butterfly", 4, 2}}) {
        ErasureCodingPolicy policy = c.policy((String) p[0], (int) p[1], (int) p[2], CELL);
        RepairCatalog.searchParallelPlans(RepairCatalog.spec(policy)); // as a DataNode has them at hand
        int k = policy.getNumDataUnits();
        // A group of ROWS full rows, then a group with one full row and part of another.
        int length = k * CELL * ROWS + k * CELL + CELL / 2 + 4321;
        Path file = new Path("/" + policy.getName() + "/f");
        cases.add(new Case(policy, file, c.write(file, policy, length, (long) ROWS * CELL, seed++)));
      }

      for (Case f : cases) {
        wholeLostBlockThroughTheAgents(c, f);
        twoLostUnits(c, f);
      }
      concurrentReaders(c, cases);
      for (Case f : cases) {
        smallReadsRebuildTheirSubchunksOnly(c, f, true);
      }
      for (Case f : cases.subList(2, 4)) {
        smallReadsRebuildTheirSubchunksOnly(c, f, false);
      }
      for (Case f : cases.subList(0, 2)) {
        smallReadInTheShortLastRow(c, f);
      }
      rowsComeBeforeTheirWindowEnds(c, cases.get(1));
      partOfACellAsksForItsRowOnly(c, cases.get(1));
      flippedFrameIsNeverDelivered(c, cases.get(2), false);
      flippedFrameIsNeverDelivered(c, cases.get(1), true);
      unreachableAgentsFallBack(c, cases.get(0));
      stalledHelperFallsBack(c, cases.get(3));

      // A DataNode really down: every read form of every file, right bytes.
      DatanodeInfo victim = c.holder(cases.get(2).path(), 0, 1);
      c.stopAndForget(victim);
      long agentReads = DegradedReadStats.total().agentReads();
      ReadForms forms = new ReadForms(c.fs, 11, CELL);
      for (Case f : cases) {
        forms.all(f.path(), f.data(), f.name() + " with a DataNode down");
      }
      forms.shell(cases.get(2).path(), cases.get(2).data(), tmp, "shell with a DataNode down");
      assertTrue(DegradedReadStats.total().agentReads() > agentReads, "no read went through the agents");
    }
  }

  /**
   * With block tokens and encrypted data transfer, the client's connections to the agents get
   * the same handshake as its block reads (its SASL client, encryption keys from the NameNode),
   * the agents check the tokens the NameNode gave it and prove themselves to it, and the lost
   * cells come back right.
   */
  @Test
  void readsThroughEncryptedAgentsWithBlockTokens() throws Exception {
    Configuration secure = new Configuration(false);
    secure.setBoolean(org.apache.hadoop.hdfs.DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY, true);
    secure.setBoolean(org.apache.hadoop.hdfs.DFSConfigKeys.DFS_ENCRYPT_DATA_TRANSFER_KEY, true);
    try (DegradedCluster c = new DegradedCluster(tmp.resolve("dfs").toFile(), 8, secure)) {
      List<Case> cases = new ArrayList<>();
      for (Object[] p : new Object[][] {{"clay", 4, 2}, {"lrc-l2", 4, 3}}) {
        ErasureCodingPolicy policy = c.policy((String) p[0], (int) p[1], (int) p[2], CELL);
        RepairCatalog.searchParallelPlans(RepairCatalog.spec(policy));
        int k = policy.getNumDataUnits();
        Path file = new Path("/" + policy.getName() + "/f");
        cases.add(new Case(policy, file, c.write(file, policy, k * CELL * ROWS, (long) ROWS * CELL, 5)));
      }
      for (Case f : cases) {
        wholeLostBlockThroughTheAgents(c, f);
      }
    }
  }

  /**
   * A client's degraded read is foreground traffic: with every DataNode's repair budget at
   * 8 KiB/s in and out, a lost Clay block still comes back through the agents at once (the
   * budget would take its helpers' 128 KiB half a minute).
   */
  @Test
  void theRepairBudgetNeverHoldsBackAClientsRead() throws Exception {
    Configuration tight = new Configuration(false);
    tight.setLong(io.ecrepair.hdfs.task.DataNodeKeys.REPAIR_BANDWIDTH_IN_KEY, 8 * 1024);
    tight.setLong(io.ecrepair.hdfs.task.DataNodeKeys.REPAIR_BANDWIDTH_OUT_KEY, 8 * 1024);
    try (DegradedCluster c = new DegradedCluster(tmp.resolve("dfs").toFile(), 8, tight)) {
      ErasureCodingPolicy policy = c.policy("clay", 4, 2, CELL);
      RepairCatalog.searchParallelPlans(RepairCatalog.spec(policy));
      Path file = new Path("/budget/f");
      byte[] data = c.write(file, policy, 4 * CELL * ROWS, (long) ROWS * CELL, 13);
      try (DistributedFileSystem client = c.ourClient(); FSDataInputStream in = client.open(file)) {
        ((EcRepairStripedInputStream) in.getWrappedStream()).markDead(c.holder(file, 0, 1));
        byte[] got = new byte[4 * CELL * ROWS];
        long t0 = System.nanoTime();
        in.readFully(0, got);
        double seconds = (System.nanoTime() - t0) / 1e9;
        ReadForms.assertRange(data, 0, got, "under a tight repair budget");
        DegradedReadStats stats = DegradedReadStats.of(in);
        assertEquals(1, stats.agentReads(), String.valueOf(stats));
        assertTrue(seconds < 10, "the read took " + seconds + " s: " + stats);
      }
    }
  }

  /**
   * Agents that serve clients no parts ({@code ecrepair.datanode.agent.client-parts=0}) refuse
   * the client's request; it reads right by fetching the read set.
   */
  @Test
  void agentsAtTheirClientLimitSendTheClientToTheReadSet() throws Exception {
    Configuration none = new Configuration(false);
    none.setInt(io.ecrepair.hdfs.task.DataNodeKeys.AGENT_CLIENT_PARTS_KEY, 0);
    try (DegradedCluster c = new DegradedCluster(tmp.resolve("dfs").toFile(), 8, none)) {
      ErasureCodingPolicy policy = c.policy("lrc-l2", 4, 3, CELL);
      Path file = new Path("/limit/f");
      byte[] data = c.write(file, policy, 4 * CELL * ROWS, (long) ROWS * CELL, 9);
      try (DistributedFileSystem client = c.ourClient(); FSDataInputStream in = client.open(file)) {
        ((EcRepairStripedInputStream) in.getWrappedStream()).markDead(c.holder(file, 0, 1));
        byte[] got = new byte[4 * CELL * ROWS];
        in.readFully(0, got);
        ReadForms.assertRange(data, 0, got, "with the agents at their client limit");
        DegradedReadStats stats = DegradedReadStats.of(in);
        assertEquals(1, stats.agentFallbacks(), String.valueOf(stats));
        assertEquals(0, stats.agentReads(), String.valueOf(stats));
      }
      long refused = 0;
      for (org.apache.hadoop.hdfs.server.datanode.DataNode dn : c.cluster.getDataNodes()) {
        refused += io.ecrepair.hdfs.datanode.EcRepairDataNodePlugin.clientPartsRefused(dn);
      }
      assertTrue(refused > 0, "no agent refused a client's part");
    }
  }

  /**
   * A stream that cannot read unit 1 of group 0 reads that unit's cells of the group's rows: the
   * agents rebuild them (one request), the bytes are right, the client received at most 1.1
   * blocks for the block and fetched nothing from the helpers itself.
   */
  private static void wholeLostBlockThroughTheAgents(DegradedCluster c, Case f) throws Exception {
    int k = f.policy().getNumDataUnits();
    try (DistributedFileSystem client = c.ourClient(); FSDataInputStream in = client.open(f.path())) {
      EcRepairStripedInputStream s = (EcRepairStripedInputStream) in.getWrappedStream();
      s.markDead(c.holder(f.path(), 0, 1));
      for (int row = 0; row < ROWS; row++) {
        long at = ((long) row * k + 1) * CELL;
        byte[] got = new byte[CELL];
        in.readFully(at, got);
        ReadForms.assertRange(f.data(), (int) at, got, f.name() + " lost cell of row " + row);
      }
      DegradedReadStats stats = DegradedReadStats.of(in);
      assertEquals(ROWS, stats.rowsRebuilt(), f.name() + ": rows rebuilt by the agents (" + stats + ")");
      assertTrue(stats.agentReads() > 0 && stats.agentReads() < ROWS, f.name() + ": requests to the agents (each "
          + "reaching further ahead as the reads walk on) " + stats);
      assertEquals(0, stats.agentFallbacks(), f.name() + ": " + stats);
      assertEquals(0, stats.bytesFetched(), f.name() + ": the client fetched a read set (" + stats + ")");
      assertTrue(stats.bytesFromAgents() <= 1.1 * ROWS * CELL, f.name() + ": the client received "
          + stats.bytesFromAgents() + " bytes for " + ROWS * CELL + " lost");
      assertTrue(stats.bytesFromAgents() >= ROWS * CELL, f.name() + ": " + stats);
      assertEquals(stats.bytesFromAgents(),
          ((org.apache.hadoop.hdfs.client.HdfsDataInputStream) in).getReadStatistics().getTotalBytesRead(),
          f.name() + ": HDFS's read statistics count the agents' bytes");
    }
    // One pread across the whole group: one request for every row of the lost unit, through the
    // read-ahead buffer, and straight into the caller's buffer when the rows do not fit in it.
    for (int aheadKb : new int[] {ClientKeys.AGENT_READS_AHEAD_KB_DEFAULT, 2 * CELL / 1024}) {
      Configuration conf = new Configuration(c.conf);
      conf.setInt(ClientKeys.AGENT_READS_AHEAD_KB_KEY, aheadKb);
      try (FileSystem client = FileSystem.newInstance(c.uri(), conf); FSDataInputStream in = client.open(f.path())) {
        EcRepairStripedInputStream s = (EcRepairStripedInputStream) in.getWrappedStream();
        s.markDead(c.holder(f.path(), 0, 1));
        int from = CELL / 3;
        byte[] got = new byte[k * CELL * ROWS - from - 777];
        in.readFully(from, got);
        ReadForms.assertRange(f.data(), from, got, f.name() + " pread of the group, ahead " + aheadKb + " KiB");
        DegradedReadStats stats = DegradedReadStats.of(in);
        assertEquals(1, stats.agentReads(), f.name() + ": " + stats);
        assertEquals(ROWS, stats.rowsRebuilt(), f.name() + ": " + stats);
      }
    }
  }

  /**
   * Eight readers at once, two on each file, each on its own stream that cannot read unit 1 of
   * group 0, walking through that unit's cells: every byte right, every read through the agents.
   */
  private static void concurrentReaders(DegradedCluster c, List<Case> cases) throws Exception {
    java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(8);
    try {
      List<java.util.concurrent.Future<Long>> readers = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        Case f = cases.get(i % cases.size());
        readers.add(threads.submit(() -> {
          int k = f.policy().getNumDataUnits();
          try (DistributedFileSystem client = c.ourClient(); FSDataInputStream in = client.open(f.path())) {
            ((EcRepairStripedInputStream) in.getWrappedStream()).markDead(c.holder(f.path(), 0, 1));
            for (int row = 0; row < ROWS; row++) {
              long at = ((long) row * k + 1) * CELL;
              byte[] got = new byte[CELL];
              in.readFully(at, got);
              ReadForms.assertRange(f.data(), (int) at, got, f.name() + " concurrent reader, row " + row);
            }
            DegradedReadStats stats = DegradedReadStats.of(in);
            assertEquals(0, stats.agentFallbacks(), f.name() + ": " + stats);
            return stats.rowsRebuilt();
          }
        }));
      }
      for (java.util.concurrent.Future<Long> r : readers) {
        assertEquals(ROWS, r.get());
      }
    } finally {
      threads.shutdownNow();
    }
  }

  /**
   * Two lost data units in the range: RS and LRC rebuild each through the agents (a chain per
   * unit); Clay and Butterfly, whose sub-chunk repair needs every other unit, decode from the
   * read set. Right bytes either way.
   */
  private static void twoLostUnits(DegradedCluster c, Case f) throws Exception {
    try (DistributedFileSystem client = c.ourClient(); FSDataInputStream in = client.open(f.path())) {
      EcRepairStripedInputStream s = (EcRepairStripedInputStream) in.getWrappedStream();
      s.markDead(c.holder(f.path(), 0, 1));
      s.markDead(c.holder(f.path(), 0, 2));
      byte[] got = new byte[3 * CELL];
      in.readFully(CELL / 2, got);
      ReadForms.assertRange(f.data(), CELL / 2, got, f.name() + " two lost units");
      DegradedReadStats stats = DegradedReadStats.of(in);
      if (RepairCatalog.spec(f.policy()).subPacketization() == 1) {
        // A chain per lost unit, each from the units still there; the client fetches only the
        // healthy halves of units 0 and 3 that the read wants.
        assertEquals(2, stats.agentReads(), f.name() + ": " + stats);
        assertEquals(CELL, stats.bytesFetched(), f.name() + ": " + stats);
      } else {
        // A sub-chunk repair needs every other unit: no plan, the read set's full decode.
        assertEquals(0, stats.agentReads(), f.name() + ": " + stats);
      }
    }
  }

  /**
   * A window's rows are the reader's as they arrive: while every helper holds back its frames
   * after the first row, a read of row 0 is served by the agents (had it waited for the whole
   * window it would have stalled and fetched instead), and the rest follows once they go on.
   */
  private static void rowsComeBeforeTheirWindowEnds(DegradedCluster c, Case f) throws Exception {
    java.util.concurrent.CountDownLatch goOn = new java.util.concurrent.CountDownLatch(1);
    ReadFaults.set(new ReadFaults.Hook() {
      @Override
      public void beforeFrameSent(String datanode, int node, int frames, byte[] frame, int length) {
        if (frames > 1) { // a chain's helper sends one frame per 64 KiB row: rows 1.. wait
          try {
            goOn.await(30, java.util.concurrent.TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
      }
    });
    Configuration conf = new Configuration(c.conf);
    conf.setLong(ClientKeys.AGENT_READS_STALL_MS_KEY, 5000);
    try (FileSystem client = FileSystem.newInstance(c.uri(), conf); FSDataInputStream in = client.open(f.path())) {
      ((EcRepairStripedInputStream) in.getWrappedStream()).markDead(c.holder(f.path(), 0, 1));
      int k = f.policy().getNumDataUnits();
      byte[] got = new byte[CELL];
      in.readFully(CELL, got);
      ReadForms.assertRange(f.data(), CELL, got, f.name() + " row 0 while the helpers hold the other rows");
      DegradedReadStats stats = DegradedReadStats.of(in);
      assertEquals(0, stats.agentFallbacks(), f.name() + ": " + stats);
      assertEquals(1, stats.agentReads(), f.name() + ": " + stats);
      assertEquals(1, stats.rowsRebuilt(), f.name() + ": " + stats);
      goOn.countDown();
      for (int row = 1; row < ROWS; row++) {
        long at = ((long) row * k + 1) * CELL;
        in.readFully(at, got);
        ReadForms.assertRange(f.data(), (int) at, got, f.name() + " lost cell of row " + row);
      }
      assertEquals(0, stats.agentFallbacks(), f.name() + ": " + stats);
      assertEquals(1, stats.agentReads(), f.name() + ": one window for the whole block (" + stats + ")");
      assertEquals(ROWS, stats.rowsRebuilt(), f.name() + ": " + stats);
      assertEquals(stats.bytesFromAgents(),
          ((org.apache.hadoop.hdfs.client.HdfsDataInputStream) in).getReadStatistics().getTotalBytesRead(),
          f.name() + ": HDFS's read statistics count the agents' bytes as the rows are taken");
    } finally {
      goOn.countDown();
      ReadFaults.set(null);
    }
  }

  /**
   * A small read of the lost unit 0's cell in the second group's last row, which only unit 0's
   * data reaches: the other data blocks end a cell short of the window's rows (of 4 KiB for RS
   * and LRC), and their agents still serve it.
   */
  private static void smallReadInTheShortLastRow(DegradedCluster c, Case f) throws Exception {
    int k = f.policy().getNumDataUnits();
    Configuration conf = new Configuration(c.conf);
    conf.setInt(ClientKeys.AGENT_READS_MIN_READ_SET_KB_KEY, 0);
    String what = f.name() + ", the short last row through the agents";
    try (FileSystem client = FileSystem.newInstance(c.uri(), conf); FSDataInputStream in = client.open(f.path())) {
      ((EcRepairStripedInputStream) in.getWrappedStream()).markDead(c.holder(f.path(), 1, 0));
      long at = (long) k * CELL * ROWS + (long) k * CELL + 3 * 4096 + 100; // group 1, row 1, unit 0
      byte[] got = new byte[5000];
      in.readFully(at, got);
      ReadForms.assertRange(f.data(), (int) at, got, what);
      DegradedReadStats stats = DegradedReadStats.of(in);
      assertEquals(1, stats.agentReads(), what + ": " + stats);
      assertEquals(0, stats.agentFallbacks(), what + ": " + stats);
      assertEquals(0, stats.bytesFetched(), what + ": " + stats);
    }
  }

  /**
   * Small preads at random offsets inside lost cells, none continuing the one before: only the
   * sub-chunks each read lies in are rebuilt, not the cell (a scalar code's cell is cut into
   * sub-chunks for this). Through the agents ({@code agents}) the client receives at most those
   * sub-chunks; through the read set (a vector code: Clay, Butterfly) it fetches what the code's
   * repair restricted to them reads. Then
   * small reads that continue one another: the second rebuilds the whole cell once, and the
   * rest of the cell costs nothing more. Every byte right. With the default smallest read set
   * for the agents (1 MiB), the same small reads are fetched.
   */
  private static void smallReadsRebuildTheirSubchunksOnly(DegradedCluster c, Case f, boolean agents)
      throws Exception {
    int k = f.policy().getNumDataUnits();
    io.ecrepair.codes.CodeSpec spec = RepairCatalog.spec(f.policy());
    int alpha = spec.subPacketization() > 1 ? spec.subPacketization() : AgentReads.scalarSubchunks(CELL);
    int s = CELL / alpha;
    int[] available = java.util.stream.IntStream.range(0, spec.n()).filter(u -> u != 1).toArray();
    io.ecrepair.exec.CellRowRepair whole = RepairCatalog.plan(spec, new int[] {1}, available);
    Configuration conf = new Configuration(c.conf);
    conf.setBoolean(ClientKeys.AGENT_READS_KEY, agents);
    conf.setInt(ClientKeys.AGENT_READS_MIN_READ_SET_KB_KEY, 0); // these read sets are small: the agents all the same
    String what = f.name() + (agents ? " through the agents" : " through the read set");
    java.util.Random rnd = new java.util.Random(17);
    try (FileSystem client = FileSystem.newInstance(c.uri(), conf); FSDataInputStream in = client.open(f.path())) {
      ((EcRepairStripedInputStream) in.getWrappedStream()).markDead(c.holder(f.path(), 0, 1));
      int reads = 10;
      long wanted = 0;
      long windows = 0;
      long windowReads = 0;
      for (int i = 0; i < reads; i++) {
        int len = 1 + rnd.nextInt(s); // two sub-chunks at most: a quarter of Butterfly(4,2)'s eight
        int off = rnd.nextInt(alpha * s - len); // inside the sub-chunks: the tail is read beside a plan
        long at = ((long) rnd.nextInt(ROWS) * k + 1) * CELL + off;
        byte[] got = new byte[len];
        in.readFully(at, got);
        ReadForms.assertRange(f.data(), (int) at, got, what + ", " + len + " bytes at " + at);
        int first = off / s;
        int count = (off + len + s - 1) / s - first;
        wanted += len;
        windows += (long) count * s;
        windowReads += agents ? 0 : whole.window(first, count, false).bytesPerRow(CELL);
      }
      DegradedReadStats stats = DegradedReadStats.of(in);
      if (agents) {
        assertEquals(reads, stats.agentReads(), what + ": " + stats);
        assertEquals(0, stats.agentFallbacks(), what + ": " + stats);
        assertEquals(0, stats.bytesFetched(), what + ": " + stats);
        assertTrue(stats.bytesFromAgents() >= wanted && stats.bytesFromAgents() <= windows, what + ": the client "
            + "received " + stats.bytesFromAgents() + " bytes for " + wanted + " read, in sub-chunks of " + windows);
      } else {
        assertEquals(0, stats.agentReads(), what + ": " + stats);
        // With equal costs exactly the restricted repairs' reads; a helper measured slow may change the read set.
        assertTrue(stats.bytesFetched() >= wanted && stats.bytesFetched() <= 2 * windowReads, what + ": fetched "
            + stats.bytesFetched() + " bytes, the restricted repairs read " + windowReads + " (" + stats + ")");
        assertTrue(stats.bytesFetched() < reads * whole.bytesPerRow(CELL) / 2, what + ": " + stats);
      }

      // Reads that continue one another through a lost cell: one window, then the whole cell once.
      long before = agents ? stats.bytesFromAgents() : stats.bytesFetched();
      long at = ((long) 2 * k + 1) * CELL + 3 * s + 5;
      int len = s / 2;
      for (long p = at; p + len <= ((long) 2 * k + 2) * CELL; p += len) {
        byte[] got = new byte[len];
        in.readFully(p, got);
        ReadForms.assertRange(f.data(), (int) p, got, what + ", sequential " + len + " bytes at " + p);
      }
      stats = DegradedReadStats.of(in);
      long cost = (agents ? stats.bytesFromAgents() : stats.bytesFetched()) - before;
      long bound = agents ? s + CELL + CELL / 10 : whole.window(3, 1, false).bytesPerRow(CELL) + whole.bytesPerRow(CELL);
      assertTrue(cost <= bound, what + ": sequential small reads through a cell cost " + cost + " bytes, over " + bound);
    }
    if (agents) {
      try (DistributedFileSystem client = c.ourClient(); FSDataInputStream in = client.open(f.path())) {
        ((EcRepairStripedInputStream) in.getWrappedStream()).markDead(c.holder(f.path(), 0, 1));
        long at = ((long) k + 1) * CELL + s + 3;
        byte[] got = new byte[s];
        in.readFully(at, got);
        ReadForms.assertRange(f.data(), (int) at, got, f.name() + ", a small read with the default settings");
        DegradedReadStats stats = DegradedReadStats.of(in);
        assertEquals(0, stats.agentReads(), f.name() + ": a small read set goes to the agents (" + stats + ")");
        assertTrue(stats.bytesFetched() > 0 && stats.bytesFetched() < CELL * (long) spec.k(), f.name() + ": " + stats);
      }
    }
  }

  /**
   * A read that starts inside a lost cell asks the agents for that cell's row only (here
   * whatever its read set): no helper sends more than the row's cell (a window reaching ahead
   * would have them send the next rows).
   */
  private static void partOfACellAsksForItsRowOnly(DegradedCluster c, Case f) throws Exception {
    java.util.Map<Integer, java.util.concurrent.atomic.AtomicLong> sent = new java.util.concurrent.ConcurrentHashMap<>();
    ReadFaults.set(new ReadFaults.Hook() {
      @Override
      public void beforeFrameSent(String datanode, int node, int frames, byte[] frame, int length) {
        sent.computeIfAbsent(node, x -> new java.util.concurrent.atomic.AtomicLong()).addAndGet(length);
      }
    });
    Configuration conf = new Configuration(c.conf);
    conf.setInt(ClientKeys.AGENT_READS_MIN_READ_SET_KB_KEY, 0); // the agents, however small the read set
    try (FileSystem client = FileSystem.newInstance(c.uri(), conf); FSDataInputStream in = client.open(f.path())) {
      ((EcRepairStripedInputStream) in.getWrappedStream()).markDead(c.holder(f.path(), 0, 1));
      byte[] got = new byte[CELL / 2];
      in.readFully(CELL + 100, got);
      ReadForms.assertRange(f.data(), CELL + 100, got, f.name() + " part of a lost cell");
      Thread.sleep(1000); // frames of a window reaching ahead would be on their way by now
      DegradedReadStats stats = DegradedReadStats.of(in);
      assertEquals(1, stats.agentReads(), f.name() + ": " + stats);
      assertEquals(1, stats.rowsRebuilt(), f.name() + ": " + stats);
      // A chain's helper sends one partial sum of what it rebuilds: at most the row's cell, less for a window of it.
      sent.forEach((node, bytes) -> assertTrue(bytes.get() <= CELL, f.name() + ": helper " + node + " sent "
          + bytes.get() + " bytes, past the row's " + CELL));
      assertTrue(!sent.isEmpty(), f.name() + ": no helper sent anything");
    } finally {
      ReadFaults.set(null);
    }
  }

  /**
   * A byte flipped in a frame after its checksum was computed, on its way to the client, or
   * ({@code breakOff}) a helper whose part fails in the middle of the read: the agents' run
   * fails, nothing of it is kept, and the read fetches the read set.
   */
  private static void flippedFrameIsNeverDelivered(DegradedCluster c, Case f, boolean breakOff) throws Exception {
    AtomicInteger flipped = new AtomicInteger();
    ReadFaults.set(new ReadFaults.Hook() {
      @Override
      public void beforeFrameSent(String datanode, int node, int frames, byte[] frame, int length) throws IOException {
        if (frames == 2 && flipped.getAndIncrement() == 0) {
          if (breakOff) {
            throw new IOException("injected: the helper breaks off");
          }
          frame[length / 2] ^= 0x10;
        }
      }
    });
    try (DistributedFileSystem client = c.ourClient(); FSDataInputStream in = client.open(f.path())) {
      EcRepairStripedInputStream s = (EcRepairStripedInputStream) in.getWrappedStream();
      s.markDead(c.holder(f.path(), 0, 1));
      int k = f.policy().getNumDataUnits();
      byte[] got = new byte[k * CELL * ROWS];
      in.readFully(0, got);
      ReadForms.assertRange(f.data(), 0, got, f.name() + (breakOff ? " with a helper breaking off" : " with a flipped frame"));
      DegradedReadStats stats = DegradedReadStats.of(in);
      assertTrue(flipped.get() > 0, "no frame was flipped");
      assertEquals(1, stats.agentFallbacks(), f.name() + ": " + stats);
      assertEquals(0, stats.agentReads(), f.name() + ": " + stats);
      assertTrue(stats.bytesFetched() > 0, f.name() + ": " + stats);
    } finally {
      ReadFaults.set(null);
    }
  }

  /**
   * A helper that goes silent in the middle of a read (its part waits 4 s before a frame): the
   * client gives up on the agents after its stall limit (1.5 s here) instead of waiting it out,
   * and reads right by fetching.
   */
  private static void stalledHelperFallsBack(DegradedCluster c, Case f) throws Exception {
    AtomicInteger stalled = new AtomicInteger();
    ReadFaults.set(new ReadFaults.Hook() {
      @Override
      public void beforeFrameSent(String datanode, int node, int frames, byte[] frame, int length) throws IOException {
        if (frames == 2 && stalled.getAndIncrement() == 0) {
          try {
            Thread.sleep(4000);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
      }
    });
    Configuration conf = new Configuration(c.conf);
    conf.setLong(ClientKeys.AGENT_READS_STALL_MS_KEY, 1500);
    try (FileSystem client = FileSystem.newInstance(c.uri(), conf); FSDataInputStream in = client.open(f.path())) {
      ((EcRepairStripedInputStream) in.getWrappedStream()).markDead(c.holder(f.path(), 0, 1));
      int k = f.policy().getNumDataUnits();
      byte[] got = new byte[k * CELL * ROWS];
      in.readFully(0, got);
      ReadForms.assertRange(f.data(), 0, got, f.name() + " with a stalled helper");
      DegradedReadStats stats = DegradedReadStats.of(in);
      assertTrue(stalled.get() > 0, "no helper stalled");
      // Had the client waited the helper out, the agents would have finished the read.
      assertEquals(1, stats.agentFallbacks(), f.name() + ": " + stats);
    } finally {
      ReadFaults.set(null);
    }
  }

  /** A client whose agent port offset points where no agent listens reads right by fetching. */
  private static void unreachableAgentsFallBack(DegradedCluster c, Case f) throws Exception {
    Configuration conf = new Configuration(c.conf);
    int offset = DegradedCluster.AGENT_PORT_OFFSET + 1;
    conf.setInt(io.ecrepair.hdfs.task.DataNodeKeys.AGENT_PORT_OFFSET_KEY, offset);
    List<java.net.ServerSocket> listeners = new ArrayList<>();
    try {
      assertFallsBack(c, f, conf, "without reachable agents");
      // The agents that refused are left out for a while: with something now listening on their
      // ports that would take a connection and never answer, the next read fetches the read set at
      // once, dialing none of them.
      for (org.apache.hadoop.hdfs.server.datanode.DataNode dn : c.cluster.getDataNodes()) {
        try {
          listeners.add(new java.net.ServerSocket(dn.getXferPort() + offset, 50,
              java.net.InetAddress.getLoopbackAddress()));
        } catch (java.net.BindException e) {
          // that port is some other socket's: nothing to watch there
        }
      }
      assertFallsBack(c, f, conf, "with the unreachable agents left out");
      for (java.net.ServerSocket l : listeners) {
        l.setSoTimeout(100);
        assertThrows(java.net.SocketTimeoutException.class, l::accept,
            "a read dialed the agent at port " + l.getLocalPort() + ", which had not been reached before");
      }
    } finally {
      AgentReads.forgetUnreachable();
      for (java.net.ServerSocket l : listeners) {
        l.close();
      }
    }
  }

  private static void assertFallsBack(DegradedCluster c, Case f, Configuration conf, String what) throws Exception {
    try (FileSystem client = FileSystem.newInstance(c.uri(), conf); FSDataInputStream in = client.open(f.path())) {
      EcRepairStripedInputStream s = (EcRepairStripedInputStream) in.getWrappedStream();
      s.markDead(c.holder(f.path(), 0, 1));
      byte[] got = new byte[2 * CELL];
      in.readFully(CELL / 2, got);
      ReadForms.assertRange(f.data(), CELL / 2, got, f.name() + " " + what);
      DegradedReadStats stats = DegradedReadStats.of(in);
      assertEquals(1, stats.agentFallbacks(), f.name() + " " + what + ": " + stats);
      assertEquals(0, stats.agentReads(), f.name() + " " + what + ": " + stats);
    }
  }
}
