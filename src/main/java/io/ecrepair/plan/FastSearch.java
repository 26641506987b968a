package io.ecrepair.plan;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Our search for the min-max repair load point: simulated annealing over multilevel cluster
 * moves, aimed at a load target.
 *
 * <p><b>Why clusters.</b> Coloring a repair graph is hypergraph partitioning with fixed
 * vertices: each value is a net over its producer and consumers, and the bandwidth is the
 * (connectivity - 1) metric. Good plans co-locate vertices that read the same values (a Clay
 * layer's decode, a Butterfly output's XOR partners), and moving one such vertex alone only
 * ever costs: the single-vertex neighbors ParaRC examines sit in deep local minima. So the
 * free vertices are coarsened (heavy-edge matching on shared inputs, level by level) and a
 * move recolors a whole cluster of some level, from single vertices to large groups.
 *
 * <p><b>Why a target.</b> The max repair load is flat almost everywhere under small moves;
 * instead the cost is bandwidth + W x (sum over nodes of in and out above a target T). T
 * starts at the lower bound (the requestor must receive every repaired sub-chunk) and rises
 * only if no plan within it is found (bisection towards the best feasible load known). At the
 * final T the annealing minimizes bandwidth, so the result is an MLP candidate: least load
 * first, then least bandwidth.
 *
 * <p>Proposals: a cluster's new color is, mostly, the color of a value one of its members
 * reads or feeds (the places where moving pays), sometimes any candidate. Everything is
 * counted in moves, not seconds, so a seed reproduces a plan exactly on any machine; the
 * time limit only cuts a run short (reported as {@code "timeLimited": true}).
 */
final class FastSearch {
  /**
   * Weight of load above target, per sub-chunk, against one sub-chunk of bandwidth: low at
   * first (the search may cross infeasible ground), rising during a stage so that it ends
   * inside the target whenever it can.
   */
  private static final int PENALTY_START = 2;
  private static final int PENALTY_END = 40;
  private int penalty = PENALTY_START;

  private final RepairProblem problem;
  private final long seed;
  private final long moveBudget;
  private final double timeLimit;
  private final int[] initial;
  private Point goal = new Point(0, 0);
  private int cap;

  private TrafficState st;
  private int[] free;
  private int[] cand;
  private int[][] levels; // levels[l] = cluster id of each free index at level l
  private int[][][] clusters; // clusters[l][c] = free vertex ids in cluster c of level l
  private long deadline;
  private boolean cut;
  private long moves;
  private final Front front = new Front();

  FastSearch(RepairProblem problem, long seed, long moveBudget, double timeLimitSeconds) {
    this(problem, seed, moveBudget, timeLimitSeconds, null);
  }

  /** @param initial a coloring to start from (null: the greedy one) */
  FastSearch(RepairProblem problem, long seed, long moveBudget, double timeLimitSeconds, int[] initial) {
    this.problem = problem;
    this.seed = seed;
    this.moveBudget = moveBudget;
    this.timeLimit = timeLimitSeconds;
    this.initial = initial == null ? null : initial.clone();
  }

  /** A point known to be optimal (lower bounds): reaching it ends the search. */
  FastSearch stopAt(Point bound) {
    this.goal = bound;
    return this;
  }

  /** Minimize bandwidth within max load {@code maxLoad} instead of the MLP (0: MLP). */
  FastSearch capAt(int maxLoad) {
    this.cap = maxLoad;
    return this;
  }

  private boolean reached(int load, long bw) {
    return load <= goal.maxLoad() && bw <= goal.bandwidth();
  }

  /** A default budget: enough for the largest Table-2 codes in well under a minute. */
  static long defaultBudget(RepairProblem p) {
    int f = p.freeView().length;
    return Math.max(1_000_000L, Math.min(6_000_000L, 4_000L * f));
  }

