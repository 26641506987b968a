package io.ecrepair.hdfs.agent;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.hdfs.datanode.EcRepairDataNodePlugin;
import io.ecrepair.hdfs.datanode.RepairCluster;
import io.ecrepair.hdfs.task.DataNodeKeys;
import io.ecrepair.hdfs.task.TaskReport;
import io.ecrepair.plan.Plan;
import io.ecrepair.testing.ClusterTest;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.util.StripedBlockUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile input at a live repair agent (loopback only, bounded in count and time): random
 * bytes, each request kind's magic followed by garbage, and real range and plan-part requests
 * (with a genuine block token, so they pass the token check) with bytes flipped, fields set to
 * extremes and cut short. Afterwards every DataNode is up, the agent serves no connection any
 * more, this JVM's open files are back to what they were, and a normal repair through the agents
 * still succeeds.
 */
@ClusterTest
class AgentFuzzTest {
  private static final int CELL = 64 * 1024;
  private static final int REQUESTS = 4000;
  private static final long MAX_MILLIS = 60_000;

  @TempDir
  Path tmp;

  @Test
  void badRequestsNeverHurtTheDataNode() throws Exception {
    CodeSpec spec = new CodeSpec("clay", 4, 2);
    RepairCatalog.searchParallelPlans(spec);
    Configuration extra = new Configuration(false);
    extra.setInt(DataNodeKeys.AGENT_PORT_OFFSET_KEY, 7);
    extra.setBoolean(DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY, true);
    extra.setInt(DFSConfigKeys.DFS_DN_EC_RECONSTRUCTION_STRIPED_READ_TIMEOUT_MILLIS_KEY, 1000);
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), 8, "clay", 4, 2, CELL, 4, extra)) {
      org.apache.hadoop.fs.Path file = c.write("f", 4 * 4 * CELL, 1);
      c.awaitHealthy();
      DatanodeInfo target = c.holder(file, 0, 1);
      DataNode dn = c.dataNode(target);
      InetSocketAddress agent = new InetSocketAddress("127.0.0.1", dn.getXferPort() + 7);
      LocatedStripedBlock group = (LocatedStripedBlock) c.fs.getClient()
          .getLocatedBlocks(file.toString(), 0, Long.MAX_VALUE).get(0);
      LocatedBlock internal = internalBlock(group, 1, c.k(), c.cell());
      List<byte[]> valid = List.of(rangeRequest(internal), partRequest(spec, internal, agent));

      long filesBefore = openFiles();
      long threadsBefore = agentThreads();
      // Anything thrown out of an agent's thread (an uncaught error, an OutOfMemoryError) fails the test.
      List<Throwable> escaped = java.util.Collections.synchronizedList(new ArrayList<>());
      Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
      Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
        if (agentThread(t)) {
          escaped.add(e);
        }
        if (previous != null) {
          previous.uncaughtException(t, e);
        }
      });
      Random random = new Random(20261124L);
      long deadline = System.currentTimeMillis() + MAX_MILLIS;
      int sent = 0;
      for (; sent < REQUESTS && System.currentTimeMillis() < deadline; sent++) {
        send(agent, hostile(random, valid));
      }
      assertTrue(sent >= 1000, "only " + sent + " requests in " + MAX_MILLIS / 1000 + " s");
      Thread.setDefaultUncaughtExceptionHandler(previous);
      assertTrue(escaped.isEmpty(), "thrown out of the agent's threads: " + escaped);

      for (DataNode d : c.cluster.getDataNodes()) {
        assertTrue(d.isDatanodeUp(), d + " is up after the fuzzing");
      }
      settle("the agent serves no connection any more", () -> EcRepairDataNodePlugin.connectionsServing(dn) == 0);
      settle("no socket or file left open (" + filesBefore + " before)", () -> openFiles() <= filesBefore + 16);
      settle("the agents' threads back to " + threadsBefore + " (idle handlers end after "
          + RepairAgent.HANDLER_KEEP_ALIVE_SECONDS + " s)", () -> agentThreads() <= threadsBefore);
      // And a normal repair through the agents still works, with every block compared.
      List<TaskReport> reports = c.loseAndVerify(c.holder(file, 0, 0));
      assertTrue(reports.stream().allMatch(TaskReport::succeeded), reports.toString());
    }
  }

  /** One hostile request, made from random choices. */
  private static byte[] hostile(Random r, List<byte[]> valid) {
    byte[] base = valid.get(r.nextInt(valid.size()));
    switch (r.nextInt(5)) {
      case 0: { // random bytes
        byte[] b = new byte[r.nextInt(2048)];
        r.nextBytes(b);
        return b;
      }
      case 1: { // a request kind's magic, then garbage
        int[] magics = {PlanPartRequest.MAGIC, RangeRequest.MAGIC, PlanFrames.STREAM_MAGIC, PlanPartRequest.LOAD_PROBE};
        byte[] tail = new byte[r.nextInt(512)];
        r.nextBytes(tail);
        return ByteBuffer.allocate(4 + tail.length).putInt(magics[r.nextInt(magics.length)]).put(tail).array();
      }
      case 2: { // a real request with bytes flipped
        byte[] b = base.clone();
        for (int i = 1 + r.nextInt(8); i > 0; i--) {
          int at = 4 + r.nextInt(b.length - 4);
          b[at] ^= (byte) (1 + r.nextInt(255));
        }
        return b;
      }
      case 3: { // a real request with one 4-byte field set to an extreme
        byte[] b = base.clone();
        int[] extremes = {Integer.MAX_VALUE, Integer.MIN_VALUE, -1, 0, 1 << 30, 65536};
        int at = 4 + r.nextInt(Math.max(1, b.length - 8));
        ByteBuffer.wrap(b).putInt(at, extremes[r.nextInt(extremes.length)]);
        return b;
      }
      default: { // a real request cut short
        return java.util.Arrays.copyOf(base, 4 + r.nextInt(base.length - 4));
      }
    }
  }

  /** Sends one request, reads whatever comes back for at most a moment, closes. */
  private static void send(InetSocketAddress agent, byte[] request) throws IOException {
    try (Socket s = new Socket()) {
      try {
        s.connect(agent, 2000);
      } catch (ConnectException e) {
        throw new AssertionError("the agent stopped accepting connections", e);
      }
      s.setSoTimeout(200);
      try {
        OutputStream out = s.getOutputStream();
        out.write(request);
        out.flush();
        s.shutdownOutput();
        InputStream in = s.getInputStream();
        byte[] buf = new byte[64 * 1024];
        long got = 0;
        while (got < (1 << 20) && in.read(buf) >= 0) {
          got += buf.length;
        }
      } catch (IOException e) {
        // a reset, a timeout: the agent gave up on us, as it should
      }
    }
  }

  /** A client's challenge about the block: its own token identifier and a nonce. */
  static AgentProof.Challenge challenge(LocatedBlock internal) {
    return AgentProof.Challenge.of(internal.getBlockToken());
  }

  static LocatedBlock internalBlock(LocatedStripedBlock group, int index, int k, int cell) {
    for (int j = 0; j < group.getBlockIndices().length; j++) {
      if (group.getBlockIndices()[j] == index) {
        return StripedBlockUtil.constructInternalBlock(group, j, cell, k, index);
      }
    }
    throw new AssertionError("no internal block " + index);
  }

  private static byte[] rangeRequest(LocatedBlock internal) throws IOException {
    RangeRequest req = new RangeRequest(internal.getBlock(), internal.getBlockToken(),
        List.of(new long[] {0, 4096}, new long[] {CELL, 8192}));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    req.write(new DataOutputStream(bytes), challenge(internal));
    return bytes.toByteArray();
  }

  /** A genuine part (helper 1's of Clay's plan for lost block 0) whose peers point back at this agent. */
  static byte[] partRequest(CodeSpec spec, LocatedBlock internal, InetSocketAddress agent) throws IOException {
    return partRequest(spec, internal, agent, 1);
  }

  /** The same for the part of node {@code node} (whose internal block {@code internal} is). */
  static byte[] partRequest(CodeSpec spec, LocatedBlock internal, InetSocketAddress agent, int node) throws IOException {
    return partRequest(spec, internal, agent, node, "the-hop");
  }

  /** The same, naming DataNode {@code peerId} for every peer. */
  static byte[] partRequest(CodeSpec spec, LocatedBlock internal, InetSocketAddress agent, int node, String peerId)
      throws IOException {
    Plan plan = RepairCatalog.parallelPlan(spec, 0).orElseThrow();
    var part = RepairCatalog.parts(plan).get(node);
    Map<Integer, PlanPartRequest.Peer> peers = new TreeMap<>();
    part.outbound().forEach(g -> peers.put(g.peer(), new PlanPartRequest.Peer("127.0.0.1", agent.getPort(), peerId)));
    part.inbound().forEach(g -> peers.put(g.peer(), new PlanPartRequest.Peer("127.0.0.1", agent.getPort(), peerId)));
    int sub = CELL / spec.subPacketization();
    PlanPartRequest req = new PlanPartRequest(1, 2, internal.getBlock(), internal.getBlockToken(),
        internal.getBlockSize(), CELL, sub, 0, 4, sub, part, peers, false);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    req.write(new DataOutputStream(bytes), challenge(internal), "any");
    return bytes.toByteArray();
  }

  /** Live threads of the repair agents (their accept loops and request handlers, repairs' included). */
  private static long agentThreads() {
    return Thread.getAllStackTraces().keySet().stream().filter(AgentFuzzTest::agentThread).count();
  }

  private static boolean agentThread(Thread t) {
    return t.getName().startsWith("ec-repair-agent-") || t.getName().startsWith("ec-repair-lo-agent-");
  }

  private static long openFiles() {
    try (var s = Files.list(Path.of("/proc/self/fd"))) {
      return s.count();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static void settle(String what, java.util.function.BooleanSupplier done) throws Exception {
    long deadline = System.currentTimeMillis() + 30_000;
    while (!done.getAsBoolean()) {
      if (System.currentTimeMillis() > deadline) {
        throw new AssertionError(what + " within 30 s");
      }
      Thread.sleep(200);
    }
  }
}
