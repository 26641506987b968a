package io.ecrepair.hdfs.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The client's agent-read timeouts against HDFS's socket timeout. */
class AgentReadsSettingsTest {
  @Test
  void timeoutsStayWithinTheSocketTimeoutWhenThereIsOne() {
    assertEquals(10_000, AgentReads.atMostSocketTimeout(10_000, 60_000));
    assertEquals(3_000, AgentReads.atMostSocketTimeout(10_000, 3_000));
    // dfs.client.socket-timeout 0 means no timeout: the agents' stall and connect limits stand.
    assertEquals(10_000, AgentReads.atMostSocketTimeout(10_000, 0));
  }
}
