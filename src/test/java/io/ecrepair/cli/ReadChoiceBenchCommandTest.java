package io.ecrepair.cli;

import static io.ecrepair.cli.EcRepairCliTest.assertOneLineError;
import static io.ecrepair.cli.EcRepairCliTest.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

class ReadChoiceBenchCommandTest {

  @Test
  void comparesEgWithTheExhaustiveSearchAndTheCodesChoice() throws Exception {
    EcRepairCliTest.Run r = run("bench", "read-choice", "--policy", "RS-6-3-1024k,LRC-L2-12-4-1024k", "--trials", "3",
        "--json");
    assertEquals(0, r.code(), r.err());
    JsonNode results = r.json().get("results");
    assertEquals(4, results.size(), "one and two lost blocks per policy");
    for (JsonNode row : results) {
      assertEquals("read-choice", row.get("suite").asText());
      assertTrue(row.get("egOverOptimal").asDouble() >= 1.0 - 1e-9, row.toString());
      assertTrue(row.get("basicOverEg").asDouble() >= 1.0 - 1e-9, "EG is never slower than the code's choice: " + row);
      assertTrue(row.get("egMicros").asDouble() > 0);
    }
    assertEquals(1.0, results.get(0).get("egOverOptimal").asDouble(), 1e-9, "one lost block: EG is optimal");
  }

  @Test
  void badInputIsOneLine() {
    assertOneLineError(run("bench", "read-choice", "--trials", "0"), "at least 1");
    assertOneLineError(run("bench", "read-choice", "--policy", "NOPE-1-1-1k"), "unknown codec");
  }
}