  SearchResult run() {
    long start = System.nanoTime();
    deadline = start + (long) (timeLimit * 1e9);
    SplittableRandom rnd = new SplittableRandom(seed);
    free = problem.freeView();
    cand = problem.candidatesView();
    int[] init = greedy();
    if (initial != null) {
      problem.checkColoring(initial);
      Point g = Traffic.of(problem.graph(), init, problem.nodeCount()).point();
      front.offer(g, init);
      init = initial;
    }
    st = new TrafficState(problem.graph(), problem.nodeCount(), init);
    offer();
    if (free.length == 0) {
      return SearchResult.of(front, start, Map.of("moves", 0L));
    }
    buildClusters(rnd.split());
    int lower = Math.max(Math.max(1, problem.repairedCount()), goal.maxLoad());
    Point central = Traffic.of(problem.graph(), problem.centralizedColoring(), problem.nodeCount()).point();
    front.offer(central, problem.centralizedColoring());
    int hi = Math.min(central.maxLoad(), st.maxLoad());
    int lo = lower;
    if (cap > 0) {
      lo = Math.max(lower, cap); // one stage at the cap, then polish there
      hi = lo;
    }
    int target = lo;
    int stages = 0;
    long stageBudget = moveBudget / 2;
    List<Integer> targets = new ArrayList<>();
    int[] bestColor = null;
    Point bestPoint = null;
    while (!cut) {
      stages++;
      targets.add(target);
      int[] got = anneal(target, stageBudget, rnd.split());
      Point p = got == null ? null : pointOf(got);
      if (p != null && Objective.of(cap).better(p, bestPoint)) {
        bestPoint = p;
        bestColor = got;
      }
      if (p != null && p.maxLoad() <= target) {
        hi = Math.min(hi, p.maxLoad());
      } else {
        lo = target + 1;
      }
      if (lo >= hi || stages >= 8 || (p != null && reached(p.maxLoad(), p.bandwidth()))) {
        break;
      }
      target = (lo + hi) / 2;
      stageBudget = Math.max(moveBudget / 8, (moveBudget - moves) / 3);
    }
    // Polish at the best load found: spend what is left minimizing bandwidth within it.
    if (!cut && bestPoint != null && moves < moveBudget && !reached(bestPoint.maxLoad(), bestPoint.bandwidth())) {
      setAll(bestColor);
      int[] got = anneal(cap > 0 ? Math.max(cap, bestPoint.maxLoad()) : bestPoint.maxLoad(), moveBudget - moves,
          rnd.split());
      if (got != null) {
        Point p = pointOf(got);
        if (Objective.of(cap).better(p, bestPoint)) {
          bestPoint = p;
          bestColor = got;
        }
      }
    }
    if (bestColor != null) {
      front.offer(bestPoint, bestColor);
    }
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("moves", moves);
    d.put("loadTargets", targets);
    d.put("clusterLevels", clusters.length);
    d.put("timeLimited", cut);
    return SearchResult.of(front, start, d, Objective.of(cap));
  }

  private Point pointOf(int[] color) {
    setAll(color);
    return st.point();
  }

  private void setAll(int[] color) {
    for (int v : free) {
      st.recolor(v, color[v]);
    }
  }

  private void offer() {
    Point p = st.point();
    if (front.admits(p)) {
      front.offer(p, st.colors());
    }
  }

  /** Each free vertex where most of its inputs already are (topological order), else the requestor. */
  private int[] greedy() {
    int n = problem.nodeCount();
    int[] color = new int[problem.graph().vertices().size()];
    for (int v = 0; v < color.length; v++) {
      color[v] = problem.fixedColor(v);
    }
    int[] votes = new int[n];
    for (int v : free) {
      Arrays.fill(votes, 0);
      for (var e : problem.graph().inputs(v)) {
        votes[color[e.from()]]++;
      }
      int best = problem.requestor();
      int bestVotes = -1;
      for (int c : cand) {
        if (votes[c] > bestVotes || (votes[c] == bestVotes && c != problem.requestor() && best == problem.requestor())) {
          best = c;
          bestVotes = votes[c];
        }
      }
      color[v] = best;
    }
    return color;
  }

  // ------------------------------------------------------------------ annealing

