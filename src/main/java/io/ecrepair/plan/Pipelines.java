package io.ecrepair.plan;

import io.ecrepair.ecdag.Ecdag;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * Repair pipelining (ECPipe, ATC'17): the helpers form a path ending at the requestor; each
 * helper adds its terms to the partial sum it receives and passes it on, slice after slice,
 * so every link carries one block and no node more than one block in or out.
 *
 * <ul>
 *   <li>{@link #chain}: the basic path, helper i computing S(i) = S(i-1) + its terms;
 *   <li>{@link #cyclic}: the block split into k-1 parts, part j going along the path rotated by
 *       j, so the requestor receives from k-1 different helpers in parallel (scalar codes);
 *   <li>{@link #bestPath}: weighted path selection, the order (and for RS the choice) of
 *       helpers minimizing the largest link weight on the path (e.g. weight = 1 / bandwidth);
 *       {@link #leastLoadedPath} with weights from the load the agents report, as the
 *       DataNodes choose their chains.
 * </ul>
 */
public final class Pipelines {
  private Pipelines() {}

  /** Blocks holding leaves of g, ascending. */
  public static int[] helpers(Ecdag g) {
    TreeSet<Integer> h = new TreeSet<>();
    for (Ecdag.Vertex v : g.leaves()) {
      h.add(v.block());
    }
    return h.stream().mapToInt(Integer::intValue).toArray();
  }

  /**
   * The chain over {@code order} (every helper of the problem's graph, in path order): the
   * problem's graph flattened and chained ({@link GraphTransforms#chain}), each partial sum
   * on the helper whose terms it adds.
   */
  public static Plan chain(RepairProblem p, int[] order, String strategy, int sliceBytes) {
    long start = System.nanoTime();
    Ecdag g = GraphTransforms.chain(p.graph(), order);
    RepairProblem q = p.withGraph(g);
    int[] color = pathColoring(q);
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("path", Arrays.stream(order).mapToObj(p::nodeName).toList());
    d.put("sliceBytes", sliceBytes);
    return new Plan(q, color, strategy, "chain", (System.nanoTime() - start) / 1e9, null, d);
  }

  /**
   * Cyclic pipelining for a scalar code (one sub-chunk per cell): the cell is cut into k-1
   * parts (k helpers); part j follows the path rotated by j, so its last helper, the one that
   * sends to the requestor, differs from part to part.
   */
  public static Plan cyclic(RepairProblem p, int[] order, String strategy, int sliceBytes) {
    long start = System.nanoTime();
    Ecdag flat = GraphTransforms.flatten(p.graph());
    if (flat.subchunkCount() != 1) {
      throw new IllegalArgumentException("cyclic pipelining splits a scalar code's cell; this code has "
          + flat.subchunkCount() + " sub-chunks per cell (use pipeline)");
    }
    int k = order.length;
    int parts = Math.max(1, k - 1);
    Map<Integer, Integer> coef = new LinkedHashMap<>();
    Ecdag.Vertex rep = flat.repaired().get(0);
    if (flat.repaired().size() != 1) {
      throw new IllegalArgumentException("cyclic pipelining repairs one lost block");
    }
    for (Ecdag.Edge e : flat.inputs(rep.id())) {
      coef.put(flat.vertex(e.from()).block(), e.coef());
    }
    for (int h : order) {
      if (!coef.containsKey(h)) {
        throw new IllegalArgumentException("helper " + h + " is not read by the repair");
      }
    }
    Ecdag.Builder b = Ecdag.builder(parts);
    for (int j = 0; j < parts; j++) {
      int acc = -1;
      for (int i = 0; i < k; i++) {
        int h = order[(i + j) % k];
        int leaf = b.leaf(h, j);
        if (i == k - 1) {
          int[] in = acc < 0 ? new int[] {leaf} : new int[] {acc, leaf};
          int[] co = acc < 0 ? new int[] {coef.get(h)} : new int[] {1, coef.get(h)};
          b.repaired(rep.block(), j, in, co);
        } else if (acc < 0) {
          acc = b.combine(new int[] {leaf}, new int[] {coef.get(h)});
        } else {
          acc = b.combine(new int[] {acc, leaf}, new int[] {1, coef.get(h)});
        }
      }
    }
    RepairProblem q = p.withGraph(b.build());
    Map<String, Object> d = new LinkedHashMap<>();
    List<List<String>> paths = new ArrayList<>();
    for (int j = 0; j < parts; j++) {
      List<String> path = new ArrayList<>();
      for (int i = 0; i < k; i++) {
        path.add(p.nodeName(order[(i + j) % k]));
      }
      paths.add(path);
    }
    d.put("paths", paths);
    d.put("sliceBytes", sliceBytes);
    d.put("tail", "sub-chunk j is bytes [j*s, (j+1)*s) of a cell with s = floor(L / " + parts
        + "); the byte-wise code repairs the tail L - " + parts + "*s bytes with the same coefficients as any part");
    return new Plan(q, pathColoring(q), strategy, "cyclic-chain", (System.nanoTime() - start) / 1e9, null, d);
  }

  /**
   * The chain that rebuilds block {@code lost} of a scalar code as {@code sum coefs[i] x
   * block order[i]}, the partial sum passing from {@code order[0]} to the requestor: each helper
   * adds its term, nothing else (helpers whose blocks are zeros are simply left out of
   * {@code order}). {@code blockCount} is the group's number of internal blocks.
   */
  public static Plan sumChain(int blockCount, int lost, int[] order, int[] coefs, int sliceBytes) {
    if (order.length == 0 || order.length != coefs.length) {
      throw new IllegalArgumentException("a chain of " + order.length + " helpers with " + coefs.length + " coefficients");
    }
    Ecdag.Builder b = Ecdag.builder(1);
    int acc = -1;
    for (int i = 0; i < order.length; i++) {
      int leaf = b.leaf(order[i], 0);
      int[] in = acc < 0 ? new int[] {leaf} : new int[] {acc, leaf};
      int[] co = acc < 0 ? new int[] {coefs[i]} : new int[] {1, coefs[i]};
      if (i == order.length - 1) {
        b.repaired(lost, 0, in, co);
      } else {
        acc = b.combine(in, co);
      }
    }
    RepairProblem q = new RepairProblem(b.build(), blockCount, lost);
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("path", Arrays.stream(order).boxed().toList());
    d.put("sliceBytes", sliceBytes);
    return new Plan(q, pathColoring(q), "pipeline", "chain", 0, null, d);
  }

  /**
   * Combined locality for a chain (ECWide's rack-local repair, pipelined): the helpers of each
   * rack become consecutive, so every rack's terms are summed inside it and one partial sum
   * leaves it, and the requestor's rack comes last, so its helpers hand the finished sum over
   * without crossing. A chain through R racks other than the requestor's then sends R blocks
   * across racks (as ECWide's star of per-rack sums does) where an order blind to racks may cross
   * at every hop, and still no link carries more than one block (the star would bring R blocks
   * into the requestor at once). Within a rack, and among racks (by their first helper), the
   * order of {@code path} is kept, so its load-based choices stand.
   *
   * @param rackOf the rack of each helper of {@code path}, in the same order
   */
  public static int[] groupByRack(int[] path, String[] rackOf, String requestorRack) {
    if (path.length != rackOf.length) {
      throw new IllegalArgumentException(path.length + " helpers with " + rackOf.length + " racks");
    }
    Map<String, List<Integer>> racks = new LinkedHashMap<>();
    for (int i = 0; i < path.length; i++) {
      racks.computeIfAbsent(rackOf[i], r -> new ArrayList<>()).add(path[i]);
    }
    List<Integer> last = racks.remove(requestorRack);
    if (last != null) {
      racks.put(requestorRack, last);
    }
    return racks.values().stream().flatMap(List::stream).mapToInt(Integer::intValue).toArray();
  }

  /**
   * The helpers a chain that takes any {@code need} of {@code pool} should choose among so that
   * it crosses as few racks as possible (topology locality, for RS): the requestor's rack, then
   * the racks holding most of the pool, as many as it takes to hold {@code need}, with every
   * rack that ties with the last one taken, so that path selection still chooses by load among
   * equals. Where every rack holds one helper (HDFS's placement with racks enough) that is the
   * whole pool.
   *
   * @param rackOf the rack of each helper of {@code pool}, in the same order
   */
  public static int[] fewestRacks(int[] pool, String[] rackOf, String requestorRack, int need) {
    if (pool.length != rackOf.length) {
      throw new IllegalArgumentException(pool.length + " helpers with " + rackOf.length + " racks");
    }
    Map<String, Integer> count = new LinkedHashMap<>();
    for (String r : rackOf) {
      count.merge(r, 1, Integer::sum);
    }
    int held = count.getOrDefault(requestorRack, 0);
    List<Integer> others = count.entrySet().stream().filter(e -> !Objects.equals(e.getKey(), requestorRack))
        .map(Map.Entry::getValue).sorted(Comparator.reverseOrder()).toList();
    int least = Integer.MAX_VALUE; // the smallest rack that must be taken
    for (int c : others) {
      if (held >= need) {
        break;
      }
      held += c;
      least = c;
    }
    List<Integer> chosen = new ArrayList<>();
    for (int i = 0; i < pool.length; i++) {
      if (Objects.equals(rackOf[i], requestorRack) || count.get(rackOf[i]) >= least) {
        chosen.add(pool[i]);
      }
    }
    return chosen.stream().mapToInt(Integer::intValue).toArray();
  }

  /**
   * Of several read sets that can each rebuild one block along a rack-grouped chain (the code's
   * cheapest first, then ones that leave a rack out), the one whose busiest rack ends least busy:
   * such a chain sends one partial sum out of, and at most one into, each rack it reads besides
   * the requestor's, so a rack's link carries one block per chain through it. In a full-node
   * recovery under combined locality every lost block's rack-mates share the lost node's rack,
   * and without a choice every chain would pass its one uplink; a read set that leaves that
   * rack out crosses more racks (an LRC(12,2,2) data block: 4 partial sums instead of 2) but
   * through idle links. Loads count in whole blocks (as {@link #leastLoadedPath}), so that a
   * cheaper read set loses only to a whole block's difference; ties go to the fewest racks,
   * then to the earliest read set.
   *
   * @param routes each read set's helpers
   * @param rackOf the rack of every helper of any read set
   * @param rackLoad bytes each rack's busiest helper still has to receive (missing: idle)
   * @return the index of the chosen read set
   */
  public static int leastLoadedRoute(List<int[]> routes, Map<Integer, String> rackOf, Map<String, Long> rackLoad,
                                     String requestorRack, long unit) {
    if (routes.isEmpty()) {
      throw new IllegalArgumentException("no read set to choose from");
    }
    if (unit <= 0) {
      throw new IllegalArgumentException("a load unit of " + unit + " bytes");
    }
    int best = -1;
    long bestBusiest = 0;
    int bestRacks = 0;
    for (int i = 0; i < routes.size(); i++) {
      Set<String> racks = new TreeSet<>();
      for (int u : routes.get(i)) {
        String r = rackOf.get(u);
        if (!Objects.equals(r, requestorRack)) {
          racks.add(String.valueOf(r));
        }
      }
      long busiest = 0;
      for (String r : racks) {
        busiest = Math.max(busiest, Math.max(0, rackLoad.getOrDefault(r, 0L)) / unit + 1);
      }
      if (best < 0 || busiest < bestBusiest || (busiest == bestBusiest && racks.size() < bestRacks)) {
        best = i;
        bestBusiest = busiest;
        bestRacks = racks.size();
      }
    }
    return best;
  }

  /** Hops of {@code path} (then into the requestor) that go from one rack to another. */
  public static int crossRackHops(int[] path, String[] rackOf, String requestorRack) {
    int hops = 0;
    for (int i = 0; i < path.length; i++) {
      String next = i + 1 < path.length ? rackOf[i + 1] : requestorRack;
      if (!rackOf[i].equals(next)) {
        hops++;
      }
    }
    return hops;
  }

  /**
   * Weighted path selection with weights from measured link load, for a chain that must take
   * {@code length} helpers from {@code pool} (all of them for a code whose repair reads fixed
   * helpers, any k for RS). A link into node b costs what b's downlink still has to carry
   * ({@code loads}, counted in whole units of {@code unit} bytes: tasks that start together see
   * nearly the same loads, and finer differences would send them all to the same helpers).
   * With weights that depend only on the receiving node, the path minimizing the largest link
   * weight needs no search ({@link #bestPath} handles arbitrary link weights): the
   * {@code length - 1} least loaded helpers receive, and the head, which receives nothing, is
   * the next least loaded when the code lets the busier ones out, else the busiest. A node
   * whose load is unknown (-1: its agent did not answer) counts as busier than any other, so a
   * chain leaves it out when it can. Equal loads are broken in an order rotated by
   * {@code rotation}, so concurrent chains spread over the helpers. Returns the path, head first.
   */
  public static int[] leastLoadedPath(int[] pool, long[] loads, int length, long unit, long rotation) {
    double[] even = new double[pool.length];
    Arrays.fill(even, 1);
    return leastLoadedPath(pool, loads, even, length, unit, rotation);
  }

  /**
   * {@link #leastLoadedPath(int[], long[], int, long, long)} on links of different speeds (FastDR's
   * cost model): a byte through helper {@code pool[a]}'s links costs {@code costs[a]} (1 = a
   * typical node), so a helper weighs what its downlink still carries plus the block it sends,
   * times its cost, in whole units; slow helpers are left out of a chain when the code lets them
   * and are its head (which only sends) when it does not.
   */
  public static int[] leastLoadedPath(int[] pool, long[] loads, double[] costs, int length, long unit,
                                      long rotation) {
    int m = pool.length;
    if (loads.length != m || costs.length != m) {
      throw new IllegalArgumentException(m + " helpers, " + loads.length + " loads, " + costs.length + " costs");
    }
    if (length < 1 || length > m) {
      throw new IllegalArgumentException("a path of " + length + " helpers from " + m + " candidates");
    }
    if (unit <= 0) {
      throw new IllegalArgumentException("a load unit of " + unit + " bytes");
    }
    int shift = (int) Math.floorMod(rotation, (long) m);
    // Positions in the pool, least loaded first: known before unknown, whole units, then rotated order.
    Integer[] byLoad = new Integer[m];
    for (int a = 0; a < m; a++) {
      byLoad[a] = a;
    }
    Arrays.sort(byLoad, java.util.Comparator.<Integer>comparingInt(a -> loads[a] < 0 ? 1 : 0)
        .thenComparingLong(a -> (long) Math.floor((Math.max(0, loads[a]) / (double) unit + 1) * costs[a]))
        .thenComparingInt(a -> Math.floorMod(a - shift, m)));
    int[] path = new int[length];
    // The head: the next least loaded after the receivers, or the busiest when all must take part.
    path[0] = pool[byLoad[length == m ? m - 1 : length - 1]];
    for (int i = 1; i < length; i++) {
      path[i] = pool[byLoad[i - 1]];
    }
    return path;
  }

  /** Each non-leaf vertex on the block of the leaves it adds (a chain adds one helper's). */
  static int[] pathColoring(RepairProblem q) {
    Ecdag g = q.graph();
    int[] color = new int[g.vertices().size()];
    for (Ecdag.Vertex v : g.vertices()) {
      int c = q.fixedColor(v.id());
      if (c < 0) {
        for (Ecdag.Edge e : g.inputs(v.id())) {
          Ecdag.Vertex u = g.vertex(e.from());
          if (u.kind() == Ecdag.Kind.LEAF) {
            c = u.block();
          }
        }
        if (c < 0) {
          c = color[g.inputs(v.id()).get(0).from()];
        }
      }
      color[v.id()] = c;
    }
    return color;
  }

  /**
   * Weighted path selection: {@code length} distinct helpers from {@code pool} in the order
   * minimizing the largest weight on the path h1 -> h2 -> ... -> h_length -> requestor (ties:
   * the least total weight, then the smallest order). Exact: bisection over the weights with a
   * dynamic program over subsets of the pool (at most 16 nodes).
   *
   * @param weight weight[a][b] of the link a -> b; nodes index the problem's nodes
   */
  public static int[] bestPath(double[][] weight, int[] pool, int length, int requestor) {
    int m = pool.length;
    if (length < 1 || length > m) {
      throw new IllegalArgumentException("a path of " + length + " helpers from " + m + " candidates");
    }
    if (m > 16) {
      throw new IllegalArgumentException("weighted path selection handles at most 16 candidates");
    }
    for (int a : pool) {
      if (a >= weight.length || requestor >= weight.length || weight[a].length <= requestor) {
        throw new IllegalArgumentException("link weights do not cover node " + a + " and the requestor " + requestor);
      }
    }
    double[] distinct = new double[m * m + m];
    int nd = 0;
    for (int a = 0; a < m; a++) {
      distinct[nd++] = weight[pool[a]][requestor];
      for (int b = 0; b < m; b++) {
        if (a != b) {
          distinct[nd++] = weight[pool[a]][pool[b]];
        }
      }
    }
    double[] ws = Arrays.stream(distinct, 0, nd).sorted().distinct().toArray();
    int lo = 0;
    int hi = ws.length - 1;
    int[] best = minSumPath(weight, pool, length, requestor, ws[hi]);
    while (lo < hi) {
      int mid = (lo + hi) / 2;
      int[] p = minSumPath(weight, pool, length, requestor, ws[mid]);
      if (p != null) {
        best = p;
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    int[] atLo = minSumPath(weight, pool, length, requestor, ws[lo]);
    return atLo != null ? atLo : best;
  }

  /** The least total weight path using only links of weight <= cap, or null. */
  private static int[] minSumPath(double[][] w, int[] pool, int length, int requestor, double cap) {
    int m = pool.length;
    int full = 1 << m;
    double[][] dp = new double[full][m];
    int[][] prev = new int[full][m];
    for (double[] row : dp) {
      Arrays.fill(row, Double.POSITIVE_INFINITY);
    }
    for (int a = 0; a < m; a++) {
      dp[1 << a][a] = 0;
      prev[1 << a][a] = -1;
    }
    double bestCost = Double.POSITIVE_INFINITY;
    int bestMask = -1;
    int bestLast = -1;
    for (int mask = 1; mask < full; mask++) {
      int size = Integer.bitCount(mask);
      if (size > length) {
        continue;
      }
      for (int a = 0; a < m; a++) {
        double c = dp[mask][a];
        if (c == Double.POSITIVE_INFINITY) {
          continue;
        }
        if (size == length) {
          double wr = w[pool[a]][requestor];
          if (wr <= cap && c + wr < bestCost) {
            bestCost = c + wr;
            bestMask = mask;
            bestLast = a;
          }
          continue;
        }
        for (int b = 0; b < m; b++) {
          if ((mask & (1 << b)) != 0) {
            continue;
          }
          double wab = w[pool[a]][pool[b]];
          if (wab > cap) {
            continue;
          }
          int nm = mask | (1 << b);
          if (c + wab < dp[nm][b]) {
            dp[nm][b] = c + wab;
            prev[nm][b] = a;
          }
        }
      }
    }
    if (bestMask < 0) {
      return null;
    }
    int[] path = new int[length];
    int mask = bestMask;
    int a = bestLast;
    for (int i = length - 1; i >= 0; i--) {
      path[i] = pool[a];
      int p = prev[mask][a];
      mask &= ~(1 << a);
      a = p;
    }
    return path;
  }
}
