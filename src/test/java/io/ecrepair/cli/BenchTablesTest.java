package io.ecrepair.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.bench.DegradedReadBenchmark;
import io.ecrepair.bench.ReconstructionBenchmark;
import io.ecrepair.harness.DegradedReadProbe;
import io.ecrepair.harness.MiniClusterRepairs;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The in-process benches' tables over synthetic results: each figure beside its peer and, where there is one, its floor. */
class BenchTablesTest {
  private static final long MIB = 1 << 20;

  private static String text(Table t) {
    StringWriter s = new StringWriter();
    t.print(new PrintWriter(s, true));
    return s.toString();
  }

  /** The cells of the row starting with {@code first}, split on runs of spaces. */
  private static List<String> row(String table, String first) {
    for (String line : table.split("\n")) {
      if (line.startsWith(first + " ")) {
        return List.of(line.strip().split("\\s{2,}"));
      }
    }
    throw new AssertionError(first + " not in\n" + table);
  }

  private static void noThreshold(String shown) {
    for (String word : List.of("required", "pass", "BELOW", "bar", "target", "issue")) {
      assertFalse(shown.toLowerCase(Locale.ROOT).contains(word.toLowerCase(Locale.ROOT)), word + " in\n" + shown);
    }
  }

  @Test
  void reconstructionTimesStandBesideTheReadLimitsFloorAndTheirRsPeer() {
    long bw = 4L << 20;
    Map<String, ReconstructionBenchmark.Point> points = new LinkedHashMap<>();
    points.put("CLAY-10-4-1024k", new ReconstructionBenchmark.Point("CLAY-10-4-1024k", "ec-repair", 0,
        13 * MIB, 4 * MIB, 3.1, true, "central"));
    points.put("RS-10-4-1024k", new ReconstructionBenchmark.Point("RS-10-4-1024k", "hdfs", 0, 40 * MIB, 4 * MIB, 9.8,
        true, "hdfs"));
    points.put("LRC-L2-12-4-1024k", new ReconstructionBenchmark.Point("LRC-L2-12-4-1024k", "ec-repair", 0, 24 * MIB,
        4 * MIB, 2.0, true, "chain"));
    points.put("RS-12-4-1024k", new ReconstructionBenchmark.Point("RS-12-4-1024k", "hdfs", 0, 48 * MIB, 4 * MIB, 11.9,
        true, "hdfs"));
    // 3.25 blocks of 4 MiB at 4 MiB/s, less the throttle's free half second
    assertEquals(3.25 - 0.5, ReconstructionBenchmark.floorSeconds(points.get("CLAY-10-4-1024k"), bw), 1e-9);
    assertEquals(10 - 0.5, ReconstructionBenchmark.floorSeconds(points.get("RS-10-4-1024k"), bw), 1e-9);
    assertTrue(Double.isNaN(ReconstructionBenchmark.floorSeconds(points.get("LRC-L2-12-4-1024k"), bw)),
        "a chain reads on the helpers, outside the limit");
    List<ReconstructionBenchmark.Comparison> comparisons = List.of(
        new ReconstructionBenchmark.Comparison("CLAY-10-4-1024k", "RS-10-4-1024k", 9.8 / 3.1, 40.0 / 13),
        new ReconstructionBenchmark.Comparison("LRC-L2-12-4-1024k", "RS-12-4-1024k", 11.9 / 2.0, 2.0));
    String t = text(ReconstructionBenchCommand.table(points, comparisons, bw));
    System.out.println(t);
    List<String> clay = row(t, "CLAY-10-4-1024k");
    assertEquals(List.of("CLAY-10-4-1024k", "ec-repair plugin", "central", "13631488", "3.25", "3.100", "2.750",
        "1.13x", "RS-10-4-1024k", "3.16x", "3.08x", "1.4", "yes"), clay);
    List<String> lrc = row(t, "LRC-L2-12-4-1024k");
    assertEquals("-", lrc.get(6), "no floor for a chain");
    assertEquals("-", row(t, "RS-10-4-1024k").get(8), "the peer has no peer");
    noThreshold(t);
  }

