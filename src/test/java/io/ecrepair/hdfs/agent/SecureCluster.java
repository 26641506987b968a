package io.ecrepair.hdfs.agent;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.http.HttpConfig;
import org.apache.hadoop.minikdc.MiniKdc;
import org.apache.hadoop.security.SecurityUtil;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.ssl.KeyStoreTestUtil;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A Kerberos realm (MiniKdc) and the settings of a cluster secured as production clusters are:
 * principals and keytabs, block tokens, SASL data transfer protection, HTTPS. Registered as a
 * test class's extension, it starts before the class's tests and stops after them. Kerberos
 * settings are process-wide in Hadoop: a test class using this runs in a JVM of its own.
 */
final class SecureCluster implements BeforeAllCallback, AfterAllCallback {
  private Path dir;
  private MiniKdc kdc;
  private String principal;
  private String keytab;
  private String spnego;
  private String sslConfDir;

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    dir = Files.createTempDirectory("ec-repair-kdc");
    Properties kdcConf = MiniKdc.createConf();
    kdc = new MiniKdc(kdcConf, dir.toFile());
    kdc.start();
    File keytabFile = dir.resolve("hdfs.keytab").toFile();
    kdc.createPrincipal(keytabFile, "hdfs/localhost", "HTTP/localhost");
    principal = "hdfs/localhost@" + kdc.getRealm();
    spnego = "HTTP/localhost@" + kdc.getRealm();
    keytab = keytabFile.getAbsolutePath();
  }

  /** A directory for the cluster's files, removed with the realm's. */
  File dir(String name) {
    return dir.resolve(name).toFile();
  }

  /** The settings of a cluster whose data transfer has SASL {@code protection}, logged in as its principal. */
  Configuration conf(String protection) throws Exception {
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
    sslConfDir = KeyStoreTestUtil.getClasspathDir(SecureCluster.class);
    KeyStoreTestUtil.setupSSLConfig(dir.toString(), sslConfDir, ssl, false);
    ssl.forEach(e -> c.set(e.getKey(), e.getValue()));
    c.set(DFSConfigKeys.DFS_CLIENT_HTTPS_KEYSTORE_RESOURCE_KEY, KeyStoreTestUtil.getClientSSLConfigFileName());
    c.set(DFSConfigKeys.DFS_SERVER_HTTPS_KEYSTORE_RESOURCE_KEY, KeyStoreTestUtil.getServerSSLConfigFileName());
    UserGroupInformation.setConfiguration(c);
    UserGroupInformation.loginUserFromKeytab(principal, keytab);
    return c;
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    ReadFaults.set(null);
    if (kdc != null) {
      kdc.stop();
    }
    if (sslConfDir != null) {
      KeyStoreTestUtil.cleanupSSLConfig(dir.toString(), sslConfDir);
    }
    UserGroupInformation.reset();
    FileUtil.fullyDelete(dir.toFile());
  }
}
