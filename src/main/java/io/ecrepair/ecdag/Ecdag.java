package io.ecrepair.ecdag;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A repair or decoding graph over sub-chunks (OpenEC's ECDAG idea): leaves are stored
 * sub-chunks of internal blocks, every other vertex is the GF(2^8) sum of coef x input over
 * its in-edges, repaired vertices are rebuilt sub-chunks of lost blocks, and one root
 * collects the repaired vertices. Codes build these graphs; the planner colors them (decides
 * which node computes what) and the executor runs them, so one executor serves every code.
 *
 * <p>Vertex ids are a topological order: every input has a smaller id than its consumer.
 * Sub-chunk indices count within one cell row of an internal block (0..alpha-1); a graph
 * describes one cell row and is applied to every row of a block alike (docs/architecture.md#cell-layout).
 */
public final class Ecdag {
  /** What a vertex is. */
  public enum Kind { LEAF, INNER, REPAIRED, ROOT }

  /** A vertex; {@code block} and {@code subchunk} are -1 for inner vertices and the root. */
  public record Vertex(int id, Kind kind, int block, int subchunk) {}

  /** coef x from flows into to; coef in 1..255. */
  public record Edge(int from, int to, int coef) {}

  private final int subchunks;
  private final List<Vertex> vertices;
  private final List<Edge> edges;
  private final List<List<Edge>> inEdges;

  private Ecdag(int subchunks, List<Vertex> vertices, List<Edge> edges) {
    this.subchunks = subchunks;
    this.vertices = List.copyOf(vertices);
    this.edges = List.copyOf(edges);
    List<List<Edge>> in = new ArrayList<>();
    for (int i = 0; i < vertices.size(); i++) {
      in.add(new ArrayList<>());
    }
    for (Edge e : edges) {
      in.get(e.to()).add(e);
    }
    List<List<Edge>> frozen = new ArrayList<>();
    for (List<Edge> l : in) {
      frozen.add(Collections.unmodifiableList(l));
    }
    this.inEdges = Collections.unmodifiableList(frozen);
  }

  /** Sub-chunks per internal block per cell row (alpha; 1 for scalar codes). */
  public int subchunkCount() {
    return subchunks;
  }

  public List<Vertex> vertices() {
    return vertices;
  }

  public List<Edge> edges() {
    return edges;
  }

  public Vertex vertex(int id) {
    return vertices.get(id);
  }

  /** The in-edges of v, in the order they were added. */
  public List<Edge> inputs(int v) {
    return inEdges.get(v);
  }

  public List<Vertex> leaves() {
    return vertices.stream().filter(v -> v.kind() == Kind.LEAF).toList();
  }

  public List<Vertex> repaired() {
    return vertices.stream().filter(v -> v.kind() == Kind.REPAIRED).toList();
  }

  public Vertex root() {
    return vertices.get(vertices.size() - 1);
  }

  public static Builder builder(int subchunks) {
    return new Builder(subchunks);
  }

  /** Vertex x added to {@code b} as sub-chunk {@code subchunk} (leaves and repaired), its inputs renamed by {@code newId}. */
  private int copy(Builder b, Vertex x, int subchunk, int[] newId) {
    List<Edge> in = inEdges.get(x.id());
    int[] inputs = in.stream().mapToInt(e -> newId[e.from()]).toArray();
    int[] coefs = in.stream().mapToInt(Edge::coef).toArray();
    return switch (x.kind()) {
      case LEAF -> b.leaf(x.block(), subchunk);
      case INNER -> b.combine(inputs, coefs);
      case REPAIRED -> b.repaired(x.block(), subchunk, inputs, coefs);
      case ROOT -> throw new IllegalStateException("the root feeds nothing");
    };
  }

  /**
   * The part of this graph that rebuilds only the repaired sub-chunks with index in
   * [{@code first}, {@code first + count}): those vertices and everything they are computed
   * from, the rest dropped. A read of a few sub-chunks of a lost cell reads only this graph's
   * leaves (for CLAY-10-4, 22 to 68 sub-chunks for 4, instead of 832 for the whole cell).
   *
   * @throws IllegalArgumentException when no repaired sub-chunk falls in the window
   */
  public Ecdag restrictedTo(int first, int count) {
    java.util.BitSet needed = new java.util.BitSet(vertices.size());
    for (Vertex v : vertices) {
      if (v.kind() == Kind.REPAIRED && v.subchunk() >= first && v.subchunk() < first + count) {
        needed.set(v.id());
      }
    }
    if (needed.isEmpty()) {
      throw new IllegalArgumentException("no repaired sub-chunk in " + first + "+" + count + " of " + subchunks);
    }
    for (int v = vertices.size() - 1; v >= 0; v--) {
      if (needed.get(v)) {
        inEdges.get(v).forEach(e -> needed.set(e.from()));
      }
    }
    Builder b = new Builder(subchunks);
    int[] newId = new int[vertices.size()];
    for (int v = needed.nextSetBit(0); v >= 0; v = needed.nextSetBit(v + 1)) {
      newId[v] = copy(b, vertices.get(v), vertices.get(v).subchunk(), newId);
    }
    return b.build();
  }

  /** Builds a graph; inputs must exist before they are used, which keeps ids topological. */
  public static final class Builder {
    private final int subchunks;
    private final List<Vertex> vertices = new ArrayList<>();
    private final List<Edge> edges = new ArrayList<>();
    private final Map<Integer, Integer> leafIds = new HashMap<>();
    private final Map<Integer, Integer> repairedIds = new HashMap<>();

    private Builder(int subchunks) {
      if (subchunks < 1) {
        throw new IllegalArgumentException("a graph needs at least one sub-chunk per block, got " + subchunks);
      }
      this.subchunks = subchunks;
    }

    /** The stored sub-chunk (block, subchunk); asking twice gives the same vertex. */
    public int leaf(int block, int subchunk) {
      checkSubchunk(subchunk);
      return leafIds.computeIfAbsent(key(block, subchunk), k -> add(Kind.LEAF, block, subchunk));
    }

    /**
     * A new vertex = sum of coefs[i] x inputs[i]. Zero coefficients are dropped; a single
     * input with coefficient 1 is returned as it is (no copy vertex).
     */
    public int combine(int[] inputs, int[] coefs) {
      int[][] c = compact(inputs, coefs);
      if (c[0].length == 1 && c[1][0] == 1) {
        return c[0][0];
      }
      int v = add(Kind.INNER, -1, -1);
      addEdges(v, c);
      return v;
    }

    /** The rebuilt sub-chunk (block, subchunk) = sum of coefs[i] x inputs[i]. */
    public int repaired(int block, int subchunk, int[] inputs, int[] coefs) {
      checkSubchunk(subchunk);
      if (repairedIds.containsKey(key(block, subchunk))) {
        throw new IllegalArgumentException("sub-chunk " + subchunk + " of block " + block + " is repaired twice");
      }
      int[][] c = compact(inputs, coefs);
      int v = add(Kind.REPAIRED, block, subchunk);
      addEdges(v, c);
      repairedIds.put(key(block, subchunk), v);
      return v;
    }

    /** Adds the root over every repaired vertex and freezes the graph. */
    public Ecdag build() {
      List<Integer> rep = new ArrayList<>(repairedIds.values());
      Collections.sort(rep);
      if (rep.isEmpty()) {
        throw new IllegalStateException("a graph must repair at least one sub-chunk");
      }
      int root = add(Kind.ROOT, -1, -1);
      for (int r : rep) {
        edges.add(new Edge(r, root, 1));
      }
      return new Ecdag(subchunks, vertices, edges);
    }

    private int add(Kind kind, int block, int subchunk) {
      int id = vertices.size();
      vertices.add(new Vertex(id, kind, block, subchunk));
      return id;
    }

    private void addEdges(int v, int[][] c) {
      for (int i = 0; i < c[0].length; i++) {
        edges.add(new Edge(c[0][i], v, c[1][i]));
      }
    }

    /** Drops zero coefficients and merges repeated inputs (their coefficients add in GF(2^8)). */
    private int[][] compact(int[] inputs, int[] coefs) {
      if (inputs.length != coefs.length) {
        throw new IllegalArgumentException(inputs.length + " inputs but " + coefs.length + " coefficients");
      }
      Map<Integer, Integer> merged = new java.util.LinkedHashMap<>();
      for (int i = 0; i < inputs.length; i++) {
        if (inputs[i] < 0 || inputs[i] >= vertices.size()) {
          throw new IllegalArgumentException("input vertex " + inputs[i] + " does not exist yet");
        }
        if (vertices.get(inputs[i]).kind() == Kind.ROOT) {
          throw new IllegalArgumentException("the root cannot be an input");
        }
        if ((coefs[i] & ~0xFF) != 0) {
          throw new IllegalArgumentException("coefficient " + coefs[i] + " is not a GF(2^8) element");
        }
        merged.merge(inputs[i], coefs[i], (a, b) -> a ^ b);
      }
      merged.values().removeIf(x -> x == 0);
      if (merged.isEmpty()) {
        throw new IllegalArgumentException("a vertex needs at least one input with a non-zero coefficient");
      }
      int[][] c = new int[2][merged.size()];
      int i = 0;
      for (Map.Entry<Integer, Integer> e : merged.entrySet()) {
        c[0][i] = e.getKey();
        c[1][i++] = e.getValue();
      }
      return c;
    }

    private void checkSubchunk(int subchunk) {
      if (subchunk < 0 || subchunk >= subchunks) {
        throw new IllegalArgumentException("sub-chunk " + subchunk + " outside 0.." + (subchunks - 1));
      }
    }

    /** Unique per (block, subchunk), and spread well by Integer's identity hash. */
    private int key(int block, int subchunk) {
      return block * subchunks + subchunk;
    }
  }
}
