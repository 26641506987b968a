package io.ecrepair.bench.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;

/**
 * Who rebuilt the blocks: reconstruction task counters from a DataNode's JMX servlet. HDFS's
 * {@code EcReconstructionTasks} counts every task; the plugin's {@code Tasks} those it ran
 * itself, so the difference ran through HDFS's stock reconstruction; and the CPU time each
 * DataNode's JVM spent. Bytes are never taken from here: the benchmark counts them on the
 * network interfaces.
 */
final class DataNodeJmx {
  /**
   * Task counts: all EC reconstruction tasks, those our plugin ran, those of them that ran
   * parallel plans, and the plugin's tasks' time together (ms, each task's own: the NameNode's
   * scheduling delay is not in it).
   */
  record Tasks(long all, long plugin, long parallel, long pluginMillis) {
    Tasks(long all, long plugin) {
      this(all, plugin, 0, 0);
    }

    Tasks minus(Tasks o) {
      return new Tasks(all - o.all, plugin - o.plugin, parallel - o.parallel, pluginMillis - o.pluginMillis);
    }

    Tasks plus(Tasks o) {
      return new Tasks(all + o.all, plugin + o.plugin, parallel + o.parallel, pluginMillis + o.pluginMillis);
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int TRIES = 3;
  private static final int READ_TIMEOUT_MS = 10_000;

  private DataNodeJmx() {}

  static Tasks tasks(String ip) throws IOException {
    long all = counter(ip, "DataNodeActivity-*", "EcReconstructionTasks");
    long plugin = counter(ip, "EcRepairReconstruction-*", "Tasks");
    long parallel = counter(ip, "EcRepairReconstruction-*", "ParallelTasks");
    long millis = counter(ip, "EcRepairReconstruction-*", "TimeMillis");
    return new Tasks(all, Math.max(0, plugin), Math.max(0, parallel), Math.max(0, millis));
  }

  /**
   * CPU seconds the DataNode's JVM has spent, by its own accounting (the JVM's
   * {@code ProcessCpuTime}): what its threads cost, whatever else runs on the host.
   */
  static double cpuSeconds(String ip) throws IOException {
    long nanos = attribute(ip, "java.lang:type=OperatingSystem", "ProcessCpuTime");
    if (nanos < 0) {
      throw new IOException("the DataNode at " + ip + " does not report its JVM's CPU time");
    }
    return nanos / 1e9;
  }

  /** One numeric attribute of the first bean matching the name pattern; -1 when there is none. */
  private static long counter(String ip, String beanName, String attribute) throws IOException {
    return attribute(ip, "Hadoop:service=DataNode,name=" + beanName, attribute);
  }

  /**
   * Asked up to {@link #TRIES} times: on this host 17 DataNode JVMs share two cores, and one
   * that just restarted (JIT, block reports) can leave its web server silent for seconds; a
   * benchmark of many minutes should not end on one slow answer.
   */
  private static long attribute(String ip, String query, String attribute) throws IOException {
    return attribute(new URL("http://" + ip + ":9864/jmx?qry=" + query), attribute, READ_TIMEOUT_MS);
  }

  static long attribute(URL url, String attribute, int readTimeoutMs) throws IOException {
    IOException last = null;
    for (int attempt = 1; attempt <= TRIES; attempt++) {
      try {
        return attributeOnce(url, attribute, readTimeoutMs);
      } catch (IOException e) {
        last = e;
      }
    }
    throw new IOException("the DataNode at " + url.getHost() + " did not tell its " + attribute + " (" + TRIES
        + " tries of " + readTimeoutMs + " ms each; last: " + last + ")", last);
  }

  private static long attributeOnce(URL url, String attribute, int readTimeoutMs) throws IOException {
    HttpURLConnection c = (HttpURLConnection) url.openConnection();
    c.setConnectTimeout(5000);
    c.setReadTimeout(readTimeoutMs);
    try (InputStream in = c.getInputStream()) {
      JsonNode beans = JSON.readTree(in).path("beans");
      for (JsonNode b : beans) {
        if (b.has(attribute)) {
          return b.get(attribute).asLong();
        }
      }
      return -1;
    } finally {
      c.disconnect();
    }
  }
}
