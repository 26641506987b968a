package io.ecrepair.hdfs.datanode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.hdfs.agent.ReadFaults;
import io.ecrepair.hdfs.task.DataNodeKeys;
import io.ecrepair.hdfs.task.ReconstructionContext;
import io.ecrepair.hdfs.task.ReconstructionLog;
import io.ecrepair.hdfs.task.TaskReport;
import io.ecrepair.plan.Plan;
import io.ecrepair.plan.Traffic;
import io.ecrepair.testing.ClusterTest;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Parallel repair on a MiniDFSCluster: a lost Clay or Butterfly block is rebuilt by its
 * helpers' repair agents running their parts of the code's parallel plan, byte for byte, and
 * every node moved exactly what the plan's traffic table says. A byte flipped in a frame
 * between agents and a participant that fails mid-block cost time, never data: the task
 * finishes centrally from the row reached, and the block is still the original.
 */
@ClusterTest
class ParallelRepairTest {
  private static final int CELL = 64 * 1024;
  private static final int CELLS_PER_BLOCK = 4;

  @TempDir
  Path tmp;

  @BeforeEach
  @AfterEach
  void clear() {
    ReconstructionLog.clear();
    ReadFaults.set(null);
  }

  private static Configuration parallel(boolean tokens) {
    Configuration extra = new Configuration(false);
    extra.setInt(DataNodeKeys.AGENT_PORT_OFFSET_KEY, 7);
    // Every task weighs the plans (none runs centrally as its DataNode's share), so parallel repairs run.
    extra.setBoolean(DataNodeKeys.CENTRAL_SHARE_KEY, false);
    extra.setBoolean(DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY, tokens);
    return extra;
  }

  @Test
  void clayBlocksAreRebuiltByTheirHelpersTogether() throws Exception {
    rebuildInParallel("clay", 4, 2, 7, 1);
  }

  @Test
  void butterflyBlocksAreRebuiltByTheirHelpersTogether() throws Exception {
    rebuildInParallel("butterfly", 4, 2, 7, 1);
  }

  /**
   * CLAY-6-3 has 27 sub-chunks, which do not divide a 64 KiB cell: the plan moves 27 sub-chunks
   * of 2427 bytes per row and the coordinator rebuilds the 7 bytes left of each row beforehand.
   */
  @Test
  void clay6of9WhoseSubchunksDoNotFillACell() throws Exception {
    assertTrue(CELL % new CodeSpec("clay", 6, 3).subPacketization() != 0);
    rebuildInParallel("clay", 6, 3, 10, 1);
  }

  /** Clay with d = 11 < n - 1 (codec clay-d11), through HDFS, with its shipped plans. */
  @Test
  void clayWithElevenHelpers() throws Exception {
    assertTrue(RepairCatalog.parallelPlan(new CodeSpec("clay-d11", 10, 4), 0).isPresent(), "its plans ship in the jar");
    rebuildInParallel("clay-d11", 10, 4, 15, 1);
  }

  /**
   * Two DataNodes of a group die together: the NameNode schedules one task for both blocks,
   * and the DataNode that rebuilds them runs a plan for the pair (searched ahead here, as the
   * DataNode does in the background the first time it meets a pair).
   */
  @Test
  void twoBlocksOfAGroupAreRebuiltTogetherInParallel() throws Exception {
    CodeSpec spec = new CodeSpec("clay", 4, 2);
    for (int a = 0; a < spec.n(); a++) {
      for (int b = a + 1; b < spec.n(); b++) {
        RepairCatalog.searchParallelPlans(spec, new int[] {a, b});
        assertTrue(!RepairCatalog.parallelPlans(spec, new int[] {a, b}).isEmpty(), "a plan for lost " + a + "," + b);
      }
    }
    rebuildInParallel("clay", 4, 2, 8, 2);
  }

  @Test
  void clay10of14WithItsShippedPlans() throws Exception {
    CodeSpec spec = new CodeSpec("clay", 10, 4);
    for (int lost = 0; lost < 14; lost++) {
      assertTrue(RepairCatalog.parallelPlan(spec, lost).isPresent(), "a plan for lost " + lost + " ships in the jar");
    }
    rebuildInParallel("clay", 10, 4, 15, 1);
  }

