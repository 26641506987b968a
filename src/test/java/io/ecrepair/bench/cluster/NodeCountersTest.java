package io.ecrepair.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class NodeCountersTest {
  @Test
  void differenceOfTwoReadings() {
    NodeCounters a = NodeCounters.parse("nn 10 20\nclient 0 0\ndn0 100 200\ndn1 1000 50\n");
    NodeCounters b = NodeCounters.parse("nn 15 20\nclient 7 1\ndn0 150 900\ndn1 4000 60\ndn2 5 5\n");
    NodeCounters d = b.since(a);
    assertEquals(new NodeCounters.Bytes(50, 700), d.get("dn0"));
    assertEquals(new NodeCounters.Bytes(3000, 10), d.get("dn1"));
    assertEquals(List.of("nn", "client", "dn0", "dn1"), List.copyOf(d.nodes().keySet()), "only nodes read twice");
    assertEquals(new NodeCounters.Bytes(3050, 710), d.dataNodeTotal(), "DataNodes only");
  }

  @Test
  void lowerEffortBytesOnPriorityLinks() {
    NodeCounters a = NodeCounters.parse("client 0 0 0\ndn0 100 200 50\ndn1 1000 50 0\nrack1 5 5\n");
    NodeCounters b = NodeCounters.parse("client 9 900 0\ndn0 150 1200 800\ndn1 4000 1050 250\nrack1 9 9\n");
    NodeCounters d = b.since(a);
    assertEquals(new NodeCounters.Bytes(50, 1000, 750), d.get("dn0"));
    assertEquals(-1, d.get("rack1").lowerEffortTx(), "a leg that does not tell it apart");
    assertEquals(-1, NodeCounters.parse("dn0 9 9 1\n").since(NodeCounters.parse("dn0 1 1 5\n")).get("dn0")
        .lowerEffortTx(), "a counter reset by reshaping the link is unknown, not negative");
    // 750 + 250 of the 2000 bytes the DataNodes sent; the client's are not a DataNode's
    assertEquals(0.5, NodeCounters.lowerEffortShare(d.nodes()), 1e-9);
    assertEquals(Double.NaN, NodeCounters.lowerEffortShare(NodeCounters.parse("dn0 1 2\n").nodes()));
    assertEquals(Double.NaN, NodeCounters.lowerEffortShare(NodeCounters.parse("dn0 1 2 1\ndn1 1 2\n").nodes()));
  }

  @Test
  void rejectsMalformedLines() {
    assertThrows(IllegalArgumentException.class, () -> NodeCounters.parse("dn0 12"));
    assertThrows(IllegalArgumentException.class, () -> NodeCounters.parse("dn0 12 x"));
    assertThrows(IllegalArgumentException.class, () -> NodeCounters.parse("dn0 1 2 3 4"));
    assertThrows(IllegalArgumentException.class, () -> NodeCounters.parse("dn0 1 2").get("dn1"));
  }
}
