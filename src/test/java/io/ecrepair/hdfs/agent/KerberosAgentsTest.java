package io.ecrepair.hdfs.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.hdfs.client.EcRepairDistributedFileSystem;
import io.ecrepair.hdfs.datanode.EcRepairDataNodePlugin;
import io.ecrepair.hdfs.datanode.RepairCluster;
import io.ecrepair.hdfs.task.DataNodeKeys;
import io.ecrepair.hdfs.task.ReconstructionLog;
import io.ecrepair.hdfs.task.TaskReport;
import io.ecrepair.testing.ClusterTest;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.io.IOUtils;
import org.apache.hadoop.security.UserGroupInformation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Kerberos cluster (MiniKdc) whose data transfer is SASL-protected with {@code privacy}, as
 * secured production clusters run: the repair agents start, a parallel Clay repair runs through
 * them (parts, value streams and probes all over the DataNodes' own SASL handshake, encrypted)
 * and rebuilds every block byte for byte, a degraded read through our client returns the
 * file's bytes, and so does one that the agents rebuild with the client as the requestor; a request to an agent without the handshake gets no bytes. Runs in a JVM of its
 * own (Kerberos settings are process-wide in Hadoop).
 */
@ClusterTest
class KerberosAgentsTest {
  private static final int CELL = 64 * 1024;

  @RegisterExtension
  static final SecureCluster secure = new SecureCluster();

  @Test
  void aRepairAndADegradedReadRunThroughTheAgentsWithPrivacy() throws Exception {
    ReconstructionLog.clear();
    RepairCatalog.searchParallelPlans(new CodeSpec("clay", 4, 2));
    Configuration conf = secure.conf("privacy");
    conf.setInt(DataNodeKeys.AGENT_PORT_OFFSET_KEY, 7);
    conf.setBoolean(DataNodeKeys.PARALLEL_KEY, true);
    // Every task weighs the plans (none runs centrally as its DataNode's share), so parallel repairs run.
    conf.setBoolean(DataNodeKeys.CENTRAL_SHARE_KEY, false);
    try (RepairCluster c = new RepairCluster(secure.dir("dfs"), 8, "clay", 4, 2, CELL, 4, conf)) {
      assertTrue(UserGroupInformation.isSecurityEnabled(), "the cluster runs with Kerberos");
      org.apache.hadoop.fs.Path file = c.write("f", 4 * 4 * CELL, 5);
      c.awaitHealthy();

      List<TaskReport> reports = c.loseAndVerify(c.holder(file, 0, 0)); // every block and the file, byte for byte
      assertTrue(reports.stream().anyMatch(r -> r.route().equals("parallel")), "a parallel repair ran: " + reports);
      long parts = 0;
      for (DataNode dn : c.cluster.getDataNodes()) {
        parts += EcRepairDataNodePlugin.partsServed(dn);
      }
      assertTrue(parts > 0, "the helpers' agents ran their parts");
      ProtectedAgentsTest.refusesPlainRequests(c, file);

      Configuration client = new Configuration(c.conf);
      client.set("fs.hdfs.impl", EcRepairDistributedFileSystem.class.getName());
      client.setBoolean("fs.hdfs.impl.disable.cache", true);
      byte[] expected = c.files.get(file);

      // A degraded read through the agents, the client the plan's requestor: its own SASL
      // handshake with each agent (privacy), its NameNode tokens, the agents' proofs.
      try (FileSystem ours = FileSystem.newInstance(c.fs.getUri(), client);
           FSDataInputStream in = ours.open(file)) {
        ((org.apache.hadoop.hdfs.EcRepairStripedInputStream) in.getWrappedStream()).markDead(c.holder(file, 0, 1));
        byte[] group = new byte[4 * 4 * CELL];
        in.readFully(0, group);
        assertArrayEquals(java.util.Arrays.copyOf(expected, group.length), group, "the agents' degraded read");
        io.ecrepair.hdfs.client.DegradedReadStats stats = io.ecrepair.hdfs.client.DegradedReadStats.of(in);
        assertTrue(stats.agentReads() == 1 && stats.agentFallbacks() == 0, "through the agents: " + stats);
      }

      // A degraded read: a data block's DataNode down, read through our client under privacy.
      c.stop(c.holder(file, 0, 1));
      byte[] back = new byte[expected.length];
      try (FileSystem ours = FileSystem.newInstance(c.fs.getUri(), client);
           FSDataInputStream in = ours.open(file)) {
        assertTrue(ours instanceof EcRepairDistributedFileSystem, ours.getClass().getName());
        IOUtils.readFully(in, back, 0, back.length);
      }
      assertArrayEquals(expected, back, "the degraded read's bytes");
    }
  }
}
