package io.ecrepair.hdfs.datanode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.hdfs.client.ClientMetrics;
import io.ecrepair.hdfs.task.ReconstructionMetrics;
import io.ecrepair.testing.ClusterTest;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The plugin's metrics as an operator scrapes them: every counter of the README's metrics
 * table is on the DataNode's JMX servlet and on Hadoop's Prometheus endpoint
 * ({@code hadoop.prometheus.endpoint.enabled}), and every metric the plugin publishes is in
 * that table.
 */
@ClusterTest
class MetricsEndpointsTest {
  @TempDir
  Path tmp;

  @Test
  void everyDocumentedMetricIsOnJmxAndPrometheus() throws Exception {
    List<String> documented = documentedMetrics("| DataNode metric |");
    List<String> client = documentedMetrics("| client metric |");
    assertTrue(client.size() >= 7, "the README's client metrics table: " + client);
    assertTrue(documented.size() >= 12, "the README's metrics table: " + documented);
    Configuration conf = new HdfsConfiguration();
    MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf, tmp.resolve("dfs").toFile()).numDataNodes(0).build();
    try {
      cluster.waitActive();
      // Only this DataNode serves /prom: the in-process daemons share one metrics system, which
      // takes one Prometheus sink.
      Configuration dn = new Configuration(cluster.getConfiguration(0));
      dn.set("dfs.datanode.plugins", EcRepairDataNodePlugin.class.getName());
      dn.setBoolean("hadoop.prometheus.endpoint.enabled", true);
      cluster.startDataNodes(dn, 1, true, null, null);
      cluster.waitActive();
      DataNode node = cluster.getDataNodes().get(0);
      String http = "http://localhost:" + node.getInfoPort();
      String source = EcRepairDataNodePlugin.metricsSourceName(node);

      String jmx = get(http + "/jmx?qry=Hadoop:service=DataNode,name=" + source);
      for (String m : documented) {
        assertTrue(jmx.contains("\"" + m + "\""), m + " on JMX: " + jmx);
      }
      awaitOnPrometheus(http, "ec_repair_reconstruction_", documented);
      // And nothing undocumented: every counter the source publishes is in the table.
      for (String published : new ReconstructionMetrics("x").snapshot().keySet()) {
        assertTrue(documented.contains(published), published + " is published but not in the README's table");
      }

      // The client's metrics: a client FileSystem in this JVM (whose metrics system runs) publishes them.
      Configuration clientConf = new Configuration(cluster.getConfiguration(0));
      clientConf.set("fs.hdfs.impl", io.ecrepair.hdfs.client.EcRepairDistributedFileSystem.class.getName());
      clientConf.setBoolean("fs.hdfs.impl.disable.cache", true);
      try (org.apache.hadoop.fs.FileSystem fs = org.apache.hadoop.fs.FileSystem.newInstance(cluster.getURI(),
          clientConf)) {
        assertTrue(fs instanceof io.ecrepair.hdfs.client.EcRepairDistributedFileSystem, fs.getClass().getName());
        String clientJmx = get(http + "/jmx?qry=Hadoop:service=*,name=" + ClientMetrics.SOURCE);
        for (String m : client) {
          assertTrue(clientJmx.contains("\"" + m + "\""), m + " on JMX: " + clientJmx);
        }
        awaitOnPrometheus(http, "ec_repair_degraded_reads_", client);
        assertEquals(client, List.copyOf(ClientMetrics.snapshot().keySet()), "published = documented");
      }
    } finally {
      cluster.shutdown();
    }
  }

  /** The metric names in the first column of the README's metrics table whose header starts so. */
  private static List<String> documentedMetrics(String header) throws Exception {
    String readme = Files.readString(Path.of("README.md"));
    int start = readme.indexOf(header);
    assertTrue(start >= 0, "the README has a table " + header);
    List<String> names = new ArrayList<>();
    Pattern row = Pattern.compile("^\\| `([A-Za-z]+)` \\|");
    for (String line : readme.substring(start).split("\n")) {
      if (!line.trim().startsWith("|")) {
        break; // the table ends
      }
      Matcher m = row.matcher(line.trim());
      if (m.find()) {
        names.add(m.group(1));
      }
    }
    return names;
  }

  /** Waits until {@code /prom} lists every metric, named {@code prefix} + its name in snake case. */
  private static void awaitOnPrometheus(String http, String prefix, List<String> metrics) throws Exception {
    Jmx.eventually("every documented " + prefix + " metric on /prom", () -> {
      String prom = get(http + "/prom");
      for (String m : metrics) {
        String name = prefix + snake(m);
        if (!prom.contains("\n" + name + "{") && !prom.startsWith(name + "{")) {
          return name + " missing";
        }
      }
      return null;
    });
  }

  /** Prometheus's names: CamelCase words joined by underscores, lower case. */
  private static String snake(String camel) {
    return camel.replaceAll("(?<=[a-z0-9])(?=[A-Z])", "_").toLowerCase(java.util.Locale.ROOT);
  }

  private static String get(String url) throws Exception {
    HttpURLConnection c = (HttpURLConnection) new URL(url).openConnection();
    c.setConnectTimeout(5000);
    c.setReadTimeout(10000);
    try (InputStream in = c.getInputStream()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } finally {
      c.disconnect();
    }
  }
}
