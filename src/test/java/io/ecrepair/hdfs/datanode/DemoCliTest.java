package io.ecrepair.hdfs.datanode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ecrepair.bench.cluster.RepairTheory;
import io.ecrepair.cli.EcRepairCli;
import io.ecrepair.testing.ClusterTest;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code ec-repair demo} end to end on small policies, its JSON, and bad input; the plugin outside a DataNode. */
@ClusterTest
class DemoCliTest {
  record Run(int code, String out, String err) {}

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = EcRepairCli.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
    return new Run(code, out.toString(), err.toString());
  }

  /**
   * The demo as an operator starts it (its own JVM, the command line's main): the console shows
   * the demo's lines only, no log line and no stack trace of the in-process HDFS, and names the
   * file that holds them.
   */
  @Test
  void theDemoConsoleShowsOnlyTheDemosOwnLines() throws Exception {
    String javaBin = java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString();
    // The distribution has one SLF4J binding; the tests' class path has a second (from the
    // minicluster), about which SLF4J would print its own lines.
    String classPath = java.util.Arrays.stream(System.getProperty("java.class.path").split(java.io.File.pathSeparator))
        .filter(e -> !e.contains("slf4j-log4j12")).collect(java.util.stream.Collectors.joining(java.io.File.pathSeparator));
    List<String> cmd = new ArrayList<>(List.of(javaBin, "-Xmx1g", "-cp", classPath,
        "-Dlog4j.configuration=ecrepair-cli-log4j.properties"));
    System.getProperties().stringPropertyNames().stream().filter(k -> k.startsWith("ecrepair."))
        .forEach(k -> cmd.add("-D" + k + "=" + System.getProperty(k)));
    cmd.addAll(List.of("io.ecrepair.cli.EcRepairCli", "demo", "--policy", "CLAY-5-3-64k", "--cells-per-block", "4"));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    java.io.File errFile = java.io.File.createTempFile("demo-console", ".err");
    pb.redirectError(errFile);
    pb.redirectOutput(ProcessBuilder.Redirect.PIPE);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertTrue(p.waitFor(300, java.util.concurrent.TimeUnit.SECONDS), "the demo finished");
    List<String> err = java.nio.file.Files.readAllLines(errFile.toPath());
    errFile.delete();
    assertEquals(0, p.exitValue(), String.join("\n", err) + out);
    assertTrue(out.contains("CLAY-5-3-64k"), out);
    assertTrue(!err.isEmpty() && err.get(0).startsWith("demo: log lines (HDFS's and hadoop-ec-repair's) go to "),
        String.join("\n", err));
    java.nio.file.Path log = java.nio.file.Path.of(err.get(0).substring(err.get(0).lastIndexOf(' ') + 1));
    for (String line : err) {
      assertTrue(line.startsWith("demo: "), "a line on the console that is not the demo's: " + line);
    }
    for (String line : out.split("\n")) {
      assertTrue(!line.matches(".*\\b(WARN|INFO|ERROR)\\b.*") && !line.startsWith("\tat "), "on stdout: " + line);
    }
    String logged = java.nio.file.Files.readString(log);
    assertTrue(logged.contains("ec-repair: rebuilt"), "the log file holds the plugin's lines");
    java.nio.file.Files.delete(log);
  }

  /**
   * The demo as shipped: the DataNodes run their repair agents. BUTTERFLY-4-2's block is rebuilt
   * by a parallel plan ((k+1)/2 = 5/2 blocks read across the helpers, no DataNode receiving more
   * than about one block) and read degraded through the agents (one block fetched per block returned); RS-6-3
   * is rebuilt by HDFS (k = 6 blocks into one DataNode) and read through a chain of agents.
   */
  @Test
  void demoRebuildsAndVerifiesEachPolicy() throws Exception {
    Run r = run("demo", "--policy", "BUTTERFLY-4-2-64k,RS-6-3-64k", "--cells-per-block", "4", "--json");
    assertEquals(0, r.code(), r.err() + r.out());
    JsonNode j = new ObjectMapper().readTree(r.out());
    assertEquals(2, j.get("policies").size());
    for (JsonNode p : j.get("policies")) {
      assertTrue(p.get("fileVerified").asBoolean(), p.toString());
      boolean ours = p.get("policy").asText().startsWith("BUTTERFLY");
      assertEquals(1, p.get("degradedReads").size(), p.toString());
      JsonNode read = p.get("degradedReads").get(0);
      assertTrue(read.get("verified").asBoolean(), read.toString());
      assertEquals("ec-repair", read.get("path").asText(), read.toString());
      assertEquals(ours ? "pararc" : "pipeline", read.get("strategy").asText(), read.toString());
      assertTrue(read.get("agentReads").asLong() > 0 && read.get("agentFallbacks").asLong() == 0, read.toString());
      assertEquals(read.get("bytesReturned").asLong(), read.get("bytesFromAgents").asLong(), read.toString());
      assertEquals(1.0, read.get("fetchedPerReturned").asDouble(), 1e-9, read.toString());
      assertTrue(p.get("repairs").size() >= 1, p.toString());
      for (JsonNode repair : p.get("repairs")) {
        assertTrue(repair.get("verified").asBoolean(), repair.toString());
        assertEquals(ours ? "ec-repair" : "hdfs", repair.get("engine").asText());
        // A task that sees another repair's bytes on its helpers runs centrally as its DataNode's
        // first share of the recovery (ecrepair.datanode.parallel.central-share): which of the
        // demo's two overlapping tasks does depends on their timing, so each route's own traffic
        // is checked below.
        String route = repair.get("route").asText();
        assertTrue(ours ? route.equals("parallel") || route.equals("central") : route.equals("hdfs"), repair.toString());
        double blockBytes = repair.get("blockBytes").asDouble();
        // BUTTERFLY-4-2 reads 5/2 blocks across its helpers for a data block or the first parity
        // (all 4 for the second parity); HDFS's RS-6-3 reads k = 6 into one DataNode.
        double theory = ours ? RepairTheory.blocksRead(p.get("policy").asText(), repair.get("lostIndex").asInt()) : 6.0;
        assertEquals(theory, repair.get("bytesRead").asDouble() / blockBytes, 1e-9, repair.toString());
        double most = repair.get("mostReceivedBytes").asDouble() / blockBytes;
        if (route.equals("parallel")) {
          assertTrue(most > 0.99 && most <= 1.1, repair.toString());
        } else {
          assertEquals(theory, most, 1e-9, repair.toString()); // every helper's bytes into one DataNode
        }
      }
    }
    // The operator's view: one group per policy, a DataNode down, status and verify of them.
    JsonNode view = j.get("operatorView");
    JsonNode status = view.get("status");
    assertEquals(2, status.get("blockGroups").asInt(), view.toString());
    assertTrue(status.get("groupsNeedingRepair").asInt() >= 1, view.toString());
    for (JsonNode g : status.get("groups")) {
      boolean ours = g.get("policy").asText().startsWith("BUTTERFLY");
      if (g.get("lost").size() == 1) {
        // BUTTERFLY-4-2 rebuilds a block from 5/2 blocks (4 for the second parity), HDFS reads k blocks (4 and 6).
        double expected = g.get("lostBytes").asDouble()
            * (ours ? RepairTheory.blocksRead(g.get("policy").asText(), g.get("lost").get(0).asInt()) : 6.0);
        assertEquals(expected, g.get("ourBytes").asDouble(), expected * 0.001, g.toString());
        assertEquals(g.get("lostBytes").asDouble() * (ours ? 4 : 6), g.get("hdfsBytes").asDouble(), 1.0, g.toString());
      }
    }
    assertTrue(view.get("verify").get("ok").asBoolean(), view.toString());
    assertEquals(2, view.get("verify").get("outcomes").get("ok").asInt(), view.toString());
  }

  /**
   * Without the agents every repair is central: the rebuilding DataNode receives CLAY-5-3's d/q =
   * 7/3 blocks itself (and k times a cell's few tail bytes: 27 sub-chunks do not fill a 64 KiB
   * cell), and the client fetches as much for a degraded read.
   */
  @Test
  void demoWithoutAgentsRepairsCentrally() throws Exception {
    Run r = run("demo", "--policy", "CLAY-5-3-64k", "--cells-per-block", "4", "--no-agents", "--json");
    assertEquals(0, r.code(), r.err() + r.out());
    JsonNode p = new ObjectMapper().readTree(r.out()).get("policies").get(0);
    JsonNode read = p.get("degradedReads").get(0);
    assertTrue(read.get("verified").asBoolean(), read.toString());
    assertEquals("fetch", read.get("strategy").asText(), read.toString());
    assertEquals(0, read.get("agentReads").asLong(), read.toString());
    assertEquals(7.0 / 3, read.get("fetchedPerReturned").asDouble(), 0.01, read.toString());
    assertTrue(read.get("cellsRebuilt").asLong() > 0, read.toString());
    assertEquals(read.get("bytesReturned").asLong(), read.get("healthyBytesFetched").asLong(), read.toString());
    for (JsonNode repair : p.get("repairs")) {
      assertTrue(repair.get("verified").asBoolean(), repair.toString());
      assertEquals("central", repair.get("route").asText(), repair.toString());
      assertEquals(repair.get("bytesRead").asLong(), repair.get("mostReceivedBytes").asLong(), repair.toString());
      assertEquals(7.0 / 3, repair.get("bytesRead").asDouble() / repair.get("blockBytes").asDouble(), 0.01,
          repair.toString());
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
