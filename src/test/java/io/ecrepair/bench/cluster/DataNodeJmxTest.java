package io.ecrepair.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DataNodeJmxTest {
  private HttpServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop(0);
    }
  }

  /** A servlet that stays silent for its first {@code silent} requests, then answers. */
  private URL servlet(int silent, AtomicInteger asked) throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    server.createContext("/jmx", ex -> {
      if (asked.incrementAndGet() <= silent) {
        try {
          Thread.sleep(2_000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        ex.close();
        return;
      }
      byte[] body = "{\"beans\":[{\"name\":\"x\",\"ProcessCpuTime\":4200}]}".getBytes(StandardCharsets.UTF_8);
      ex.sendResponseHeaders(200, body.length);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(body);
      }
    });
    server.start();
    return new URL("http://127.0.0.1:" + server.getAddress().getPort() + "/jmx?qry=x");
  }

  @Test
  void aSlowAnswerIsAskedAgain() throws IOException {
    AtomicInteger asked = new AtomicInteger();
    URL url = servlet(2, asked);
    assertEquals(4200, DataNodeJmx.attribute(url, "ProcessCpuTime", 300));
    assertEquals(3, asked.get());
  }

  @Test
  void aDataNodeThatNeverAnswersIsNamed() throws IOException {
    AtomicInteger asked = new AtomicInteger();
    URL url = servlet(Integer.MAX_VALUE, asked);
    IOException e = assertThrows(IOException.class, () -> DataNodeJmx.attribute(url, "ProcessCpuTime", 300));
    assertTrue(e.getMessage().contains("127.0.0.1") && e.getMessage().contains("ProcessCpuTime"), e.getMessage());
    assertEquals(3, asked.get());
  }
}
