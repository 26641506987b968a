package io.ecrepair.plan;

import io.ecrepair.ecdag.Ecdag;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A colored repair graph (a pECDAG): every vertex is computed, or stored, on the node its
 * color names, and values move between nodes along edges whose ends differ in color. Carries
 * its traffic table, how it was found, and the other non-dominated points the search saw.
 */
public final class Plan {
  private final RepairProblem problem;
  private final int[] color;
  private final Traffic traffic;
  private final String strategy;
  private final String transform;
  private final double searchSeconds;
  private final List<Point> front;
  private final Map<String, Object> details;

  public Plan(RepairProblem problem, int[] color, String strategy, String transform, double searchSeconds,
              List<Point> front, Map<String, Object> details) {
    problem.checkColoring(color);
    this.problem = problem;
    this.color = color.clone();
    this.traffic = Traffic.of(problem.graph(), color, problem.nodeCount());
    this.strategy = strategy;
    this.transform = transform;
    this.searchSeconds = searchSeconds;
    this.front = front == null ? List.of(traffic.point()) : List.copyOf(front);
    this.details = details == null ? Map.of() : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(details));
  }

  public RepairProblem problem() {
    return problem;
  }

  public Ecdag graph() {
    return problem.graph();
  }

  /** Node of every vertex (by id). */
  public int[] colors() {
    return color.clone();
  }

  public int color(int vertex) {
    return color[vertex];
  }

  /**
   * The nodes other than the requestor that compute some vertex (they receive values; the others
   * only send their own sub-chunks), ascending.
   */
  public int[] computingNodes() {
    java.util.TreeSet<Integer> nodes = new java.util.TreeSet<>();
    for (int v : problem.freeVertices()) {
      if (color[v] != problem.requestor()) {
        nodes.add(color[v]);
      }
    }
    return nodes.stream().mapToInt(Integer::intValue).toArray();
  }

  public Traffic traffic() {
    return traffic;
  }

  public Point point() {
    return traffic.point();
  }

  public String strategy() {
    return strategy;
  }

  /** The graph transform applied to the code's graph before coloring ("none" if none). */
  public String transform() {
    return transform;
  }

  public double searchSeconds() {
    return searchSeconds;
  }

  /** Non-dominated points the search found (the chosen point among them), least first. */
  public List<Point> front() {
    return front;
  }

  /** Strategy-specific facts (restarts, evaluations, path, slices, ...). */
  public Map<String, Object> details() {
    return details;
  }

  /** The same plan with another search time and details (e.g. loaded from a store). */
  public Plan withSearch(double seconds, Map<String, Object> moreDetails) {
    Map<String, Object> d = new LinkedHashMap<>(details);
    d.putAll(moreDetails);
    return new Plan(problem, color, strategy, transform, seconds, front, d);
  }

  @Override
  public String toString() {
    return strategy + "/" + transform + " " + traffic.point() + " in " + String.format("%.3f s", searchSeconds);
  }
}