  /** Anneals toward load target T; returns the best coloring within T found (null if none). */
  private int[] anneal(int target, long budget, SplittableRandom rnd) {
    penalty = PENALTY_START;
    long cost = cost(target);
    long bestFeasibleBw = Long.MAX_VALUE;
    int bestFeasibleLoad = Integer.MAX_VALUE;
    int[] bestFeasible = null;
    if (st.excess(target) == 0) {
      bestFeasible = st.colors();
      bestFeasibleBw = st.bandwidth();
      bestFeasibleLoad = st.maxLoad();
    }
    double t0 = 2.0;
    double t1 = 0.02;
    int[] old = new int[64];
    int[] members;
    long end = moves + budget;
    long stageStart = moves;
    int levelCount = clusters.length;
    while (moves < end && !reached(bestFeasibleLoad, bestFeasibleBw)) {
      if ((moves & 0x3FF) == 0 && System.nanoTime() > deadline) {
        cut = true;
        break;
      }
      moves++;
      double frac = (double) (moves - stageStart) / budget;
      double temp = t0 * Math.pow(t1 / t0, frac);
      if ((moves & 0xFF) == 0) {
        int w = (int) (PENALTY_START + (PENALTY_END - PENALTY_START) * frac * frac);
        if (w != penalty) {
          penalty = w;
          cost = cost(target);
        }
      }
      int level = pickLevel(rnd, levelCount);
      int[][] lc = clusters[level];
      members = lc[rnd.nextInt(lc.length)];
      int to = proposeColor(members, rnd);
      if (old.length < members.length) {
        old = new int[members.length * 2];
      }
      boolean same = true;
      for (int i = 0; i < members.length; i++) {
        old[i] = st.color(members[i]);
        same &= old[i] == to;
      }
      if (same) {
        continue;
      }
      for (int v : members) {
        st.recolor(v, to);
      }
      long c = cost(target);
      long delta = c - cost;
      if (delta <= 0 || rnd.nextDouble() < Math.exp(-delta / temp)) {
        cost = c;
        if (st.excess(target) == 0) {
          int bw = st.bandwidth();
          int load = st.maxLoad();
          if (bw < bestFeasibleBw || (bw == bestFeasibleBw && load < bestFeasibleLoad)) {
            bestFeasibleBw = bw;
            bestFeasibleLoad = load;
            bestFeasible = st.colors();
          }
        }
        if (delta < 0) {
          offer();
        }
      } else {
        for (int i = members.length - 1; i >= 0; i--) {
          st.recolor(members[i], old[i]);
        }
      }
    }
    // Greedy descent with a steep penalty: ends inside the target if a few moves get there.
    if (!cut) {
      descend(target);
      if (st.excess(target) == 0 && st.bandwidth() < bestFeasibleBw) {
        bestFeasible = st.colors();
      }
    }
    return bestFeasible;
  }

  private long cost(int target) {
    return st.bandwidth() + (long) penalty * st.excess(target);
  }

  /** Single-vertex and cluster moves that lower bandwidth + 1000 x excess, until none does. */
  private void descend(int target) {
    boolean improved = true;
    int rounds = 0;
    while (improved && rounds++ < 20) {
      improved = false;
      for (int[][] lc : clusters) {
        for (int[] members : lc) {
          long base = st.bandwidth() + 1000L * st.excess(target);
          int[] old = new int[members.length];
          for (int i = 0; i < members.length; i++) {
            old[i] = st.color(members[i]);
          }
          int bestTo = -1;
          long bestCost = base;
          for (int c : cand) {
            for (int v : members) {
              st.recolor(v, c);
            }
            moves++;
            long cost = st.bandwidth() + 1000L * st.excess(target);
            if (cost < bestCost) {
              bestCost = cost;
              bestTo = c;
            }
            for (int i = members.length - 1; i >= 0; i--) {
              st.recolor(members[i], old[i]);
            }
          }
          if (bestTo >= 0) {
            for (int v : members) {
              st.recolor(v, bestTo);
            }
            improved = true;
            offer();
          }
        }
      }
    }
  }

  private static int pickLevel(SplittableRandom rnd, int levels) {
    // Finer levels more often: half the moves single vertices, the rest spread over coarser levels.
    if (levels == 1 || rnd.nextInt(2) == 0) {
      return 0;
    }
    return 1 + rnd.nextInt(levels - 1);
  }

  private int proposeColor(int[] members, SplittableRandom rnd) {
    if (rnd.nextInt(8) == 0) {
      return cand[rnd.nextInt(cand.length)];
    }
    int v = members[rnd.nextInt(members.length)];
    int[] in = st.inputs(v);
    int[] out = st.consumers(v);
    int total = in.length + out.length;
    if (total == 0) {
      return cand[rnd.nextInt(cand.length)];
    }
    int pick = rnd.nextInt(total);
    int u = pick < in.length ? in[pick] : out[pick - in.length];
    int c = st.color(u);
    return Arrays.binarySearch(cand, c) >= 0 ? c : cand[rnd.nextInt(cand.length)];
  }

