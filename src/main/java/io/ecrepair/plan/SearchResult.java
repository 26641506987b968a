package io.ecrepair.plan;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What a search returns: the chosen coloring, the front it saw, and facts about the run. */
record SearchResult(int[] color, List<Point> front, double seconds, Map<String, Object> details) {
  static SearchResult of(Front front, long startNanos, Map<String, Object> details) {
    return of(front, startNanos, details, Objective.MLP);
  }

  static SearchResult of(Front front, long startNanos, Map<String, Object> details, Objective objective) {
    Front.Entry best = front.best(objective);
    return new SearchResult(best.color(), front.points(), (System.nanoTime() - startNanos) / 1e9,
        new LinkedHashMap<>(details));
  }
}
