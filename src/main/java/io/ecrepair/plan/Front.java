package io.ecrepair.plan;

import java.util.ArrayList;
import java.util.List;

/**
 * Non-dominated (max load, bandwidth) points with a coloring for each: ParaRC's candidate
 * pool (section 4). A point joins unless a member covers it (is no worse in both), and it
 * evicts the members it dominates.
 */
final class Front {
  record Entry(Point point, int[] color) {}

  private final List<Entry> entries = new ArrayList<>();

  /** Whether p would join (no member covers it). */
  boolean admits(Point p) {
    for (Entry e : entries) {
      if (e.point().covers(p)) {
        return false;
      }
    }
    return true;
  }

  /** Adds p with a copy of color if admitted; returns whether it joined. */
  boolean offer(Point p, int[] color) {
    if (!admits(p)) {
      return false;
    }
    entries.removeIf(e -> p.covers(e.point()));
    entries.add(new Entry(p, color.clone()));
    return true;
  }

  /** The least point (MLP: least max load, then least bandwidth). */
  Entry best() {
    return best(Objective.MLP);
  }

  /** The best point under an objective. */
  Entry best(Objective o) {
    Entry b = null;
    for (Entry e : entries) {
      if (o.better(e.point(), b == null ? null : b.point())) {
        b = e;
      }
    }
    return b;
  }

  List<Point> points() {
    return entries.stream().map(Entry::point).sorted().toList();
  }

  List<Entry> entries() {
    return List.copyOf(entries);
  }

  void addAll(Front other) {
    for (Entry e : other.entries) {
      offer(e.point(), e.color());
    }
  }

  boolean isEmpty() {
    return entries.isEmpty();
  }
}
