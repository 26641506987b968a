package io.ecrepair.plan;

/**
 * A repair solution's (max repair load, repair bandwidth), in sub-chunks. Points order as
 * ParaRC ranks them: less max repair load first, then less bandwidth (the min-max repair
 * load point, MLP, is the least).
 */
public record Point(int maxLoad, int bandwidth) implements Comparable<Point> {

  /** No worse in both and better in one. */
  public boolean dominates(Point o) {
    return maxLoad <= o.maxLoad && bandwidth <= o.bandwidth && (maxLoad < o.maxLoad || bandwidth < o.bandwidth);
  }

  /** No worse in both (dominates or equals). */
  public boolean covers(Point o) {
    return maxLoad <= o.maxLoad && bandwidth <= o.bandwidth;
  }

  @Override
  public int compareTo(Point o) {
    return maxLoad != o.maxLoad ? Integer.compare(maxLoad, o.maxLoad) : Integer.compare(bandwidth, o.bandwidth);
  }

  @Override
  public String toString() {
    return "(" + maxLoad + ", " + bandwidth + ")";
  }
}
