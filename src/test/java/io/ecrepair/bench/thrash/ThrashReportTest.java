package io.ecrepair.bench.thrash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The end checks' verdict over synthetic results, the --json shape and the timeline PNG. */
class ThrashReportTest {
  static ThrashResult result(long lost, long wrong, List<String> wrongReplicas, List<String> notReplaced,
                             boolean fsck, long low, boolean resources, List<String> deaths) {
    return new ThrashResult(7, 10, 17, List.of("RS-6-3-64k", "CLAY-6-3-1024k"),
        Map.of("dn-kill", 9, "replica-corrupt", 5), 1, Map.of("parallel", 4L, "stock", 3L), 2,
        Map.of("degradedStreams", 6L), 120, 3, 20, 97, 1L << 30, 40, Map.of("ok", 300L), lost, wrong, 900,
        wrongReplicas, 5, 4, 1, notReplaced, 42.5, fsck, low, fsck && low == 0, resources,
        Map.of("all", "ok"), deaths, List.of(), "/tmp/x", List.of("1.0-20.0 s dn-kill dn3"));
  }

  @Test
  void aCleanRunPassesAndEachBrokenCheckFailsItAlone() {
    assertTrue(result(0, 0, List.of(), List.of(), true, 0, true, List.of()).passed());
    assertEquals(1, result(5, 0, List.of(), List.of(), true, 0, true, List.of()).failures().size());
    assertEquals(1, result(0, 1, List.of(), List.of(), true, 0, true, List.of()).failures().size());
    assertEquals(1, result(0, 0, List.of("x"), List.of(), true, 0, true, List.of()).failures().size());
    assertEquals(1, result(0, 0, List.of(), List.of("blk_1 on dn2"), true, 0, true, List.of()).failures().size());
    assertEquals(1, result(0, 0, List.of(), List.of(), false, 0, true, List.of()).failures().size());
    assertEquals(1, result(0, 0, List.of(), List.of(), true, 3, true, List.of()).failures().size());
    assertEquals(1, result(0, 0, List.of(), List.of(), true, 0, false, List.of()).failures().size());
    assertEquals(1, result(0, 0, List.of(), List.of(), true, 0, true, List.of("dn4")).failures().size());
  }

  @Test
  void jsonHasTheNamedFieldsAsNumbersAndBooleans() throws Exception {
    ThrashResult r = result(0, 0, List.of(), List.of(), true, 0, true, List.of());
    JsonNode j = new ObjectMapper().readTree(new ObjectMapper().writeValueAsString(ThrashReport.json(r,
        Path.of("t.png"))));
    assertTrue(j.get("seed").isIntegralNumber());
    assertEquals(9, j.get("faultsByKind").get("dn-kill").asInt());
    assertTrue(j.get("faultsByKind").get("replica-corrupt").isIntegralNumber());
    assertEquals(120, j.get("filesWritten").asInt());
    assertEquals(97, j.get("filesVerified").asInt());
    assertTrue(j.get("lostBytes").isIntegralNumber());
    assertTrue(j.get("wrongBytes").isIntegralNumber());
    assertTrue(j.get("settleSeconds").isNumber());
    assertTrue(j.get("healthyAfterSettle").isBoolean());
    assertTrue(j.get("healthyAfterSettle").asBoolean());
    assertTrue(j.get("resourcesBaseline").isBoolean());
    assertTrue(j.get("passed").asBoolean());
    assertEquals(14, j.get("faultsTotal").asInt());
    ThrashResult bad = result(0, 0, List.of(), List.of(), true, 2, true, List.of());
    JsonNode b = new ObjectMapper().readTree(new ObjectMapper().writeValueAsString(ThrashReport.json(bad, null)));
    assertFalse(b.get("healthyAfterSettle").asBoolean());
    assertFalse(b.get("passed").asBoolean());
    assertEquals(1, b.get("failures").size());
  }

  @Test
  void theTableNamesEveryFigure() {
    List<String[]> rows = ThrashReport.rows(result(0, 0, List.of(), List.of(), true, 0, true, List.of()));
    List<String> names = rows.stream().map(x -> x[0].strip()).toList();
    for (String n : List.of("seed", "faults", "dn-kill", "repairs by route", "fallbacks", "degraded reads served",
        "files verified", "lost bytes", "wrong bytes", "settle", "healthy after settle", "result")) {
      assertTrue(names.contains(n), n + " in " + names);
    }
  }

  @Test
  void theTimelineIsAPng(@TempDir Path dir) throws Exception {
    Timeline t = new Timeline();
    t.add(new Timeline.Span(FaultKind.DN_KILL, "dn1", 3, 30));
    t.add(new Timeline.Span(FaultKind.REPLICA_CORRUPT, "dn2", 12, 12));
    t.add(new Timeline.Sample(0, 0, 0));
    t.add(new Timeline.Sample(15, 12, 8));
    t.add(new Timeline.Sample(20, -1, -1));
    t.add(new Timeline.Sample(40, 0, 0));
    Path png = dir.resolve("t.png");
    t.write(png, "test", 35);
    byte[] head = java.util.Arrays.copyOf(Files.readAllBytes(png), 4);
    assertEquals("PNG", new String(head, 1, 3, java.nio.charset.StandardCharsets.US_ASCII));
    assertEquals(List.of("3.0-30.0 s dn-kill dn1", "12.0-12.0 s replica-corrupt dn2"), t.describe());
  }
}
