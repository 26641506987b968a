package io.ecrepair.cli;

import static io.ecrepair.cli.EcRepairCliTest.assertOneLineError;
import static io.ecrepair.cli.EcRepairCliTest.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

class RacksCommandTest {

  @Test
  void showsThePlacementAndItsCrossRackBandwidth() throws Exception {
    EcRepairCliTest.Run r = run("racks", "--policy", "LRC-L2-10-4-1024k", "--json");
    assertEquals(0, r.code(), r.err());
    JsonNode j = r.json();
    assertEquals(3, j.get("perRack").asInt());
    assertEquals(3, j.get("faultTolerance").get("blocks").asInt());
    int placed = 0;
    for (JsonNode rack : j.get("racks")) {
      assertTrue(rack.size() <= 3, rack.toString());
      placed += rack.size();
    }
    assertEquals(14, placed);
    assertEquals(5, j.get("fewestRacks").asInt(), "3+3, 3+3 and the 2 global parities: no rack can share");
    JsonNode data0 = j.get("blocks").get(0);
    assertEquals("data", data0.get("kind").asText());
    assertEquals(1, data0.get("crossRackBlocks").asInt(), "groups of 6 on 2 racks: one partial sum crosses");
    assertEquals(5, data0.get("spreadCrossRackBlocks").asInt());

    EcRepairCliTest.Run text = run("racks", "--policy", "LRC-L2-10-4-1024k", "--per-rack", "2");
    assertEquals(0, text.code(), text.err());
    assertTrue(text.out().contains("at most 2 per rack"), text.out());
    EcRepairCliTest.Run lrc12 = run("racks", "--policy", "LRC-L2-12-4-1024k");
    assertTrue(lrc12.out().contains("fits on 6 racks"), "the two local parities share a rack: " + lrc12.out());
  }

  @Test
  void showsTopologyLocalityForAnMdsPolicy() throws Exception {
    EcRepairCliTest.Run r = run("racks", "--policy", "RS-10-4-1024k", "--json");
    assertEquals(0, r.code(), r.err());
    JsonNode j = r.json();
    assertEquals("topology", j.get("locality").asText());
    assertEquals(4, j.get("fewestRacks").asInt(), "4+4+4+2");
    JsonNode data0 = j.get("blocks").get(0);
    assertEquals(2, data0.get("crossRackBlocks").asInt(), "3 rack-mates, one sum from each of two full racks");
    assertEquals(10, data0.get("spreadCrossRackBlocks").asInt());
    assertEquals("parity", j.get("blocks").get(13).get("kind").asText());
    EcRepairCliTest.Run text = run("racks", "--policy", "CLAY-6-3-1024k");
    assertEquals(0, text.code(), text.err());
    assertTrue(text.out().contains("ecrepair.namenode.topology-locality.policies"), text.out());
  }

  @Test
  void searchesTheParameters() throws Exception {
    EcRepairCliTest.Run r = run("racks", "--search", "--k", "10", "--faults", "3", "--max-overhead", "1.6", "--json");
    assertEquals(0, r.code(), r.err());
    assertEquals("LRC-L3-10-5-1024k", r.json().get("best").asText());
    assertEquals(4, r.json().get("choices").size());
  }

  @Test
  void badInputIsOneLine() {
    assertOneLineError(run("racks", "--policy", "RS-10-4-1024k", "--per-rack", "5"), "at most 4 blocks");
    assertOneLineError(run("racks", "--policy", "LRC-L2-12-4-1024k", "--per-rack", "4"), "at most 3 blocks");
    assertOneLineError(run("racks"), "--policy");
    assertOneLineError(run("racks", "--search", "--k", "10"), "--search needs");
    assertOneLineError(run("racks", "--search", "--k", "13", "--faults", "3", "--max-overhead", "1.1"), "no LRC");
  }
}
