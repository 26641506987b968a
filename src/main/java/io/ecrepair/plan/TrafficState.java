package io.ecrepair.plan;

import io.ecrepair.ecdag.Ecdag;

/**
 * A coloring with its traffic table kept up to date under recoloring, for searches: changing
 * one vertex's color costs O(its degree + nodes). Color -1 means "not colored yet": edges with
 * an uncolored end are not counted, so while a search colors vertices one by one the counts
 * only grow (what branch and bound needs).
 *
 * <p>Per value u and node c it keeps how many consumers of u have color c; a transfer
 * (u -> c) exists while that count is positive and c differs from u's color, which is exactly
 * the counting rule of {@link Traffic}.
 */
final class TrafficState {
  private final int nodes;
  private final int[] color;
  private final int[][] inputs;
  private final int[][] consumers;
  private final int[] count;
  private final int[] in;
  private final int[] out;
  private int bandwidth;

  TrafficState(Ecdag graph, int nodeCount, int[] initial) {
    this.nodes = nodeCount;
    int v = graph.vertices().size();
    this.color = new int[v];
    java.util.Arrays.fill(color, -1);
    this.inputs = new int[v][];
    for (int i = 0; i < v; i++) {
      inputs[i] = graph.inputs(i).stream().mapToInt(Ecdag.Edge::from).toArray();
    }
    this.consumers = Traffic.consumers(graph);
    this.count = new int[v * nodeCount];
    this.in = new int[nodeCount];
    this.out = new int[nodeCount];
    for (int i = 0; i < v; i++) {
      if (initial[i] >= 0) {
        recolor(i, initial[i]);
      }
    }
  }

  int color(int v) {
    return color[v];
  }

  int[] colors() {
    return color.clone();
  }

  int[] inputs(int v) {
    return inputs[v];
  }

  int[] consumers(int v) {
    return consumers[v];
  }

  int vertexCount() {
    return color.length;
  }

  int nodeCount() {
    return nodes;
  }

  int bandwidth() {
    return bandwidth;
  }

  int in(int node) {
    return in[node];
  }

  int out(int node) {
    return out[node];
  }

  int maxLoad() {
    int m = 0;
    for (int i = 0; i < nodes; i++) {
      m = Math.max(m, Math.max(in[i], out[i]));
    }
    return m;
  }

  /** Sum over nodes of what their in and out exceed {@code target} by. */
  int excess(int target) {
    int e = 0;
    for (int i = 0; i < nodes; i++) {
      e += Math.max(0, in[i] - target) + Math.max(0, out[i] - target);
    }
    return e;
  }

  Point point() {
    return new Point(maxLoad(), bandwidth);
  }

  Traffic traffic() {
    return new Traffic(in, out);
  }

  /** Sets v's color to b (-1 uncolors it). */
  void recolor(int v, int b) {
    int a = color[v];
    if (a == b) {
      return;
    }
    int base = v * nodes;
    // v as a producer: its transfers leave from a, then from b.
    for (int c = 0; c < nodes; c++) {
      if (count[base + c] > 0) {
        if (a >= 0 && c != a) {
          out[a]--;
          in[c]--;
          bandwidth--;
        }
        if (b >= 0 && c != b) {
          out[b]++;
          in[c]++;
          bandwidth++;
        }
      }
    }
    color[v] = b;
    // v as a consumer: its inputs now flow to b instead of a.
    for (int u : inputs[v]) {
      int cu = color[u];
      int ub = u * nodes;
      if (a >= 0 && --count[ub + a] == 0 && cu >= 0 && a != cu) {
        out[cu]--;
        in[a]--;
        bandwidth--;
      }
      if (b >= 0 && count[ub + b]++ == 0 && cu >= 0 && b != cu) {
        out[cu]++;
        in[b]++;
        bandwidth++;
      }
    }
  }

  /** Consumers of u colored c (for move proposals). */
  int consumersOn(int u, int c) {
    return count[u * nodes + c];
  }
}