  private static MiniClusterRepairs.DegradedRead read(String strategy, long fetched, double degradedSeconds) {
    DegradedReadProbe.PathFigures ours = new DegradedReadProbe.PathFigures(!strategy.equals("stock"), 8,
        strategy.equals("pararc") ? 8 : 0, 0, 0);
    DegradedReadProbe.PathFigures none = new DegradedReadProbe.PathFigures(false, 0, 0, 0, 0);
    return new MiniClusterRepairs.DegradedRead("g0:0", strategy,
        new DegradedReadProbe.Result(8 * MIB, 8 * MIB, 0.1, true, none),
        new DegradedReadProbe.Result(fetched, 8 * MIB, degradedSeconds, true, ours));
  }

  @Test
  void degradedReadsShowBytesFetchedBesideTheirPathsFloorAndTheirRsPeer() {
    assertEquals(3.25, DegradedReadBenchmark.fetchFloor("CLAY-10-4-1024k", 0, "fetch"), 1e-9);
    assertEquals(10.0, DegradedReadBenchmark.fetchFloor("RS-10-4-1024k", 0, "stock"), 1e-9);
    assertEquals(1.0, DegradedReadBenchmark.fetchFloor("CLAY-10-4-1024k", 0, "pararc"), 1e-9);
    assertEquals(6.0, DegradedReadBenchmark.fetchFloor("LRC-L2-12-4-1024k", 0, "fetch"), 1e-9);
    Map<String, DegradedReadBenchmark.Point> points = new LinkedHashMap<>();
    points.put("CLAY-10-4-1024k", new DegradedReadBenchmark.Point("CLAY-10-4-1024k", null,
        read("fetch", 26 * MIB, 0.4)));
    points.put("RS-10-4-1024k", new DegradedReadBenchmark.Point("RS-10-4-1024k", null, read("stock", 80 * MIB, 0.8)));
    List<DegradedReadBenchmark.Comparison> comparisons = List.of(
        new DegradedReadBenchmark.Comparison("CLAY-10-4-1024k", "RS-10-4-1024k", 2.0, 26.0 / 80));
    String t = text(DegradedReadBenchCommand.table(points, comparisons, 0));
    System.out.println(t);
    List<String> clay = row(t, "CLAY-10-4-1024k");
    assertEquals("3.25 MiB", clay.get(5), "26 MiB fetched for 8");
    assertEquals("3.25 MiB", clay.get(6), "the code's cheapest repair read: on the floor");
    assertEquals("RS-10-4-1024k", clay.get(9));
    assertEquals("2.00x", clay.get(10));
    assertEquals("3.08x", clay.get(11));
    List<String> rs = row(t, "RS-10-4-1024k");
    assertEquals("10.00 MiB", rs.get(6), "HDFS decodes from k blocks");
    noThreshold(t);
  }

  @Test
  void coderNamesItsPeersAndWhyItHasNoFloor() {
    EcRepairCliTest.Run r = EcRepairCliTest.run("bench", "coder", "--policy", "RS-3-2-64k", "--threads", "1",
        "--seconds", "0.05", "--op", "encode");
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("isal-c = raw ISA-L") && r.out().contains("No floor"), r.out());
    noThreshold(r.out());
  }

  @Test
  void benchHelpSpeaksOfPeersAndFloorsNeverOfBars() {
    for (String bench : List.of("cluster", "reconstruction", "degraded-read")) {
      EcRepairCliTest.Run r = EcRepairCliTest.run("bench", bench, "--help");
      assertEquals(0, r.code(), r.err());
      assertTrue(r.out().contains("floor"), bench + ": " + r.out());
      assertFalse(r.out().contains("bars"), bench + ": " + r.out());
    }
    assertTrue(EcRepairCliTest.run("bench", "--help").out().contains("peer"));
  }
}