  // ------------------------------------------------------------------ clusters

  /**
   * Multilevel coarsening of the free vertices: affinity between two vertices is the sum,
   * over values both read (or one computes and the other reads), of 1 / (sharers - 1); each
   * level matches every cluster with its unmatched neighbor of highest affinity per size.
   */
  private void buildClusters(SplittableRandom rnd) {
    int f = free.length;
    int[] index = new int[problem.graph().vertices().size()];
    Arrays.fill(index, -1);
    for (int i = 0; i < f; i++) {
      index[free[i]] = i;
    }
    List<Map<Integer, Double>> aff = new ArrayList<>();
    for (int i = 0; i < f; i++) {
      aff.add(new HashMap<>());
    }
    for (int u = 0; u < st.vertexCount(); u++) {
      List<Integer> sharers = new ArrayList<>();
      if (index[u] >= 0) {
        sharers.add(index[u]);
      }
      for (int w : st.consumers(u)) {
        if (index[w] >= 0) {
          sharers.add(index[w]);
        }
      }
      int s = sharers.size();
      if (s < 2 || s > 64) {
        continue;
      }
      double w = 1.0 / (s - 1);
      for (int a = 0; a < s; a++) {
        for (int b = a + 1; b < s; b++) {
          aff.get(sharers.get(a)).merge(sharers.get(b), w, Double::sum);
          aff.get(sharers.get(b)).merge(sharers.get(a), w, Double::sum);
        }
      }
    }
    List<int[]> levelOf = new ArrayList<>();
    List<int[][]> lists = new ArrayList<>();
    int[] cur = new int[f];
    for (int i = 0; i < f; i++) {
      cur[i] = i;
    }
    int count = f;
    int[] size = new int[f];
    Arrays.fill(size, 1);
    levelOf.add(cur.clone());
    lists.add(members(cur, count));
    int minClusters = Math.max(2, cand.length);
    while (count > minClusters && levelOf.size() < 12) {
      int[] match = new int[count];
      Arrays.fill(match, -1);
      int[] order = new int[count];
      for (int i = 0; i < count; i++) {
        order[i] = i;
      }
      for (int i = count - 1; i > 0; i--) {
        int j = rnd.nextInt(i + 1);
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
      }
      int next = 0;
      int[] newId = new int[count];
      for (int a : order) {
        if (match[a] >= 0) {
          continue;
        }
        int best = -1;
        double bestScore = 0;
        for (Map.Entry<Integer, Double> e : aff.get(a).entrySet()) {
          int b = e.getKey();
          if (match[b] >= 0 || b == a) {
            continue;
          }
          double score = e.getValue() / ((double) size[a] * size[b]);
          if (score > bestScore || (score == bestScore && best >= 0 && b < best)) {
            bestScore = score;
            best = b;
          }
        }
        match[a] = a;
        newId[a] = next;
        if (best >= 0) {
          match[best] = a;
          newId[best] = next;
        }
        next++;
      }
      if (next > count * 0.9) {
        break; // coarsening stalls
      }
      List<Map<Integer, Double>> naff = new ArrayList<>();
      int[] nsize = new int[next];
      for (int i = 0; i < next; i++) {
        naff.add(new HashMap<>());
      }
      for (int a = 0; a < count; a++) {
        int na = newId[a];
        nsize[na] += size[a];
        for (Map.Entry<Integer, Double> e : aff.get(a).entrySet()) {
          int nb = newId[e.getKey()];
          if (nb != na) {
            naff.get(na).merge(nb, e.getValue(), Double::sum);
          }
        }
      }
      for (int i = 0; i < f; i++) {
        cur[i] = newId[cur[i]];
      }
      aff = naff;
      size = nsize;
      count = next;
      levelOf.add(cur.clone());
      lists.add(members(cur, count));
    }
    levels = levelOf.toArray(new int[0][]);
    clusters = lists.toArray(new int[0][][]);
  }

  private int[][] members(int[] clusterOf, int count) {
    int[] n = new int[count];
    for (int c : clusterOf) {
      n[c]++;
    }
    int[][] m = new int[count][];
    for (int c = 0; c < count; c++) {
      m[c] = new int[n[c]];
      n[c] = 0;
    }
    for (int i = 0; i < clusterOf.length; i++) {
      m[clusterOf[i]][n[clusterOf[i]]++] = free[i];
    }
    return m;
  }
}
