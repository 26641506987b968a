package io.ecrepair.hdfs.agent;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.exec.NodePart;
import io.ecrepair.exec.SliceGeometry;
import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.hdfs.datanode.EcRepairDataNodePlugin;
import io.ecrepair.hdfs.datanode.RepairCluster;
import io.ecrepair.hdfs.task.DataNodeKeys;
import io.ecrepair.hdfs.task.ReconstructionLog;
import io.ecrepair.hdfs.task.TaskReport;
import io.ecrepair.testing.ClusterTest;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSClient;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.security.token.Token;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * On a Kerberos cluster with {@code dfs.data.transfer.protection=integrity}, where a part's
 * session id and its peers are readable on the wire (a test hook stands in for the observer), a
 * client holding an ordinary READ token of the file attaches to every session of a parallel Clay
 * repair as one of its senders before the real one, through the DataNodes' own SASL handshake,
 * and sends frames of wrong bytes with valid checksums. The agent asks it to prove it is the
 * DataNode the plan names, which only a holder of the block keys can, and refuses it: the real
 * senders attach, the parallel repair runs to its end and every rebuilt block equals the
 * original. Without that proof the injector was taken as the sender, the real one refused, and
 * the repair could only fall back.
 */
@ClusterTest
class KerberosSenderInjectionTest {
  private static final int CELL = 64 * 1024;

  @RegisterExtension
  static final SecureCluster secure = new SecureCluster();

  @Test
  void aClientCannotAttachAsASenderUnderIntegrity() throws Exception {
    ReconstructionLog.clear();
    RepairCatalog.searchParallelPlans(new CodeSpec("clay", 4, 2));
    Configuration conf = secure.conf("integrity");
    conf.setInt(DataNodeKeys.AGENT_PORT_OFFSET_KEY, 7);
    conf.setBoolean(DataNodeKeys.PARALLEL_KEY, true);
    // Every task weighs the plans (none runs centrally as its DataNode's share), so parallel repairs run.
    conf.setBoolean(DataNodeKeys.CENTRAL_SHARE_KEY, false);
    try (RepairCluster c = new RepairCluster(secure.dir("dfs"), 8, "clay", 4, 2, CELL, 4, conf)) {
      org.apache.hadoop.fs.Path file = c.write("f", 4 * 4 * CELL, 13);
      c.awaitHealthy();
      LocatedStripedBlock group = HostileRequests.firstGroup(c, file);
      Token<BlockTokenIdentifier> token = group.getBlockTokens()[2]; // a reader's token of the group
      Injector injector = new Injector(c, c.fs.getClient(), token);
      ReadFaults.set(injector);
      List<TaskReport> reports;
      try {
        reports = c.loseAndVerify(c.holder(file, 0, 0)); // every internal block and the file, byte for byte
      } finally {
        ReadFaults.set(null);
      }
      assertTrue(reports.stream().anyMatch(r -> r.route().equals("parallel")), "a parallel repair ran: " + reports);
      assertTrue(injector.reachedProof.get() > 0, "the injector's streams reached a session that expects its sender");
      long refused = 0;
      for (DataNode dn : c.cluster.getDataNodes()) {
        refused += EcRepairDataNodePlugin.streamsRefused(dn);
      }
      assertTrue(refused >= injector.reachedProof.get(), refused + " streams refused for "
          + injector.reachedProof.get() + " that asked");
    }
  }

  /**
   * For each session opened, attaches as its first sender: the DataNodes' SASL handshake with its
   * READ token, the stream's opening, the best proof it can make (keyed by its token's password,
   * in the name the plan gives that sender), then that sender's frames, every one of them of the
   * right length with a valid checksum and wrong bytes.
   */
  private static final class Injector implements ReadFaults.Hook {
    final AtomicInteger reachedProof = new AtomicInteger();
    private final RepairCluster cluster;
    private final DFSClient client;
    private final Token<BlockTokenIdentifier> token;

    Injector(RepairCluster cluster, DFSClient client, Token<BlockTokenIdentifier> token) {
      this.cluster = cluster;
      this.client = client;
      this.token = token;
    }

    @Override
    public void sessionOpened(String datanode, long hi, long lo, NodePart part, SliceGeometry geometry,
                              Map<Integer, String> senders) {
      if (part.inbound().isEmpty()) {
        return;
      }
      int from = part.inbound().get(0).peer();
      int port = Integer.parseInt(datanode.substring(datanode.lastIndexOf(':') + 1));
      InetSocketAddress agent = new InetSocketAddress("127.0.0.1", port + 7);
      CountDownLatch attached = new CountDownLatch(1);
      Thread t = new Thread(() -> inject(agent, hi, lo, from, senders.get(from), part, geometry, attached),
          "injector");
      t.setDaemon(true);
      t.start();
      try {
        attached.await(5, TimeUnit.SECONDS); // before the coordinator says GO to the real sender
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    private void inject(InetSocketAddress agent, long hi, long lo, int from, String senderId, NodePart part,
                        SliceGeometry geometry, CountDownLatch attached) {
      try (AgentChannels.Channel c = AgentChannels.clientDialer(client, token).dial(agent, 5000, 10_000, 0)) {
        DataOutputStream out = new DataOutputStream(new BufferedOutputStream(c.out(), 64 * 1024));
        DataInputStream in = new DataInputStream(new BufferedInputStream(c.in()));
        out.writeInt(PlanFrames.STREAM_MAGIC);
        out.writeInt(PlanFrames.VERSION);
        out.writeLong(hi);
        out.writeLong(lo);
        out.writeInt(from);
        AgentProof.Challenge mine = AgentProof.Challenge.of(token);
        mine.write(out);
        out.flush();
        int proof = in.readInt();
        in.readFully(new byte[proof]);
        String receiver = in.readUTF();
        reachedProof.incrementAndGet();
        AgentProof.Received theirs = AgentProof.Received.read(in);
        byte[] mac = AgentProof.mac(token.getPassword(), AgentProof.Purpose.SEND, senderId, theirs.nonce(),
            AgentProof.aboutStream(hi, lo, from, receiver, mine.nonce()));
        out.writeInt(mac.length);
        out.write(mac);
        out.writeUTF(senderId);
        out.flush();
        attached.countDown();
        for (int t = 0; t < geometry.count(); t++) {
          for (NodePart.Group g : part.inbound()) {
            if (g.peer() == from) {
              byte[] wrong = new byte[g.vertices().length * geometry.length(t)];
              Arrays.fill(wrong, (byte) 0x5a);
              PlanFrames.writeFrame(out, wrong, wrong.length, PlanFrames.crc(wrong, 0, wrong.length));
            }
          }
        }
        PlanFrames.writeEnd(out);
      } catch (IOException e) {
        // refused: the agent closed the stream
      } finally {
        attached.countDown();
      }
    }
  }
}
