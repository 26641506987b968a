package io.ecrepair.plan;

/**
 * What a search minimizes. Without a cap: ParaRC's min-max repair load point (least max
 * load, then least bandwidth). With a cap: the least bandwidth among plans whose max load is
 * within the cap (then the least load); plans over the cap rank after every plan within it,
 * nearest to the cap first.
 */
record Objective(int maxLoadCap) {
  static final Objective MLP = new Objective(0);

  static Objective of(int cap) {
    return cap > 0 ? new Objective(cap) : MLP;
  }

  boolean capped() {
    return maxLoadCap > 0;
  }

  boolean within(Point p) {
    return !capped() || p.maxLoad() <= maxLoadCap;
  }

  /** Whether a is strictly better than b (b may be null). */
  boolean better(Point a, Point b) {
    if (b == null) {
      return true;
    }
    if (!capped()) {
      return a.compareTo(b) < 0;
    }
    boolean wa = within(a);
    boolean wb = within(b);
    if (wa != wb) {
      return wa;
    }
    if (wa) {
      return a.bandwidth() != b.bandwidth() ? a.bandwidth() < b.bandwidth() : a.maxLoad() < b.maxLoad();
    }
    return a.compareTo(b) < 0;
  }
}
