package io.ecrepair.exec;

import io.ecrepair.ecdag.Ecdag;
import io.ecrepair.gf.GFMatrix;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one node does in a colored repair graph, apart from how bytes reach it: the stored
 * sub-chunks it reads, the values it receives, the compute steps it runs, and where it sends
 * each value it holds. The same programs run in one JVM ({@link SimulatedCluster}) or across
 * DataNodes; only the transport differs.
 *
 * <p>Steps follow ParaRC's deployment rule (section 6.2): vertices are grouped by topological
 * level, and the vertices of one level that one node computes from the same inputs form one
 * step (one multi-row GF(2^8) product), so an input that reached the node once serves every
 * use there. A value goes once to each other node that has consumers of it, whatever their
 * number (the counting rule of the traffic table).
 */
public final class NodeProgram {
  /** outputs[r] = sum_j matrix[r][j] x inputs[j] (vertex ids), at topological level {@code level}. */
  public record Step(int level, int[] inputs, int[] outputs, GFMatrix matrix) {}

  /** A value (vertex id) and the other nodes it goes to, sent at {@code level} (when it exists). */
  public record Send(int vertex, int level, int[] to) {}

  private final int node;
  private final List<Integer> reads;
  private final List<Integer> receives;
  private final List<Step> steps;
  private final List<Send> sends;

  private NodeProgram(int node, List<Integer> reads, List<Integer> receives, List<Step> steps, List<Send> sends) {
    this.node = node;
    this.reads = List.copyOf(reads);
    this.receives = List.copyOf(receives);
    this.steps = List.copyOf(steps);
    this.sends = List.copyOf(sends);
  }

  public int node() {
    return node;
  }

  /** Leaf vertices of this node's block that anyone uses (read locally). */
  public List<Integer> reads() {
    return reads;
  }

  /** Values computed or stored elsewhere that this node needs. */
  public List<Integer> receives() {
    return receives;
  }

  public List<Step> steps() {
    return steps;
  }

  public List<Send> sends() {
    return sends;
  }

  /** Longest path from a leaf, per vertex (leaves 0). */
  public static int[] levels(Ecdag g) {
    int[] level = new int[g.vertices().size()];
    for (Ecdag.Vertex v : g.vertices()) {
      int l = 0;
      for (Ecdag.Edge e : g.inputs(v.id())) {
        l = Math.max(l, level[e.from()] + 1);
      }
      level[v.id()] = l;
    }
    return level;
  }

  /** The programs of every node that does something under {@code color}, by node. */
  public static Map<Integer, NodeProgram> compile(Ecdag g, int[] color) {
    int count = g.vertices().size();
    if (color.length != count) {
      throw new IllegalArgumentException("coloring has " + color.length + " entries for " + count + " vertices");
    }
    int[] level = levels(g);
    int root = g.root().id();
    TreeMap<Integer, List<Integer>> reads = new TreeMap<>();
    TreeMap<Integer, List<Integer>> receives = new TreeMap<>();
    TreeMap<Integer, List<Send>> sends = new TreeMap<>();
    TreeMap<Integer, Map<String, StepBuilder>> steps = new TreeMap<>();
    int[][] consumers = new int[count][];
    int[] deg = new int[count];
    for (Ecdag.Edge e : g.edges()) {
      deg[e.from()]++;
    }
    for (int i = 0; i < count; i++) {
      consumers[i] = new int[deg[i]];
      deg[i] = 0;
    }
    for (Ecdag.Edge e : g.edges()) {
      consumers[e.from()][deg[e.from()]++] = e.to();
    }
    for (Ecdag.Vertex v : g.vertices()) {
      int c = color[v.id()];
      if (v.kind() == Ecdag.Kind.LEAF) {
        if (c != v.block()) {
          throw new IllegalArgumentException("leaf " + v.id() + " of block " + v.block() + " colored " + c);
        }
        if (consumers[v.id()].length > 0) {
          reads.computeIfAbsent(c, x -> new ArrayList<>()).add(v.id());
        }
      } else if (v.kind() != Ecdag.Kind.ROOT) {
        List<Ecdag.Edge> in = new ArrayList<>(g.inputs(v.id()));
        in.sort((a, b) -> Integer.compare(a.from(), b.from()));
        int[] ids = in.stream().mapToInt(Ecdag.Edge::from).toArray();
        String key = level[v.id()] + ":" + Arrays.toString(ids);
        steps.computeIfAbsent(c, x -> new LinkedHashMap<>())
            .computeIfAbsent(key, x -> new StepBuilder(level[v.id()], ids))
            .row(in.stream().mapToInt(Ecdag.Edge::coef).toArray(), v.id());
      }
      if (v.id() == root) {
        continue;
      }
      int[] dest = Arrays.stream(consumers[v.id()]).map(w -> color[w]).filter(x -> x != c).distinct().sorted().toArray();
      if (dest.length > 0) {
        sends.computeIfAbsent(c, x -> new ArrayList<>()).add(new Send(v.id(), level[v.id()], dest));
        for (int d : dest) {
          receives.computeIfAbsent(d, x -> new ArrayList<>()).add(v.id());
        }
      }
    }
    TreeMap<Integer, NodeProgram> out = new TreeMap<>();
    java.util.Set<Integer> nodes = new java.util.TreeSet<>();
    nodes.addAll(reads.keySet());
    nodes.addAll(receives.keySet());
    nodes.addAll(steps.keySet());
    nodes.addAll(sends.keySet());
    nodes.add(color[root]);
    for (int n : nodes) {
      List<Step> st = new ArrayList<>();
      for (StepBuilder b : steps.getOrDefault(n, Map.of()).values()) {
        st.add(b.build());
      }
      st.sort((a, b) -> Integer.compare(a.level(), b.level()));
      out.put(n, new NodeProgram(n, reads.getOrDefault(n, List.of()), receives.getOrDefault(n, List.of()), st,
          sends.getOrDefault(n, List.of())));
    }
    return out;
  }

  private static final class StepBuilder {
    final int level;
    final int[] inputs;
    final List<int[]> rows = new ArrayList<>();
    final List<Integer> outputs = new ArrayList<>();

    StepBuilder(int level, int[] inputs) {
      this.level = level;
      this.inputs = inputs;
    }

    void row(int[] coefs, int output) {
      rows.add(coefs);
      outputs.add(output);
    }

    Step build() {
      byte[] m = new byte[rows.size() * inputs.length];
      for (int r = 0; r < rows.size(); r++) {
        for (int c = 0; c < inputs.length; c++) {
          m[r * inputs.length + c] = (byte) rows.get(r)[c];
        }
      }
      return new Step(level, inputs, outputs.stream().mapToInt(Integer::intValue).toArray(),
          new GFMatrix(rows.size(), inputs.length, m));
    }
  }
}
