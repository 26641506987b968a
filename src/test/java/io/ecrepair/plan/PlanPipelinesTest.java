package io.ecrepair.plan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.RepairableCode;
import io.ecrepair.plan.PlanCheck;
import io.ecrepair.gf.RegionCoders;
import io.ecrepair.layout.Policy;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PlanPipelinesTest {
  static RepairableCode code(String policy) {
    return Policy.parse(policy).code().create(RegionCoders.best());
  }

  /** ParaRC Table 2, RP column: (256, k x 256) MiB for a 256 MiB block, i.e. (1, k) blocks. */
  @Test
  void rsRepairPipeliningIsOneBlockOfLoadAndKBlocksOfBandwidth() {
    for (int[] km : new int[][] {{2, 2}, {4, 2}, {6, 3}, {8, 4}, {10, 4}, {12, 4}}) {
      RepairableCode c = code("RS-" + km[0] + "-" + km[1] + "-1024k");
      for (int lost = 0; lost < c.totalUnits(); lost++) {
        for (String s : new String[] {"pipeline", "pipeline-cyclic"}) {
          Plan p = Planner.plan(c, lost, s, Planner.Options.defaults());
          int alpha = p.graph().subchunkCount();
          assertEquals(alpha, p.point().maxLoad(), s + " max load = 1 block");
          assertEquals(km[0] * alpha, p.point().bandwidth(), s + " bandwidth = k blocks");
          for (int n = 0; n < p.traffic().nodeCount(); n++) {
            assertTrue(p.traffic().load(n) <= alpha);
          }
        }
      }
    }
  }

  @Test
  void cyclicPipeliningFeedsTheRequestorFromKMinusOneHelpers() {
    RepairableCode c = code("RS-6-3-1024k");
    Plan p = Planner.plan(c, 2, "pipeline-cyclic", Planner.Options.defaults());
    assertEquals(5, p.graph().subchunkCount(), "k - 1 parts");
    Set<Integer> senders = new HashSet<>();
    for (var v : p.graph().repaired()) {
      senders.add(p.color(v.id()));
    }
    assertEquals(5, senders.size());
    assertTrue(PlanCheck.run(c, p, 2, 24, 3, 7, 9, RegionCoders.best()).ok());
    Plan basic = Planner.plan(c, 2, "pipeline", Planner.Options.defaults());
    assertEquals(1, basic.graph().repaired().stream().map(v -> basic.color(v.id())).distinct().count());
  }

  @Test
  void lrcPipelinesItsLocalGroup() {
    RepairableCode c = code("LRC-L2-12-4-1024k");
    Plan local = Planner.plan(c, 3, "pipeline", Planner.Options.defaults());
    assertEquals(new Point(1, 6), local.point(), "six helpers, one block each");
    assertEquals(List.of("0", "1", "2", "4", "5", "12"), local.details().get("path"));
    Plan global = Planner.plan(c, 14, "pipeline", Planner.Options.defaults());
    assertEquals(new Point(1, 12), global.point());
  }

  @Test
  void weightedPathSelectionMinimizesTheLargestLinkWeight() {
    Random rnd = new Random(5);
    for (int trial = 0; trial < 30; trial++) {
      int n = 7;
      double[][] w = new double[n][n];
      for (double[] row : w) {
        for (int j = 0; j < n; j++) {
          row[j] = 1 + rnd.nextInt(20);
        }
      }
      int requestor = trial % n;
      int[] pool = java.util.stream.IntStream.range(0, n).filter(i -> i != requestor).toArray();
      int length = 2 + trial % 4;
      int[] path = Pipelines.bestPath(w, pool, length, requestor);
      assertEquals(length, path.length);
      assertEquals(length, java.util.Arrays.stream(path).distinct().count());
      double got = Planner.maxLinkWeight(w, path, requestor);
      assertEquals(bruteForce(w, pool, length, requestor, new int[length], 0, new boolean[n]), got, 1e-9, "trial " + trial);
    }
  }

  /**
   * The DataNodes' chains: with weights from the agents' reported load, the path's receivers
   * are the least loaded helpers, a busy helper that must take part heads the path, a helper
   * whose agent did not answer is left out when the code lets it, and equal loads rotate.
   */
  @Test
  void chainsFollowTheLeastLoadedPath() {
    long block = 1 << 20;
    int[] pool = {0, 1, 2, 4, 5, 6, 7, 8};
    long[] loads = {0, 3 * block, 0, 0, 2 * block, 0, 0, 0};
    // RS-6-3 losing block 3: any 6 of 8 survivors; the two busy ones are left out.
    int[] six = Pipelines.leastLoadedPath(pool, loads, 6, block, 0);
    assertEquals(6, six.length);
    assertTrue(java.util.Arrays.stream(six).noneMatch(u -> u == 1 || u == 5), java.util.Arrays.toString(six));
    // All 8 needed: the busiest heads the path (it receives nothing).
    int[] all = Pipelines.leastLoadedPath(pool, loads, 8, block, 0);
    assertEquals(1, all[0], java.util.Arrays.toString(all));
    // An agent that did not answer is neither a receiver nor the head when the others suffice.
    long[] unknown = {0, -1, 0, 0, 0, 0, 0, 0};
    for (int rotation = 0; rotation < 8; rotation++) {
      int[] p = Pipelines.leastLoadedPath(pool, unknown, 7, block, rotation);
      assertTrue(java.util.Arrays.stream(p).noneMatch(u -> u == 1), java.util.Arrays.toString(p));
    }
    // Idle helpers: chains of different groups start on different helpers and read different sets.
    java.util.Set<Integer> heads = new java.util.HashSet<>();
    java.util.Set<String> sets = new java.util.HashSet<>();
    for (int rotation = 0; rotation < 8; rotation++) {
      int[] p = Pipelines.leastLoadedPath(pool, new long[8], 6, block, rotation);
      heads.add(Pipelines.leastLoadedPath(pool, new long[8], 8, block, rotation)[0]);
      sets.add(java.util.Arrays.toString(java.util.Arrays.stream(p).sorted().toArray()));
    }
    assertTrue(heads.size() >= 4, "heads " + heads);
    assertTrue(sets.size() >= 4, "helper sets " + sets);

    // With link weights that depend only on the receiver (its load), the chosen path's largest
    // link weight equals that of the paper's search over all paths (bestPath).
    Random rnd = new Random(9);
    for (int trial = 0; trial < 200; trial++) {
      int m = 3 + rnd.nextInt(6);
      int[] nodes = java.util.stream.IntStream.range(0, m).toArray();
      long[] l = new long[m];
      for (int a = 0; a < m; a++) {
        l[a] = rnd.nextInt(10) == 0 ? -1 : rnd.nextInt(5) * block + rnd.nextInt((int) block);
      }
      int length = 1 + rnd.nextInt(m);
      double[][] w = new double[m + 1][m + 1];
      for (int a = 0; a <= m; a++) {
        for (int b = 0; b < m; b++) {
          w[a][b] = l[b] < 0 ? 1000 : 1 + l[b] / block;
        }
        w[a][m] = 1;
      }
      int[] greedy = Pipelines.leastLoadedPath(nodes, l, length, block, trial);
      assertEquals(length, java.util.Arrays.stream(greedy).distinct().count());
      assertEquals(Planner.maxLinkWeight(w, Pipelines.bestPath(w, nodes, length, m), m),
          Planner.maxLinkWeight(w, greedy, m), 1e-9, "trial " + trial + " loads " + java.util.Arrays.toString(l));
    }
  }

  private static double bruteForce(double[][] w, int[] pool, int length, int req, int[] path, int depth, boolean[] used) {
    if (depth == length) {
      return Planner.maxLinkWeight(w, path, req);
    }
    double best = Double.POSITIVE_INFINITY;
    for (int h : pool) {
      if (!used[h]) {
        used[h] = true;
        path[depth] = h;
        best = Math.min(best, bruteForce(w, pool, length, req, path, depth + 1, used));
        used[h] = false;
      }
    }
    return best;
  }

  @Test
  void weightedPipelinesAvoidSlowLinksAndStillRepair() {
    RepairableCode c = code("RS-6-3-1024k");
    int n = c.totalUnits();
    double[][] w = new double[n + 1][n + 1];
    for (double[] row : w) {
      java.util.Arrays.fill(row, 1.0);
    }
    // Node 1 is a straggler on every link: RS picks six helpers without it.
    for (int i = 0; i <= n; i++) {
      w[1][i] = 50;
      w[i][1] = 50;
    }
    w[4][0] = 9; // a slow link into the requestor
    Plan p = Planner.plan(c, 0, "pipeline", Planner.Options.defaults().withLinkWeights(w));
    @SuppressWarnings("unchecked")
    List<String> path = (List<String>) p.details().get("path");
    assertEquals(6, path.size());
    assertTrue(!path.contains("1") && !path.get(5).equals("4"), path.toString());
    assertEquals(1.0, (Double) p.details().get("maxLinkWeight"));
    assertEquals(new Point(1, 6), p.point());
    assertTrue(PlanCheck.run(c, p, 0, 16, 2, 16, 3, RegionCoders.best()).ok());
    // LRC: the local group is fixed; only the order changes.
    RepairableCode lrc = code("LRC-L2-12-4-1024k");
    double[][] lw = new double[17][17];
    for (double[] row : lw) {
      java.util.Arrays.fill(row, 1.0);
    }
    lw[12][3] = 7; // the local parity should not be the last hop
    Plan lp = Planner.plan(lrc, 3, "pipeline", Planner.Options.defaults().withLinkWeights(lw));
    @SuppressWarnings("unchecked")
    List<String> lpath = (List<String>) lp.details().get("path");
    assertEquals(Set.of("0", "1", "2", "4", "5", "12"), new HashSet<>(lpath));
    assertTrue(!lpath.get(5).equals("12"));
    assertTrue(PlanCheck.run(lrc, lp, 3, 16, 1, 16, 3, RegionCoders.best()).ok());
  }

  @Test
  void pipelinesWorkForVectorCodesTooAsChains() {
    RepairableCode c = code("CLAY-4-2-1024k");
    Plan p = Planner.plan(c, 0, "pipeline", Planner.Options.defaults());
    int alpha = p.graph().subchunkCount();
    assertEquals(alpha, p.point().maxLoad(), "each link carries one block of partial sums at most");
    assertTrue(PlanCheck.run(c, p, 0, 16, 1, 16, 3, RegionCoders.best()).ok());
    assertThrows(IllegalArgumentException.class, () -> Planner.plan(c, 0, "pipeline-cyclic", Planner.Options.defaults()));
    int[] order = {5, 4, 3, 2, 1};
    Plan rev = Pipelines.chain(RepairProblem.forCode(c, 0, false), order, "pipeline", 1024);
    assertArrayEquals(new Object[] {"5", "4", "3", "2", "1"}, ((List<?>) rev.details().get("path")).toArray());
    assertTrue(PlanCheck.run(c, rev, 0, 16, 1, 16, 3, RegionCoders.best()).ok());
  }

  @Test
  void chainsSumInsideEachRackAndEndInTheRequestorsRack() {
    // Load order 5, 1, 12, 3, 2, 4 over racks a, b, a, c, b, c; the requestor is in rack b.
    int[] path = {5, 1, 12, 3, 2, 4};
    String[] racks = {"/a", "/b", "/a", "/c", "/b", "/c"};
    assertEquals(6, Pipelines.crossRackHops(path, racks, "/b"), "blind to racks: every hop crosses");
    int[] grouped = Pipelines.groupByRack(path, racks, "/b");
    assertArrayEquals(new int[] {5, 12, 3, 4, 1, 2}, grouped, "racks together, first seen first, the requestor's last");
    String[] groupedRacks = {"/a", "/a", "/c", "/c", "/b", "/b"};
    assertEquals(2, Pipelines.crossRackHops(grouped, groupedRacks, "/b"), "one partial sum leaves each other rack");
    // A requestor in a rack of its own receives one more.
    assertEquals(3, Pipelines.crossRackHops(Pipelines.groupByRack(path, racks, "/d"),
        new String[] {"/a", "/a", "/b", "/b", "/c", "/c"}, "/d"));
    assertArrayEquals(path, Pipelines.groupByRack(path, new String[6], null), "no racks: the order stands");
  }

  @Test
  void theRouteWhoseBusiestRackEndsLeastBusy() {
    List<int[]> routes = List.of(new int[] {1, 2, 3}, new int[] {3, 4, 5, 6});
    Map<Integer, String> rackOf = Map.of(1, "/a", 2, "/a", 3, "/b", 4, "/c", 5, "/d", 6, "/e");
    assertEquals(0, Pipelines.leastLoadedRoute(routes, rackOf, Map.of(), "/e", 10), "idle: the fewest racks");
    assertEquals(0, Pipelines.leastLoadedRoute(routes, rackOf, Map.of("/a", 9L), "/e", 10), "less than a block");
    assertEquals(1, Pipelines.leastLoadedRoute(routes, rackOf, Map.of("/a", 10L), "/e", 10), "/a a block behind");
    assertEquals(0, Pipelines.leastLoadedRoute(routes, rackOf, Map.of("/a", 10L, "/c", 10L), "/e", 10),
        "both routes meet a rack a block behind: the fewest racks");
    assertEquals(1, Pipelines.leastLoadedRoute(routes, rackOf, Map.of("/a", 20L, "/c", 10L), "/e", 10));
    assertEquals(1, Pipelines.leastLoadedRoute(routes, rackOf, Map.of("/a", 20L, "/e", 90L), "/e", 10),
        "the requestor's rack is in every route: its helpers send nothing across");
  }

  @Test
  void anyKHelpersComeFromTheFewestRacks() {
    // RS(10,4) with topology locality, unit 0 lost: racks /a {1,2,3}, /b {4..7}, /c {8..11}, /d {12,13}.
    int[] pool = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};
    String[] racks = {"/a", "/a", "/a", "/b", "/b", "/b", "/b", "/c", "/c", "/c", "/c", "/d", "/d"};
    assertArrayEquals(new int[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, Pipelines.fewestRacks(pool, racks, "/a", 10),
        "the requestor's rack and the two full racks; /d left out");
    // From a fresh rack the three full racks hold 11 of the 10 needed.
    assertArrayEquals(new int[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, Pipelines.fewestRacks(pool, racks, "/e", 10));
    assertArrayEquals(new int[] {1, 2, 3}, Pipelines.fewestRacks(pool, racks, "/a", 3), "the rack-mates suffice");
    assertArrayEquals(new int[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, Pipelines.fewestRacks(pool, racks, "/a", 7),
        "/b and /c tie for the one rack needed: both stay, for path selection to choose by load");
    String[] uneven = {"/a", "/a", "/a", "/b", "/b", "/b", "/b", "/c", "/c", "/c", "/d", "/d", "/d"};
    assertArrayEquals(new int[] {1, 2, 3, 4, 5, 6, 7}, Pipelines.fewestRacks(pool, uneven, "/a", 7),
        "/b alone holds the 4 more needed");
    assertArrayEquals(pool, Pipelines.fewestRacks(pool, racks, "/a", 12));
    // One helper per rack (HDFS's placement): every helper stays a candidate.
    int[] spread = {1, 2, 3, 4};
    assertArrayEquals(spread, Pipelines.fewestRacks(spread, new String[] {"/a", "/b", "/c", "/d"}, "/e", 3));
    assertArrayEquals(spread, Pipelines.fewestRacks(spread, new String[4], null, 3), "no racks");
  }
}
