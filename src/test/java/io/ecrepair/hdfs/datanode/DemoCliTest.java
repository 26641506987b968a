package io.ecrepair.hdfs.datanode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ecrepair.cli.EcRepairCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** {@code ec-repair demo} end to end on small policies, its JSON, and bad input; the plugin outside a DataNode. */
class DemoCliTest {
  record Run(int code, String out, String err) {}

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = EcRepairCli.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  void demoRebuildsAndVerifiesEachPolicy() throws Exception {
    Run r = run("demo", "--policy", "CLAY-5-3-64k,RS-6-3-64k", "--cells-per-block", "4", "--json");
    assertEquals(0, r.code(), r.err() + r.out());
    JsonNode j = new ObjectMapper().readTree(r.out());
    assertEquals(2, j.get("policies").size());
    for (JsonNode p : j.get("policies")) {
      assertTrue(p.get("fileVerified").asBoolean(), p.toString());
      // Block 0 read through the client FileSystem right after its DataNode stopped: CLAY-5-3 rebuilds
      // each cell from d/q = 7/3 cells' worth of sub-chunks (ec-repair's client), RS-6-3 from k = 6 (HDFS).
      assertEquals(1, p.get("degradedReads").size(), p.toString());
      JsonNode read = p.get("degradedReads").get(0);
      boolean ours = p.get("policy").asText().startsWith("CLAY");
      assertTrue(read.get("verified").asBoolean(), read.toString());
      assertEquals(ours ? "ec-repair" : "hdfs", read.get("path").asText());
      assertTrue(read.get("bytesReturned").asLong() > 0, read.toString());
      assertEquals(ours ? 7.0 / 3 : 6.0, read.get("fetchedPerReturned").asDouble(), 0.01, read.toString());
      assertEquals(read.get("bytesReturned").asLong(), read.get("healthyBytesFetched").asLong(), read.toString());
      if (ours) {
        assertTrue(read.get("cellsRebuilt").asLong() > 0, read.toString());
      }
      assertTrue(p.get("repairs").size() >= 1, p.toString());
      for (JsonNode repair : p.get("repairs")) {
        assertTrue(repair.get("verified").asBoolean(), repair.toString());
        for (String field : new String[] {"lostIndex", "bytesRead", "blockBytes", "seconds"}) {
          assertTrue(repair.has(field), field);
        }
        boolean clay = p.get("policy").asText().startsWith("CLAY");
        assertEquals(clay ? "ec-repair" : "hdfs", repair.get("engine").asText());
        double blocks = repair.get("bytesRead").asDouble() / repair.get("blockBytes").asDouble();
        // CLAY-5-3 reads d/q = 7/3 blocks; HDFS's RS-6-3 reads k = 6.
        assertEquals(clay ? 7.0 / 3 : 6.0, blocks, clay ? 0.01 : 1e-9, repair.toString());
      }
    }
  }

  @Test
  void demoRefusesBadInputWithOneLine() {
    Run r = run("demo", "--cells-per-block", "0", "--policy", "CLAY-5-3-64k");
    assertNotEquals(0, r.code());
    assertEquals("", r.out());
    assertEquals(1, r.err().strip().split("\n").length, r.err());
    Run unknown = run("demo", "--policy", "NOPE-1-1-64k");
    assertNotEquals(0, unknown.code());
    assertEquals(1, unknown.err().strip().split("\n").length, unknown.err());
  }

  @Test
  void benchReconstructionHasHelp() {
    Run r = run("bench", "reconstruction", "--help");
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("--read-bandwidth"), r.out());
  }

  @Test
  void benchDegradedReadHasHelp() {
    Run r = run("bench", "degraded-read", "--help");
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("--cells-per-block"), r.out());
  }

  @Test
  void pluginRefusesToStartOutsideADataNode() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new EcRepairDataNodePlugin().start("not a DataNode"));
    assertTrue(e.getMessage().contains("dfs.datanode.plugins"), e.getMessage());
  }
}
