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
  void rejectsMalformedLines() {
    assertThrows(IllegalArgumentException.class, () -> NodeCounters.parse("dn0 12"));
    assertThrows(IllegalArgumentException.class, () -> NodeCounters.parse("dn0 12 x"));
    assertThrows(IllegalArgumentException.class, () -> NodeCounters.parse("dn0 1 2").get("dn1"));
  }
}