  /** Loses {@code victims} holders of the first group together and checks the parallel tasks. */
  private void rebuildInParallel(String codec, int k, int m, int dataNodes, int victims) throws Exception {
    CodeSpec spec = new CodeSpec(codec, k, m);
    RepairCatalog.searchParallelPlans(spec);
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), dataNodes, codec, k, m, CELL,
        CELLS_PER_BLOCK, parallel(true))) {
      org.apache.hadoop.fs.Path big = c.writeMixedFiles();
      DatanodeInfo[] lose = new DatanodeInfo[victims];
      for (int i = 0; i < victims; i++) {
        lose[i] = c.holder(big, 0, i);
      }
      // A write's failed streamer can leave a block that is rebuilt before the loss: the metric
      // counts that task, the loss's reports do not, so the metric is compared from here on.
      c.awaitHealthy();
      long parallelBefore = metric(c, "ParallelTasks", lose);
      List<TaskReport> reports = c.loseAndVerify(lose);
      int parallelTasks = 0;
      int fullParallelTasks = 0;
      int rebuiltTogether = 0;
      for (TaskReport r : reports) {
        assertTrue(r.succeeded() && r.helperReplacements() == 0, r.toString());
        if (r.route().startsWith("parallel")) {
          parallelTasks++;  // what the ParallelTasks metric counts, short groups included
        }
        if (r.lostBytes() != (long) r.lost().length * CELLS_PER_BLOCK * CELL || r.route().equals("central")) {
          continue; // a short group (its traffic is not a whole block's), or one the plan choice found faster central
        }
        assertEquals("parallel", r.route(), r.toString());
        fullParallelTasks++;
        // Every node moved what the traffic table of the plan it ran says (one of the lost
        // blocks' plans, chosen by load): sub-chunks x sub-chunk bytes x rows.
        int[] lost = Arrays.stream(r.lost()).sorted().toArray();
        List<Plan> plans = RepairCatalog.parallelPlans(spec, lost);
        Plan ran = null;
        for (Plan plan : plans) {
          if (movedAsPlanned(plan, r)) {
            ran = plan;
          }
        }
        assertTrue(ran != null, "no plan of lost " + Arrays.toString(lost) + " moves what the task moved: " + r + " "
            + r.nodeTraffic().entrySet().stream().map(e -> e.getKey() + "=" + Arrays.toString(e.getValue())).toList()
            + ", plans " + plans);
        assertTrue(ran.traffic().in(lost[0]) < ran.traffic().bandwidth(),
            "the helpers computed part of the repair: " + ran);
        if (lost.length > 1) {
          rebuiltTogether++;
        }
      }
      assertTrue(fullParallelTasks > 0, "some task rebuilt whole blocks in parallel: " + reports);
      if (victims > 1) {
        assertTrue(rebuiltTogether > 0, "some task rebuilt " + victims + " blocks together in parallel: " + reports);
      }
      assertEquals(parallelTasks, metric(c, "ParallelTasks") - parallelBefore, "ParallelTasks metric");
      assertEquals(0, metric(c, "BrokenParallelRepairs"));
      for (var dn : c.cluster.getDataNodes()) {
        assertEquals(0, EcRepairDataNodePlugin.sessions(dn), "no session left on " + dn);
      }
    }
  }

  /**
   * Repair runs behind the clients on the CPU when asked to: a client's degraded read through the
   * agents, a parallel repair, and the client's read again leave every thread of the DataNodes at
   * this JVM's priority (the agents' handlers, HDFS's reconstruction threads, every pool a repair
   * may have started lazily), except the repair threads of ours, which run the configured ten
   * steps nicer (and the plan preparer, which may). Read from the kernel's account of each thread.
   */
  @Test
  void repairRunsNicerAndNothingElseDoes() throws Exception {
    int base = nice(Path.of("/proc/thread-self"));
    org.junit.jupiter.api.Assumptions.assumeTrue(base < 19, "this JVM runs at the lowest priority already");
    int steps = 10;
    int repair = Math.min(19, base + steps);
    CodeSpec spec = new CodeSpec("clay", 4, 2);
    RepairCatalog.searchParallelPlans(spec);
    Configuration conf = parallel(true);
    conf.setInt(DataNodeKeys.REPAIR_NICE_KEY, steps);
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), 7, "clay", 4, 2, CELL, CELLS_PER_BLOCK,
        conf)) {
      org.apache.hadoop.fs.Path big = c.writeMixedFiles();
      c.awaitHealthy();  // no repair of a write's leftovers among the clients' parts
      // Every part an agent runs says, on its own thread, what that thread's priority is.
      List<Integer> partNices = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
      ReadFaults.set(new ReadFaults.Hook() {
        @Override
        public void sessionOpened(String datanode, long hi, long lo, io.ecrepair.exec.NodePart part,
                                  io.ecrepair.exec.SliceGeometry geometry, Map<Integer, String> senders) {
          try {
            partNices.add(nice(Path.of("/proc/thread-self")));
          } catch (IOException e) {
            partNices.add(Integer.MIN_VALUE);
          }
        }
      });
      clientReadsThroughTheAgents(c, big, c.holder(big, 0, 1));
      assertTrue(!partNices.isEmpty() && partNices.stream().allMatch(n -> n == base), "clients' parts: " + partNices);
      partNices.clear();
      List<TaskReport> reports = c.loseAndVerify(c.holder(big, 0, 0));
      assertTrue(reports.stream().anyMatch(r -> r.route().startsWith("parallel")), reports.toString());
      assertTrue(!partNices.isEmpty() && partNices.stream().allMatch(n -> n == repair), "repairs' parts: " + partNices);
      partNices.clear();
      clientReadsThroughTheAgents(c, big, c.holder(big, 0, 2));
      assertTrue(!partNices.isEmpty() && partNices.stream().allMatch(n -> n == base), "clients' parts: " + partNices);
      List<String> wrong = new java.util.ArrayList<>();
      try (var tasks = java.nio.file.Files.list(Path.of("/proc/self/task"))) {
        for (Path t : tasks.toList()) {
          String comm;
          int nice;
          try {
            comm = java.nio.file.Files.readString(t.resolve("comm")).strip();
            nice = nice(t);
          } catch (IOException ended) {
            continue;
          }
          boolean ours = comm.startsWith("ec-repair-lo-");
          // The plan preparer (one thread per JVM, background work ahead of repairs) starts at the
          // priority of whichever thread first needs it, a repair's or not.
          boolean either = comm.startsWith("ec-repair-plan-");
          if (nice != (ours ? repair : base) && !(either && nice == repair)) {
            wrong.add(comm + " at " + nice);
          }
        }
      }
      assertEquals(List.of(), wrong, "threads at the wrong priority (repair's " + repair + ", the rest " + base + ")");
    }
  }

  /** A thread's nice as Linux accounts it: field 19 of its {@code stat}. */
  private static int nice(Path thread) throws IOException {
    String stat = java.nio.file.Files.readString(thread.resolve("stat"));
    return Integer.parseInt(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[16]);
  }

  /** A client reads the whole first group with {@code dead} taken for dead: the agents rebuild its block. */
  private static void clientReadsThroughTheAgents(RepairCluster c, org.apache.hadoop.fs.Path file, DatanodeInfo dead)
      throws Exception {
    Configuration conf = new Configuration(c.conf);
    conf.set("fs.hdfs.impl", io.ecrepair.hdfs.client.EcRepairDistributedFileSystem.class.getName());
    byte[] want = c.files.get(file);
    int length = Math.min(want.length, c.k() * CELLS_PER_BLOCK * CELL);
    try (org.apache.hadoop.fs.FileSystem client = org.apache.hadoop.fs.FileSystem.newInstance(c.fs.getUri(), conf);
         org.apache.hadoop.fs.FSDataInputStream in = client.open(file)) {
      ((org.apache.hadoop.hdfs.EcRepairStripedInputStream) in.getWrappedStream()).markDead(dead);
      byte[] got = new byte[length];
      in.readFully(0, got);
      org.junit.jupiter.api.Assertions.assertArrayEquals(Arrays.copyOf(want, length), got, "read through the agents");
      io.ecrepair.hdfs.client.DegradedReadStats stats = io.ecrepair.hdfs.client.DegradedReadStats.of(in);
      assertTrue(stats.agentReads() > 0, String.valueOf(stats));
    }
  }

  /**
   * The DataNodes' inbound repair budget holds back the values of a parallel plan on every node
   * they arrive at, not only the helper reads of a central repair: no full parallel task is faster
   * than its busiest receiver's bytes at the budget's rate (less a second of the throttle's
   * allowance).
   */
  @Test
  void theInboundRepairBudgetHoldsBackEveryReceiverOfAPlan() throws Exception {
    long rate = 128 * 1024;
    CodeSpec spec = new CodeSpec("clay", 4, 2);
    RepairCatalog.searchParallelPlans(spec);
    Configuration conf = parallel(true);
    conf.setLong(DataNodeKeys.REPAIR_BANDWIDTH_IN_KEY, rate);
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), 7, "clay", 4, 2, CELL, CELLS_PER_BLOCK,
        conf)) {
      org.apache.hadoop.fs.Path big = c.writeMixedFiles();
      int checked = 0;
      for (TaskReport r : c.loseAndVerify(new DatanodeInfo[] {c.holder(big, 0, 0)})) {
        assertTrue(r.succeeded(), r.toString());
        if (!r.route().equals("parallel") || r.lostBytes() != (long) CELLS_PER_BLOCK * CELL) {
          continue;
        }
        long busiest = r.nodeTraffic().values().stream().mapToLong(t -> t[0]).max().orElseThrow();
        double least = (double) busiest / rate - 1.0;
        assertTrue(r.seconds() >= least, "received " + busiest + " bytes at " + rate + " B/s in " + r.seconds()
            + " s: " + r);
        checked++;
      }
      assertTrue(checked > 0, "some task rebuilt a whole block in parallel");
    }
  }

  private static boolean movedAsPlanned(Plan plan, TaskReport r) {
    Traffic t = plan.traffic();
    long unit = (long) CELL / plan.graph().subchunkCount() * CELLS_PER_BLOCK;
    for (int node = 0; node < t.nodeCount(); node++) {
      long[] moved = r.nodeTraffic().getOrDefault(node, new long[3]);
      if (t.in(node) * unit != moved[0] || t.out(node) * unit != moved[1]) {
        return false;
      }
    }
    return true;
  }

  @Test
  void aFlippedByteInAFrameIsNeverCommitted() throws Exception {
    AtomicBoolean flipped = new AtomicBoolean();
    List<TaskReport> reports = loseWithFault("clay", 4, 2, new ReadFaults.Hook() {
      @Override
      public void beforeFrameSent(String datanode, int node, int frames, byte[] frame, int length) {
        if (frames == 3 && length > 0 && flipped.compareAndSet(false, true)) {
          frame[length / 2] ^= 0x40;
        }
      }
    });
    assertTrue(flipped.get(), "a byte was flipped on its way");
    assertTrue(reports.stream().anyMatch(r -> r.route().equals("parallel+central")),
        "the repair that met the bad frame was finished centrally: " + reports);
  }

  @Test
  void aParticipantThatFailsMidBlockIsFinishedCentrally() throws Exception {
    AtomicBoolean failed = new AtomicBoolean();
    List<TaskReport> reports = loseWithFault("butterfly", 4, 2, new ReadFaults.Hook() {
      @Override
      public void beforeFrameSent(String datanode, int node, int frames, byte[] frame, int length) throws IOException {
        if (frames == 5 && failed.compareAndSet(false, true)) {
          throw new IOException("test: participant fails at its 5th frame");
        }
      }
    });
    assertTrue(failed.get(), "the fault was injected");
    assertTrue(reports.stream().anyMatch(r -> r.route().equals("parallel+central")),
        "the repair whose participant failed was finished centrally: " + reports);
  }

  /**
   * A participant's DataNode is stopped while it sends its part of a parallel repair (after its
   * third frame of the first group, a helper there): the coordinator finishes that block from
   * the row reached without it, and every block, the participant's own included, ends up equal
   * to the original.
   */
  @Test
  void aParticipantWhoseDataNodeStopsMidBlockIsFinishedCentrally() throws Exception {
    CodeSpec spec = new CodeSpec("clay", 4, 2);
    RepairCatalog.searchParallelPlans(spec);
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), 8, "clay", 4, 2, CELL, CELLS_PER_BLOCK,
        parallel(false))) {
      org.apache.hadoop.fs.Path big = c.writeMixedFiles();
      c.awaitHealthy();
      DatanodeInfo victim = c.holder(big, 0, 0);
      Map<String, DatanodeInfo> helpers = new java.util.HashMap<>();
      Map<String, Integer> indexOf = new java.util.HashMap<>();
      for (int j = 1; j < spec.n(); j++) {
        DatanodeInfo h = c.holder(big, 0, j);
        String name = ReconstructionContext.nameOf(c.dataNode(h));
        helpers.put(name, h);
        indexOf.put(name, j);
      }
      AtomicBoolean killing = new AtomicBoolean();
      java.util.concurrent.CountDownLatch stopped = new java.util.concurrent.CountDownLatch(1);
      ReadFaults.set(new ReadFaults.Hook() {
        @Override
        public void beforeFrameSent(String datanode, int node, int frames, byte[] frame, int length)
            throws IOException {
          Integer j = indexOf.get(datanode);
          if (j == null || j != node || frames != 3 || !killing.compareAndSet(false, true)) {
            return;
          }
          // Stopped from another thread: the DataNode's shutdown stops this very agent.
          Thread t = new Thread(() -> {
            try {
              c.stop(helpers.get(datanode));
            } catch (IOException e) {
              throw new java.io.UncheckedIOException(e);
            } finally {
              stopped.countDown();
            }
          }, "test-stop-participant");
          t.start();
          try {
            stopped.await(30, java.util.concurrent.TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("test: participant stopped", e);
          }
        }
      });
      List<TaskReport> reports = c.loseWithFault(victim, () -> stopped.getCount() == 0,
          "no helper of the first group sent a third frame");
      assertTrue(reports.stream().anyMatch(r -> r.succeeded() && r.route().equals("parallel+central")),
          "the repair whose participant stopped was finished centrally: " + reports);
      assertTrue(metric(c, "BrokenParallelRepairs") > 0, "the metric counts the repair that stopped");
    }
  }

  /**
   * Loses a DataNode with a fault hook set (once the written cluster settled, so that only the
   * loss's repairs meet it) and checks every rebuilt block byte for byte (loseAndVerify).
   */
  private List<TaskReport> loseWithFault(String codec, int k, int m, ReadFaults.Hook hook) throws Exception {
    RepairCatalog.searchParallelPlans(new CodeSpec(codec, k, m));
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), 7, codec, k, m, CELL, CELLS_PER_BLOCK,
        parallel(false))) {
      org.apache.hadoop.fs.Path big = c.writeMixedFiles();
      c.awaitHealthy();
      ReadFaults.set(hook);
      List<TaskReport> reports = c.loseAndVerify(c.holder(big, 0, 0));
      assertTrue(reports.stream().allMatch(TaskReport::succeeded), reports.toString());
      assertTrue(metric(c, "BrokenParallelRepairs") > 0, "the metric counts the repair that stopped");
      return reports;
    }
  }

  /** The sum of a counter over the running DataNodes, less {@code except}. */
  private static long metric(RepairCluster c, String name, DatanodeInfo... except) {
    java.util.Set<Integer> skip = new java.util.HashSet<>();
    for (DatanodeInfo d : except) {
      skip.add(d.getXferPort());
    }
    long sum = 0;
    for (var dn : c.cluster.getDataNodes()) {
      if (!skip.contains(dn.getXferPort())) {
        sum += EcRepairDataNodePlugin.metrics(dn).getOrDefault(name, 0L);
      }
    }
    return sum;
  }
}
