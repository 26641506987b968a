package io.ecrepair.hdfs.client;

import io.ecrepair.hdfs.NodeCosts;
import io.ecrepair.plan.MeasuredCosts;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;

/**
 * The DataNode costs this client JVM has measured, one store for all its FileSystems and
 * streams (what one stream learns about a slow DataNode, the next read uses), with the
 * half-life of the first configuration that asks for it.
 */
final class ClientCosts {
  private static MeasuredCosts measured;

  private ClientCosts() {}

  static synchronized MeasuredCosts measured(Configuration conf) {
    if (measured == null) {
      measured = NodeCosts.newMeasured(conf);
    }
    return measured;
  }

  /** Forgets what was measured (tests: the next FileSystem starts a new store). */
  static synchronized void forget() {
    measured = null;
  }

  /** Measured factors above 1, by DataNode transfer address (for the metrics). */
  static Map<String, Double> slowNodes() {
    MeasuredCosts m;
    synchronized (ClientCosts.class) {
      m = measured;
    }
    return m == null ? Map.of() : m.slowNodes();
  }
}
