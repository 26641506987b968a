package io.ecrepair.hdfs.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.hdfs.datanode.EcRepairDataNodePlugin;
import io.ecrepair.hdfs.datanode.RepairCluster;
import io.ecrepair.hdfs.task.DataNodeKeys;
import io.ecrepair.hdfs.task.ReconstructionLog;
import io.ecrepair.hdfs.task.TaskReport;
import io.ecrepair.testing.ClusterTest;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.security.token.Token;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * 300 connections to one agent that each send a byte every 3 s (and come back when cut), and
 * a request with a forged token that announces the largest body and sends twice that: the forged one is
 * refused after its header, the tricklers are cut, and a NameNode-driven Clay repair whose
 * helper that agent is runs its part there and rebuilds every block within a minute.
 */
@ClusterTest
class TrickleAttackTest {
  private static final int CELL = 64 * 1024;
  private static final int TRICKLERS = 300;

  @TempDir
  Path tmp;

  @Test
  void tricklingAndUnauthenticatedRequestsDoNotKeepARepairOut() throws Exception {
    ReconstructionLog.clear();
    RepairCatalog.searchParallelPlans(new CodeSpec("clay", 4, 2));
    Configuration conf = new Configuration(false);
    conf.setInt(DataNodeKeys.AGENT_PORT_OFFSET_KEY, 7);
    conf.setBoolean(DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY, true);
    // Every task weighs the plans (none runs centrally as its DataNode's share), so parallel repairs run.
    conf.setBoolean(DataNodeKeys.CENTRAL_SHARE_KEY, false);
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), 8, "clay", 4, 2, CELL, 4, conf)) {
      org.apache.hadoop.fs.Path file = c.write("f", 4 * 4 * CELL, 11);
      c.awaitHealthy();
      DataNode helper = c.dataNode(c.holder(file, 0, 1));
      InetSocketAddress agent = HostileRequests.agentOf(helper);
      LocatedStripedBlock group = HostileRequests.firstGroup(c, file);
      LocatedBlock internal = AgentFuzzTest.internalBlock(group, 1, c.k(), c.cell());

      try (Tricklers tricklers = new Tricklers(agent, TRICKLERS)) {
        tricklers.awaitRounds(1, 60_000); // every trickler connected and sent its first byte
        refusesAForgedOversizedRequest(agent, internal);

        long partsBefore = EcRepairDataNodePlugin.partsServed(helper);
        DatanodeInfo victim = c.holder(file, 0, 0);
        long t0 = System.nanoTime();
        List<TaskReport> reports = c.loseAndVerify(victim); // every internal block and the file, byte for byte
        double seconds = (System.nanoTime() - t0) / 1e9;
        int roundsAfterRepair = tricklers.rounds();
        tricklers.awaitRounds(roundsAfterRepair + 1, 60_000); // the tricklers look once more for what was cut
        System.out.printf("the repair through the attacked agent took %.1f s; the agent cut %d arriving connections,"
            + " the tricklers saw %d cut%n", seconds, arrivalsCut(helper), tricklers.cut());
        assertTrue(seconds < 60, "the repair took " + seconds + " s");
        assertTrue(reports.stream().anyMatch(r -> r.route().equals("parallel")), "a parallel repair ran: " + reports);
        assertTrue(EcRepairDataNodePlugin.partsServed(helper) > partsBefore,
            "the helper's agent ran its part of the repair while the tricklers were connected");
        assertTrue(arrivalsCut(helper) > 0, "the agent cut trickling connections");
        assertTrue(tricklers.cut() > 0, "the tricklers saw their connections cut");
      }
    }
  }

  private static long arrivalsCut(DataNode dn) {
    return EcRepairDataNodePlugin.metrics(dn).getOrDefault("AgentArrivalsCut", 0L);
  }

  /**
   * A part request whose token's password is wrong, announcing the largest body a part may have
   * and sending twice that: refused after its header, before its body is read.
   */
  private static void refusesAForgedOversizedRequest(InetSocketAddress agent, LocatedBlock internal)
      throws IOException {
    Token<BlockTokenIdentifier> genuine = internal.getBlockToken();
    Token<BlockTokenIdentifier> forged = new Token<>(genuine.getIdentifier(), new byte[genuine.getPassword().length],
        genuine.getKind(), genuine.getService());
    try (Socket s = new Socket()) {
      s.connect(agent, 5000);
      s.setSoTimeout(10_000);
      DataOutputStream out = new DataOutputStream(s.getOutputStream());
      out.writeInt(PlanPartRequest.MAGIC);
      out.writeInt(PlanPartRequest.VERSION);
      out.writeLong(5);
      out.writeLong(6);
      WireBlocks.write(out, internal.getBlock());
      forged.write(out);
      out.writeLong(System.currentTimeMillis());
      AgentProof.Challenge.of(genuine).write(out);
      AgentProof.writeRequestProof(out, new byte[0]);
      out.writeInt(PlanPartRequest.MAX_BODY);
      out.flush();
      DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
      assertEquals(PlanPartRequest.ERROR, in.readInt(), "refused after the header");
      String why = in.readUTF();
      assertTrue(why.contains("refused"), why);
      long written = 0;
      byte[] chunk = new byte[64 * 1024];
      try {
        while (written < 2L * PlanPartRequest.MAX_BODY) {
          out.write(chunk);
          written += chunk.length;
        }
      } catch (IOException reset) {
        // the agent closed the connection without reading the body
      }
      assertTrue(written < 2L * PlanPartRequest.MAX_BODY, "the agent took all " + written + " bytes of the body");
    }
  }

  /** Connections that each send one byte every 3 s, and connect again when the agent cut them. */
  private static final class Tricklers implements AutoCloseable {
    private final InetSocketAddress agent;
    private final Socket[] sockets;
    private final AtomicInteger cut = new AtomicInteger();
    private final AtomicInteger rounds = new AtomicInteger();
    private final Thread thread;
    private volatile boolean done;

    Tricklers(InetSocketAddress agent, int count) {
      this.agent = agent;
      this.sockets = new Socket[count];
      thread = new Thread(this::run, "tricklers");
      thread.setDaemon(true);
      thread.start();
    }

    private void run() {
      while (!done) {
        for (int i = 0; i < sockets.length && !done; i++) {
          try {
            if (sockets[i] == null) {
              sockets[i] = new Socket();
              sockets[i].connect(agent, 2000);
              sockets[i].setSoTimeout(1);
            } else if (closedByAgent(sockets[i])) {
              throw new IOException("cut");
            }
            OutputStream out = sockets[i].getOutputStream();
            out.write(0x45); // the first byte of a part request's magic, and never the next
            out.flush();
          } catch (IOException e) {
            cut.incrementAndGet();
            closeQuietly(sockets[i]);
            sockets[i] = null;
          }
        }
        synchronized (rounds) {
          rounds.incrementAndGet();
          rounds.notifyAll();
        }
        try {
          Thread.sleep(3_000);
        } catch (InterruptedException e) {
          return;
        }
      }
    }

    /** Whether the agent closed {@code s} (the agent never sends a trickler anything). */
    private static boolean closedByAgent(Socket s) {
      try {
        return s.getInputStream().read() < 0;
      } catch (java.net.SocketTimeoutException open) {
        return false;
      } catch (IOException reset) {
        return true;
      }
    }

    int cut() {
      return cut.get();
    }

    int rounds() {
      return rounds.get();
    }

    /** Waits until the tricklers went through all their connections {@code n} times. */
    void awaitRounds(int n, long timeoutMillis) throws InterruptedException {
      long end = System.currentTimeMillis() + timeoutMillis;
      synchronized (rounds) {
        while (rounds.get() < n) {
          long left = end - System.currentTimeMillis();
          if (left <= 0) {
            throw new AssertionError("the tricklers did only " + rounds.get() + " of " + n + " rounds");
          }
          rounds.wait(left);
        }
      }
    }

    private static void closeQuietly(Socket s) {
      try {
        if (s != null) {
          s.close();
        }
      } catch (IOException ignored) {
        // closing
      }
    }

    @Override
    public void close() throws InterruptedException {
      done = true;
      thread.interrupt();
      thread.join(10_000);
      for (Socket s : sockets) {
        closeQuietly(s);
      }
    }
  }
}
