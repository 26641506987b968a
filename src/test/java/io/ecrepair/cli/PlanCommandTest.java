package io.ecrepair.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ecrepair.gf.GF256;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PlanCommandTest {
  @TempDir
  Path tmp;

  record Run(int code, String out, String err) {
    JsonNode json() throws Exception {
      return new ObjectMapper().readTree(out);
    }
  }

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = EcRepairCli.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
    return new Run(code, out.toString(), err.toString());
  }

  private static void assertOneLineError(Run r, String expectedFragment) {
    assertNotEquals(0, r.code());
    assertEquals("", r.out());
    String[] lines = r.err().strip().split("\n");
    assertEquals(1, lines.length, "one line, got: " + r.err());
    assertTrue(lines[0].contains(expectedFragment), lines[0]);
  }

  @Test
  void planJsonFollowsTheContract() throws Exception {
    Run r = run("plan", "--policy", "CLAY-2-2-1024k", "--lost", "0", "--strategy", "fast", "--seed", "3", "--json", "--verify");
    assertEquals(0, r.code(), r.err());
    JsonNode j = r.json();
    assertEquals("CLAY-2-2-1024k", j.get("policy").asText());
    assertEquals(0, j.get("lost").asInt());
    assertEquals("fast", j.get("strategy").asText());
    assertEquals(4, j.get("subchunkCount").asInt());
    assertEquals(4, j.get("maxRepairLoad").get("subchunks").asInt());
    assertEquals(1.0, j.get("maxRepairLoad").get("blocks").asDouble());
    assertEquals(8, j.get("repairBandwidth").get("subchunks").asInt());
    assertEquals(2.0, j.get("repairBandwidth").get("blocks").asDouble());
    assertTrue(j.get("searchSeconds").asDouble() >= 0);
    assertTrue(j.get("verified").get("ok").asBoolean());
    Set<String> vertexFields = new HashSet<>();
    j.get("vertices").get(0).fieldNames().forEachRemaining(vertexFields::add);
    assertEquals(Set.of("id", "kind", "node", "block", "subchunk"), vertexFields);
    JsonNode root = j.get("vertices").get(j.get("vertices").size() - 1);
    assertEquals("root", root.get("kind").asText());
    assertEquals(0, root.get("node").asInt());
    assertTrue(j.get("traffic").has("0"));
    assertEquals(4, j.get("traffic").get("0").get("in").asInt());
    assertEquals(1048576 / 4, j.get("subchunkBytes").asInt());
    assertEquals(0, j.get("tailBytes").asInt());

    // Least bandwidth within 5 sub-chunks of load: ParaRC's Figure 2(a) point.
    Run capped = run("plan", "--policy", "CLAY-2-2-1024k", "--lost", "0", "--max-load", "5", "--json");
    assertEquals(0, capped.code(), capped.err());
    assertEquals(5, capped.json().get("maxRepairLoad").get("subchunks").asInt());
    assertEquals(7, capped.json().get("repairBandwidth").get("subchunks").asInt());
    assertEquals(5, capped.json().get("details").get("maxLoadCap").asInt());
  }

  /** What the JSON promises: anyone can run it on the blocks 'encode' wrote and get the lost block. */
  @Test
  void aPlanRunsOnTheBlocksEncodeWrote() throws Exception {
    byte[] data = new byte[2 * 65536 * 3];
    new Random(2).nextBytes(data);
    Path in = tmp.resolve("in.bin");
    Files.write(in, data);
    Path dir = tmp.resolve("enc");
    Run enc = run("encode", "--policy", "CLAY-2-2-64k", "--input", in.toString(), "--output", dir.toString(),
        "--block-size", "196608");
    assertEquals(0, enc.code(), enc.err());
    for (String strategy : new String[] {"fast", "pararc", "pipeline"}) {
      Run r = run("plan", "--policy", "CLAY-2-2-64k", "--lost", "1", "--strategy", strategy, "--json");
      assertEquals(0, r.code(), r.err());
      JsonNode j = r.json();
      int alpha = j.get("subchunkCount").asInt();
      byte[][] blocks = new byte[4][];
      for (int b = 0; b < 4; b++) {
        blocks[b] = b == 1 ? null : Files.readAllBytes(dir.resolve("g0_b" + b));
      }
      byte[] lost = Files.readAllBytes(dir.resolve("g0_b1"));
      int cell = 65536;
      int s = cell / alpha;
      byte[] rebuilt = new byte[lost.length];
      for (int row = 0; row * cell < lost.length; row++) {
        Map<Integer, byte[]> value = new HashMap<>();
        for (JsonNode v : j.get("vertices")) {
          int id = v.get("id").asInt();
          String kind = v.get("kind").asText();
          byte[] x = new byte[s];
          if (kind.equals("leaf")) {
            System.arraycopy(blocks[v.get("block").asInt()], row * cell + v.get("subchunk").asInt() * s, x, 0, s);
          }
          value.put(id, x);
        }
        for (JsonNode e : j.get("edges")) {
          int to = e.get(1).asInt();
          if (j.get("vertices").get(to).get("kind").asText().equals("root")) {
            continue;
          }
          byte[] u = value.get(e.get(0).asInt());
          byte[] x = value.get(to);
          int coef = e.get(2).asInt();
          for (int i = 0; i < s; i++) {
            x[i] ^= (byte) GF256.mul(coef, u[i] & 0xFF);
          }
        }
        for (JsonNode v : j.get("vertices")) {
          if (v.get("kind").asText().equals("repaired")) {
            System.arraycopy(value.get(v.get("id").asInt()), 0, rebuilt, row * cell + v.get("subchunk").asInt() * s, s);
          }
        }
      }
      assertArrayEquals(lost, rebuilt, strategy);
    }
  }

  @Test
  void pipelineJsonAndPictures() throws Exception {
    Run r = run("plan", "--policy", "RS-10-4-1024k", "--lost", "2", "--strategy", "pipeline", "--json");
    assertEquals(0, r.code(), r.err());
    assertEquals(1.0, r.json().get("maxRepairLoad").get("blocks").asDouble());
    assertEquals(10.0, r.json().get("repairBandwidth").get("blocks").asDouble());

    Run dot = run("plan", "--policy", "BUTTERFLY-4-2-1024k", "--lost", "0", "--format", "dot");
    assertEquals(0, dot.code(), dot.err());
    assertTrue(dot.out().startsWith("digraph plan {"), dot.out());

    Path png = tmp.resolve("plan.png");
    Run p = run("plan", "--policy", "CLAY-4-2-1024k", "--lost", "1", "--format", "png", "--output", png.toString());
    assertEquals(0, p.code(), p.err());
    byte[] b = Files.readAllBytes(png);
    assertArrayEquals(new byte[] {(byte) 0x89, 'P', 'N', 'G'}, java.util.Arrays.copyOf(b, 4));
    assertTrue(p.out().contains("max repair load"), p.out());

    Path w = tmp.resolve("weights.txt");
    StringBuilder m = new StringBuilder("# 7 nodes of RS-4-3\n");
    for (int i = 0; i < 7; i++) {
      for (int k = 0; k < 7; k++) {
        m.append(i == 6 || k == 6 ? 10 : 1).append(k < 6 ? " " : "\n");
      }
    }
    Files.writeString(w, m.toString());
    Run wp = run("plan", "--policy", "RS-4-3-1024k", "--lost", "0", "--strategy", "pipeline", "--link-weights", w.toString(),
        "--json", "--verify");
    assertEquals(0, wp.code(), wp.err());
    assertEquals(1.0, wp.json().get("details").get("maxLinkWeight").asDouble());
    assertTrue(wp.json().get("verified").get("ok").asBoolean());
  }

  @Test
  void allIndicesGoToTheStore() throws Exception {
    Path store = tmp.resolve("plans");
    Run r = run("plan", "--policy", "BUTTERFLY-4-2-1024k", "--lost", "all", "--store", store.toString(), "--json");
    assertEquals(0, r.code(), r.err());
    assertEquals(6, r.json().get("plans").size());
    try (var files = Files.list(store)) {
      assertEquals(6, files.count());
    }
    // One index from the store: no search, the stored search time.
    Run one = run("plan", "--policy", "BUTTERFLY-4-2-1024k", "--lost", "5", "--store", store.toString(), "--json");
    assertEquals(0, one.code(), one.err());
    assertEquals(r.json().get("plans").get(5).get("searchSeconds").asDouble(), one.json().get("searchSeconds").asDouble());
    assertEquals(8, one.json().get("maxRepairLoad").get("subchunks").asInt());
    assertEquals(32, one.json().get("repairBandwidth").get("subchunks").asInt());
  }

  @Test
  void severalLostBlocksArePlannedTogether() throws Exception {
    Path store = tmp.resolve("pairs");
    Run r = run("plan", "--policy", "CLAY-4-2-1024k", "--lost", "3,1", "--store", store.toString(), "--json",
        "--verify");
    assertEquals(0, r.code(), r.err());
    assertEquals("[1,3]", r.json().get("lost").toString());
    assertEquals("1", r.json().get("requestor").asText(), "the lowest lost block is the requestor");
    assertTrue(r.json().get("verified").get("ok").asBoolean());
    assertTrue(r.json().get("traffic").get("1").get("in").asInt() >= 2 * 8, "the requestor receives both blocks");
    assertTrue(!r.json().get("traffic").has("3"), "the other lost node takes no part");
    try (var files = Files.list(store)) {
      assertEquals(List.of("clay-4-2_fast_lost1-3_seed1.json"), files.map(f -> f.getFileName().toString()).toList());
    }
    Run text = run("plan", "--policy", "CLAY-4-2-1024k", "--lost", "1,3");
    assertEquals(0, text.code(), text.err());
    assertTrue(text.out().startsWith("CLAY-4-2-1024k, lost 1,3, strategy fast"), text.out());
    assertOneLineError(run("plan", "--policy", "CLAY-4-2-1024k", "--lost", "1,1"), "twice");
    assertOneLineError(run("plan", "--policy", "CLAY-4-2-1024k", "--lost", "1,3", "--strategy", "pipeline"),
        "a pipeline repairs one block");
  }

  @Test
  void badInputIsOneLine() {
    assertOneLineError(run("plan", "--policy", "CLAY-2-2-1024k", "--lost", "4"), "not an internal block index");
    assertOneLineError(run("plan", "--policy", "CLAY-2-2-1024k", "--lost", "x"), "neither an index");
    assertOneLineError(run("plan", "--policy", "CLAY-2-2-1024k", "--lost", "0", "--strategy", "magic"), "unknown --strategy");
    assertOneLineError(run("plan", "--policy", "CLAY-2-2-1024k", "--lost", "0", "--format", "gif"), "unknown --format");
    assertOneLineError(run("plan", "--policy", "CLAY-2-2-1024k", "--lost", "0", "--format", "png"), "needs --output");
    assertOneLineError(run("plan", "--policy", "CLAY-2-2-1024k", "--lost", "0", "--transform", "twist"), "unknown transform");
    assertOneLineError(run("plan", "--policy", "CLAY-2-2-1024k", "--lost", "0", "--strategy", "pipeline-cyclic"),
        "scalar code");
    assertOneLineError(run("plan", "--policy", "CLAY-2-2-1024k", "--lost", "0", "--time-limit", "0"), "time-limit");
    assertOneLineError(run("plan", "--policy", "CLAY-2-2-1024k", "--lost", "0", "--max-load", "-1"), "max load cap");
    assertOneLineError(run("plan", "--policy", "NOPE-2-2-1024k", "--lost", "0"), "unknown codec");
    assertOneLineError(run("plan", "--lost", "0"), "--policy");
  }
}
