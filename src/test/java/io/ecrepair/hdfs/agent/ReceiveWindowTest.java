package io.ecrepair.hdfs.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Socket;
import org.junit.jupiter.api.Test;

/** Helper connections get the configured receive buffer before they connect; 0 leaves the system's default. */
class ReceiveWindowTest {
  @Test
  void smallWindowIsSetAndZeroLeavesTheDefault() throws Exception {
    try (Socket limited = new Socket(); Socket untouched = new Socket()) {
      int systemDefault = untouched.getReceiveBufferSize();
      DataNodeConnector.limitReceiveWindow(untouched, 0);
      assertEquals(systemDefault, untouched.getReceiveBufferSize(), "0 = autotuned, the socket is left alone");
      DataNodeConnector.limitReceiveWindow(limited, 16 * 1024);
      // Linux doubles the request for its bookkeeping; other systems keep it.
      int got = limited.getReceiveBufferSize();
      assertTrue(got >= 16 * 1024 && got <= 32 * 1024 && got != systemDefault, "receive buffer " + got);
    }
  }
}
