package io.ecrepair.plan;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Exhaustive search for the min-max repair load point (MLP): every coloring of the free
 * vertices over the candidate nodes, by depth-first search in topological order with branch
 * and bound. The traffic counted while vertices are colored one by one (edges with both ends
 * colored) only grows, so a partial coloring whose max load, or equal max load and
 * bandwidth, is already no better than the best complete one is cut: the answer is exact.
 * Meant for small graphs (ParaRC's brute force on Clay (4,2) and Butterfly (6,4)).
 */
final class BruteForce {
  private final RepairProblem problem;
  private final double timeLimit;
  private TrafficState st;
  private int[] free;
  private int[] cand;
  private int bestLoad = Integer.MAX_VALUE;
  private int bestBw = Integer.MAX_VALUE;
  private int[] best;
  private long visited;
  private long deadline;
  private boolean cut;
  private final Front front = new Front();
  private Objective objective = Objective.MLP;

  BruteForce(RepairProblem problem, double timeLimitSeconds) {
    this.problem = problem;
    this.timeLimit = timeLimitSeconds;
  }

  SearchResult run() {
    return run(Objective.MLP);
  }

  /**
   * With a max-load cap, the least bandwidth within it (cut: load over the cap, or bandwidth
   * already no better); if no coloring fits the cap, the MLP.
   */
  SearchResult run(Objective o) {
    if (o.capped()) {
      objective = o;
      SearchResult r = search();
      if (o.within(Traffic.of(problem.graph(), r.color(), problem.nodeCount()).point())) {
        return r;
      }
      objective = Objective.MLP;
    }
    return search();
  }

  private SearchResult search() {
    long start = System.nanoTime();
    deadline = start + (long) (timeLimit * 1e9);
    free = problem.freeView();
    cand = problem.candidatesView();
    int[] init = new int[problem.graph().vertices().size()];
    for (int v = 0; v < init.length; v++) {
      init[v] = problem.fixedColor(v);
    }
    st = new TrafficState(problem.graph(), problem.nodeCount(), init);
    // Start from the centralized coloring's point, so the bound bites at once.
    int[] central = problem.centralizedColoring();
    Point c = Traffic.of(problem.graph(), central, problem.nodeCount()).point();
    bestLoad = Integer.MAX_VALUE;
    bestBw = Integer.MAX_VALUE;
    best = central;
    if (objective.within(c)) {
      bestLoad = c.maxLoad();
      bestBw = c.bandwidth();
    }
    front.offer(c, central);
    visited = 0;
    cut = false;
    dfs(0);
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("coloringsVisited", visited);
    d.put("exhaustive", !cut);
    d.put("timeLimited", cut);
    if (bestLoad != Integer.MAX_VALUE) {
      front.offer(new Point(bestLoad, bestBw), best);
    }
    return SearchResult.of(front, start, d, objective);
  }

  private void dfs(int i) {
    if (cut) {
      return;
    }
    if ((++visited & 0xFFF) == 0 && System.nanoTime() > deadline) {
      cut = true;
      return;
    }
    int load = st.maxLoad();
    int bw = st.bandwidth();
    if (objective.capped()) {
      // Least bandwidth within the cap, then least load.
      if (load > objective.maxLoadCap() || bw > bestBw || (bw == bestBw && load >= bestLoad)) {
        return;
      }
    } else if (load > bestLoad || (load == bestLoad && bw >= bestBw && i < free.length)) {
      return;
    }
    if (i == free.length) {
      if (objective.better(new Point(load, bw), bestLoad == Integer.MAX_VALUE ? null : new Point(bestLoad, bestBw))) {
        bestLoad = load;
        bestBw = bw;
        best = st.colors();
      }
      return;
    }
    int v = free[i];
    for (int c : cand) {
      st.recolor(v, c);
      dfs(i + 1);
      st.recolor(v, -1);
    }
  }
}
