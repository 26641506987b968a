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
import java.io.File;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.http.HttpConfig;
import org.apache.hadoop.io.IOUtils;
import org.apache.hadoop.minikdc.MiniKdc;
import org.apache.hadoop.security.SecurityUtil;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.ssl.KeyStoreTestUtil;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Kerberos cluster (MiniKdc) whose data transfer is SASL-protected with {@code privacy}, as
 * secured production clusters run: the repair agents start, a parallel Clay repair runs through
 * them (parts, value streams and probes all over the DataNodes' own SASL handshake, encrypted)
 * and rebuilds every block byte for byte, a degraded read through our client returns the
 * file's bytes, and so does one that the agents rebuild with the client as the requestor; a request to an agent without the handshake gets no bytes. Runs in a JVM of its
 * own (Kerberos settings are process-wide in Hadoop).
 */
class KerberosAgentsTest {
  private static final int CELL = 64 * 1024;

  @TempDir
  static Path kdcDir;

  private static MiniKdc kdc;
  private static String principal;
  private static String keytab;
  private static String spnego;
  private static String sslConfDir;

  @BeforeAll
  static void startKdc() throws Exception {
    Properties kdcConf = MiniKdc.createConf();
    kdc = new MiniKdc(kdcConf, kdcDir.toFile());
    kdc.start();
    File keytabFile = kdcDir.resolve("hdfs.keytab").toFile();
    kdc.createPrincipal(keytabFile, "hdfs/localhost", "HTTP/localhost");
    principal = "hdfs/localhost@" + kdc.getRealm();
    spnego = "HTTP/localhost@" + kdc.getRealm();
    keytab = keytabFile.getAbsolutePath();
  }

  @AfterAll
  static void stopKdc() throws Exception {
    if (kdc != null) {
      kdc.stop();
    }
    if (sslConfDir != null) {
      KeyStoreTestUtil.cleanupSSLConfig(kdcDir.toString(), sslConfDir);
    }
    UserGroupInformation.reset();
  }

  /** What a Kerberos cluster with SASL data transfer protection needs: principals, tokens, HTTPS. */
  private static Configuration secure(String protection) throws Exception {
    Configuration c = new Configuration(false);
    SecurityUtil.setAuthenticationMethod(UserGroupInformation.AuthenticationMethod.KERBEROS, c);
    c.set(DFSConfigKeys.DFS_NAMENODE_KERBEROS_PRINCIPAL_KEY, principal);
    c.set(DFSConfigKeys.DFS_NAMENODE_KEYTAB_FILE_KEY, keytab);
    c.set(DFSConfigKeys.DFS_DATANODE_KERBEROS_PRINCIPAL_KEY, principal);
    c.set(DFSConfigKeys.DFS_DATANODE_KEYTAB_FILE_KEY, keytab);
    c.set(DFSConfigKeys.DFS_WEB_AUTHENTICATION_KERBEROS_PRINCIPAL_KEY, spnego);
    c.setBoolean(DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY, true);
    c.set(DFSConfigKeys.DFS_DATA_TRANSFER_PROTECTION_KEY, protection);
    c.set(DFSConfigKeys.DFS_HTTP_POLICY_KEY, HttpConfig.Policy.HTTPS_ONLY.name());
    c.set(DFSConfigKeys.DFS_NAMENODE_HTTPS_ADDRESS_KEY, "localhost:0");
    c.set(DFSConfigKeys.DFS_DATANODE_HTTPS_ADDRESS_KEY, "localhost:0");
    Configuration ssl = new Configuration(false);
    sslConfDir = KeyStoreTestUtil.getClasspathDir(KerberosAgentsTest.class);
    KeyStoreTestUtil.setupSSLConfig(kdcDir.toString(), sslConfDir, ssl, false);
    ssl.forEach(e -> c.set(e.getKey(), e.getValue()));
    c.set(DFSConfigKeys.DFS_CLIENT_HTTPS_KEYSTORE_RESOURCE_KEY, KeyStoreTestUtil.getClientSSLConfigFileName());
    c.set(DFSConfigKeys.DFS_SERVER_HTTPS_KEYSTORE_RESOURCE_KEY, KeyStoreTestUtil.getServerSSLConfigFileName());
    UserGroupInformation.setConfiguration(c);
    UserGroupInformation.loginUserFromKeytab(principal, keytab);
    return c;
  }

  @Test
  void aRepairAndADegradedReadRunThroughTheAgentsWithPrivacy() throws Exception {
    ReconstructionLog.clear();
    RepairCatalog.searchParallelPlans(new CodeSpec("clay", 4, 2));
    Configuration conf = secure("privacy");
    conf.setInt(DataNodeKeys.AGENT_PORT_OFFSET_KEY, 7);
    conf.setBoolean(DataNodeKeys.PARALLEL_KEY, true);
    try (RepairCluster c = new RepairCluster(kdcDir.resolve("dfs").toFile(), 8, "clay", 4, 2, CELL, 4, conf)) {
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
