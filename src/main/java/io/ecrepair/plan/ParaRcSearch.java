package io.ecrepair.plan;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * ParaRC's heuristic (FAST'23, section 4), as the paper states it. Step 1: a random coloring
 * of the free vertices (from the candidate nodes) starts both the un-searched pool and the
 * candidate pool. Step 2: take a pECDAG from the un-searched pool and examine all its
 * neighbors (one free vertex recolored: alpha x (beta - 1) of them). Step 3: a neighbor that a
 * candidate covers (no worse in max load and bandwidth) is dropped; otherwise it joins the
 * candidate pool, evicting the candidates it dominates, and the un-searched pool. Repeat
 * until the un-searched pool is empty, and the whole from new random starts; report the
 * candidate with the least max load (then the least bandwidth).
 *
 * <p>Two readings of the paper's text: a neighbor equal to a candidate in both measures is
 * dropped (otherwise plateaus never end), and an evicted candidate is not searched any more.
 * Restarts are counted, not timed, so a seed gives the same result on any machine; the time
 * limit only cuts a run short (then {@code "timeLimited": true}).
 */
final class ParaRcSearch {
  private final RepairProblem problem;
  private final long seed;
  private final int restarts;
  private final double timeLimit;

  ParaRcSearch(RepairProblem problem, long seed, int restarts, double timeLimitSeconds) {
    this.problem = problem;
    this.seed = seed;
    this.restarts = restarts;
    this.timeLimit = timeLimitSeconds;
  }

  private static final class Candidate {
    final Point point;
    final int[] color;
    boolean alive = true;

    Candidate(Point point, int[] color) {
      this.point = point;
      this.color = color;
    }
  }

  SearchResult run() {
    return run(Objective.MLP);
  }

  /** Runs the heuristic and reports the candidate best under {@code objective} (the MLP by default). */
  SearchResult run(Objective objective) {
    long start = System.nanoTime();
    long deadline = start + (long) (timeLimit * 1e9);
    Random rnd = new Random(seed);
    int[] free = problem.freeView();
    int[] cand = problem.candidatesView();
    Front global = new Front();
    long examined = 0;
    int runs = 0;
    boolean cut = false;
    int[] fixed = new int[problem.graph().vertices().size()];
    for (int v = 0; v < fixed.length; v++) {
      fixed[v] = problem.fixedColor(v);
    }
    for (int r = 0; r < restarts && !cut; r++) {
      int[] startColor = fixed.clone();
      for (int v : free) {
        startColor[v] = cand[rnd.nextInt(cand.length)];
      }
      TrafficState st = new TrafficState(problem.graph(), problem.nodeCount(), startColor);
      List<Candidate> pool = new ArrayList<>();
      ArrayDeque<Candidate> unsearched = new ArrayDeque<>();
      Candidate first = new Candidate(st.point(), st.colors());
      pool.add(first);
      unsearched.add(first);
      while (!unsearched.isEmpty()) {
        if (System.nanoTime() > deadline) {
          cut = true;
          break;
        }
        Candidate x = unsearched.poll();
        if (!x.alive) {
          continue;
        }
        setColors(st, x.color, free);
        for (int v : free) {
          int a = st.color(v);
          for (int c : cand) {
            if (c == a) {
              continue;
            }
            st.recolor(v, c);
            examined++;
            Point p = st.point();
            if (admits(pool, p)) {
              Candidate y = new Candidate(p, st.colors());
              for (Candidate z : pool) {
                if (p.covers(z.point)) {
                  z.alive = false;
                }
              }
              pool.removeIf(z -> !z.alive);
              pool.add(y);
              unsearched.add(y);
            }
            st.recolor(v, a);
          }
        }
      }
      for (Candidate c : pool) {
        global.offer(c.point, c.color);
      }
      runs++;
    }
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("restarts", runs);
    d.put("pecdagsExamined", examined);
    d.put("timeLimited", cut);
    return SearchResult.of(global, start, d, objective);
  }

  private static boolean admits(List<Candidate> pool, Point p) {
    for (Candidate c : pool) {
      if (c.point.covers(p)) {
        return false;
      }
    }
    return true;
  }

  static void setColors(TrafficState st, int[] color, int[] free) {
    for (int v : free) {
      st.recolor(v, color[v]);
    }
  }
}
