package io.ecrepair.bench.thrash;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.util.HashMap;
import java.util.Map;

/** Numeric attributes of a daemon's JMX beans (its web servlet), first bean wins for a name. */
final class NodeCounters {
  private static final ObjectMapper JSON = new ObjectMapper();

  private NodeCounters() {}

  /** {@code query}: e.g. Hadoop:service=DataNode,name=* ; throws when the daemon does not answer in time. */
  static Map<String, Long> read(String hostPort, String query, int timeoutMs) throws IOException {
    URL url = new URL("http://" + hostPort + "/jmx?qry=" + query);
    HttpURLConnection c = (HttpURLConnection) url.openConnection();
    c.setConnectTimeout(timeoutMs);
    c.setReadTimeout(timeoutMs);
    Map<String, Long> out = new HashMap<>();
    try (InputStream in = c.getInputStream()) {
      for (JsonNode bean : JSON.readTree(in).path("beans")) {
        bean.fields().forEachRemaining(e -> {
          if (e.getValue().isIntegralNumber()) {
            out.putIfAbsent(e.getKey(), e.getValue().asLong());
          }
        });
      }
    } finally {
      c.disconnect();
    }
    return out;
  }
}
