package io.ecrepair.plan;

import io.ecrepair.ecdag.Ecdag;
import java.util.Arrays;
import java.util.BitSet;

/**
 * ParaRC's traffic table (section 3.2): sub-chunks each node receives and sends under a
 * coloring. Counting rule: a value computed or stored on node A and used by vertices colored
 * B != A is sent once per (value, B) pair, however many consumers it has on B (ParaRC section
 * 6.2: same-colored uses share one transfer). Repair bandwidth is the total sent; a node's
 * repair load is the larger of what it sends and receives; max repair load is the largest.
 */
public final class Traffic {
  private final int[] in;
  private final int[] out;

  public Traffic(int[] in, int[] out) {
    if (in.length != out.length) {
      throw new IllegalArgumentException("in and out tables differ in length");
    }
    this.in = in.clone();
    this.out = out.clone();
  }

  /** The traffic table of {@code graph} colored by {@code color}, over {@code nodeCount} nodes. */
  public static Traffic of(Ecdag graph, int[] color, int nodeCount) {
    int[] in = new int[nodeCount];
    int[] out = new int[nodeCount];
    BitSet dest = new BitSet(nodeCount);
    int[][] consumers = consumers(graph);
    for (int u = 0; u < consumers.length; u++) {
      dest.clear();
      for (int w : consumers[u]) {
        if (color[w] != color[u]) {
          dest.set(color[w]);
        }
      }
      for (int c = dest.nextSetBit(0); c >= 0; c = dest.nextSetBit(c + 1)) {
        in[c]++;
        out[color[u]]++;
      }
    }
    return new Traffic(in, out);
  }

  /** Distinct consumers of every vertex. */
  static int[][] consumers(Ecdag graph) {
    int v = graph.vertices().size();
    int[] count = new int[v];
    for (Ecdag.Edge e : graph.edges()) {
      count[e.from()]++;
    }
    int[][] c = new int[v][];
    for (int i = 0; i < v; i++) {
      c[i] = new int[count[i]];
      count[i] = 0;
    }
    for (Ecdag.Edge e : graph.edges()) {
      c[e.from()][count[e.from()]++] = e.to();
    }
    return c;
  }

  public int nodeCount() {
    return in.length;
  }

  public int in(int node) {
    return in[node];
  }

  public int out(int node) {
    return out[node];
  }

  public int load(int node) {
    return Math.max(in[node], out[node]);
  }

  /** Total sub-chunks sent (equals the total received). */
  public int bandwidth() {
    return Arrays.stream(out).sum();
  }

  public int maxLoad() {
    int m = 0;
    for (int i = 0; i < in.length; i++) {
      m = Math.max(m, load(i));
    }
    return m;
  }

  public Point point() {
    return new Point(maxLoad(), bandwidth());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Traffic t && Arrays.equals(in, t.in) && Arrays.equals(out, t.out);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(in) + Arrays.hashCode(out);
  }

  @Override
  public String toString() {
    return "Traffic(in=" + Arrays.toString(in) + ", out=" + Arrays.toString(out) + ", bandwidth=" + bandwidth()
        + ", maxLoad=" + maxLoad() + ")";
  }
}
