package io.ecrepair.plan;

import io.ecrepair.ecdag.Ecdag;
import io.ecrepair.gf.GF256;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Rewrites of a repair graph that keep what it computes (every repaired sub-chunk stays the
 * same linear combination of the leaves, since GF(2^8) addition is associative and
 * multiplication distributes) but give a planner more places to compute partial results:
 *
 * <ul>
 *   <li>{@link #flatten}: every repaired vertex as one combination of leaves (no inner vertices);
 *   <li>{@link #factor}: recovers shared structure a code's export folded away: values that
 *       always feed the same consumers and enter them along few directions get one vertex per
 *       direction (for Clay: the pairwise reverse transforms), and a vertex whose inputs
 *       contain another vertex's inputs is split into a partial sum over those plus the rest
 *       (for Clay: the layer's MDS decode, then the pairwise forward transform), so the two
 *       can share one node and one transfer of their inputs (ParaRC section 6.2);
 *   <li>{@link #holderPartials}: the leaves one node holds enter a vertex through one partial
 *       sum, which that node may compute and send instead of its raw sub-chunks;
 *   <li>{@link #chain}: each repaired vertex as a chain of partial sums over the helpers in a
 *       given order (repair pipelining's shape, ECPipe).
 * </ul>
 *
 * Transforms return new graphs; leaves keep their (block, sub-chunk), repaired vertices theirs.
 */
public final class GraphTransforms {
  /** Transform names the planner and the CLI know. */
  public static final List<String> NAMES = List.of("none", "flatten", "factor", "partials", "factor+partials", "chain");

  private GraphTransforms() {}

  /** Applies a transform by name. */
  public static Ecdag apply(String name, Ecdag g) {
    return switch (name) {
      case "none" -> g;
      case "flatten" -> flatten(g);
      case "factor" -> factor(g);
      case "partials" -> holderPartials(g);
      case "factor+partials" -> holderPartials(factor(g));
      case "chain" -> chain(g, Pipelines.helpers(g));
      default -> throw new IllegalArgumentException("unknown transform '" + name + "' (known: "
          + String.join(", ", NAMES) + ")");
    };
  }

  // ------------------------------------------------------------------ flatten

  /** Every repaired vertex as a single combination of leaves. */
  public static Ecdag flatten(Ecdag g) {
    Net net = Net.of(g);
    Map<Integer, Map<Integer, Integer>> expr = leafExpressions(net);
    Net out = new Net(g.subchunkCount());
    Map<Integer, Integer> leafMap = new HashMap<>();
    for (Net.V v : net.vertices) {
      if (v.kind == Ecdag.Kind.LEAF) {
        leafMap.put(v.id, out.add(Ecdag.Kind.LEAF, v.block, v.subchunk, new int[0], new int[0]));
      }
    }
    for (Net.V v : net.vertices) {
      if (v.kind == Ecdag.Kind.REPAIRED) {
        Map<Integer, Integer> e = expr.get(v.id);
        int[] in = new int[e.size()];
        int[] co = new int[e.size()];
        int i = 0;
        for (Map.Entry<Integer, Integer> t : e.entrySet()) {
          in[i] = leafMap.get(t.getKey());
          co[i++] = t.getValue();
        }
        out.add(Ecdag.Kind.REPAIRED, v.block, v.subchunk, in, co);
      }
    }
    return out.toEcdag();
  }

  /** For every vertex, its coefficients over the leaves (leaf id to coefficient, zero-free). */
  static Map<Integer, Map<Integer, Integer>> leafExpressions(Net net) {
    Map<Integer, Map<Integer, Integer>> expr = new HashMap<>();
    for (Net.V v : net.topological()) {
      if (v.kind == Ecdag.Kind.LEAF) {
        expr.put(v.id, Map.of(v.id, 1));
      } else if (v.kind != Ecdag.Kind.ROOT) {
        Map<Integer, Integer> e = new TreeMap<>();
        for (int j = 0; j < v.in.length; j++) {
          int c = v.coef[j];
          for (Map.Entry<Integer, Integer> t : expr.get(v.in[j]).entrySet()) {
            e.merge(t.getKey(), GF256.mul(c, t.getValue()), (x, y) -> x ^ y);
          }
        }
        e.values().removeIf(x -> x == 0);
        expr.put(v.id, e);
      }
    }
    return expr;
  }

  /**
   * Every vertex as a combination of leaves, as a dense matrix: row per vertex id (null for
   * leaves and the root), column per leaf in {@code leafOrder}.
   */
  public static Map<Integer, Map<Integer, Integer>> leafExpressions(Ecdag g) {
    return leafExpressions(Net.of(g));
  }

  // ------------------------------------------------------------------ factor

  /** Shared directions, then partial sums over contained input sets (see the class comment). */
  public static Ecdag factor(Ecdag g) {
    Net net = Net.of(g);
    for (int pass = 0; pass < 4 && sharedDirections(net); pass++) {
      // repeat: new direction vertices may themselves share consumers
    }
    containedPartials(net);
    return net.toEcdag();
  }

  /**
   * Groups non-root values by their exact set of consumers; a group S of two or more values
   * whose consumers combine it along fewer distinct directions than there are consumers gets
   * one vertex per direction, and each consumer reads its direction vertex instead of S.
   */
  private static boolean sharedDirections(Net net) {
    Map<String, List<Net.V>> byConsumers = new LinkedHashMap<>();
    net.indexConsumers();
    for (Net.V u : net.vertices) {
      if (u.kind == Ecdag.Kind.ROOT || u.consumers.isEmpty()) {
        continue;
      }
      boolean feedsRoot = false;
      for (Net.V w : u.consumers) {
        feedsRoot |= w.kind == Ecdag.Kind.ROOT;
      }
      if (feedsRoot) {
        continue;
      }
      int[] ids = u.consumers.stream().mapToInt(w -> w.id).sorted().toArray();
      byConsumers.computeIfAbsent(Arrays.toString(ids), k -> new ArrayList<>()).add(u);
    }
    boolean changed = false;
    for (List<Net.V> group : byConsumers.values()) {
      List<Net.V> consumers = group.get(0).consumers;
      if (group.size() < 2 || consumers.size() < 2) {
        continue;
      }
      // Direction of each consumer: its coefficients on the group, scaled to start with 1.
      Map<String, int[]> directions = new LinkedHashMap<>();
      Map<Net.V, String> dirOf = new HashMap<>();
      Map<Net.V, Integer> scaleOf = new HashMap<>();
      for (Net.V w : consumers) {
        int[] r = new int[group.size()];
        for (int i = 0; i < r.length; i++) {
          r[i] = w.coefOf(group.get(i).id);
        }
        int s = r[0];
        byte inv = GF256.inv((byte) s);
        int[] d = new int[r.length];
        for (int i = 0; i < r.length; i++) {
          d[i] = GF256.mul(r[i], inv & 0xFF);
        }
        String key = Arrays.toString(d);
        directions.putIfAbsent(key, d);
        dirOf.put(w, key);
        scaleOf.put(w, s);
      }
      if (directions.size() >= consumers.size()) {
        continue;
      }
      int[] groupIds = group.stream().mapToInt(v -> v.id).toArray();
      Map<String, Net.V> dirVertex = new HashMap<>();
      for (Map.Entry<String, int[]> d : directions.entrySet()) {
        dirVertex.put(d.getKey(), net.insertBefore(consumers, groupIds, d.getValue()));
      }
      for (Net.V w : consumers) {
        w.replaceInputs(groupIds, dirVertex.get(dirOf.get(w)).id, scaleOf.get(w));
      }
      changed = true;
    }
    return changed;
  }

  /**
   * For each vertex v with at least three inputs: if another free vertex w reads a proper
   * subset of v's inputs (two or more, the largest such), v becomes P + rest where P sums
   * v's terms over w's inputs. P and w read the same values, so a planner can put them on
   * one node and pay for those inputs once.
   */
  private static void containedPartials(Net net) {
    net.indexConsumers();
    List<Net.V> snapshot = new ArrayList<>(net.vertices);
    for (Net.V v : snapshot) {
      if (v.kind == Ecdag.Kind.LEAF || v.kind == Ecdag.Kind.ROOT || v.in.length < 3) {
        continue;
      }
      Map<Net.V, Integer> overlap = new HashMap<>();
      for (int u : v.in) {
        for (Net.V w : net.vertex(u).consumers) {
          if (w != v && w.kind != Ecdag.Kind.ROOT) {
            overlap.merge(w, 1, Integer::sum);
          }
        }
      }
      Net.V best = null;
      for (Map.Entry<Net.V, Integer> e : overlap.entrySet()) {
        Net.V w = e.getKey();
        int size = w.in.length;
        if (size >= 2 && size < v.in.length && e.getValue() == size
            && (best == null || size > best.in.length || (size == best.in.length && w.id < best.id))) {
          best = w;
        }
      }
      if (best == null) {
        continue;
      }
      int[] sub = best.in.clone();
      int[] coefs = new int[sub.length];
      for (int i = 0; i < sub.length; i++) {
        coefs[i] = v.coefOf(sub[i]);
      }
      Net.V p = net.insertBefore(List.of(v), sub, coefs);
      v.replaceInputs(sub, p.id, 1);
      for (int u : sub) {
        net.vertex(u).consumers.remove(v);
        net.vertex(u).consumers.add(p);
      }
      p.consumers.add(v);
    }
  }

  // ------------------------------------------------------------------ partial sums per holder

  /**
   * For each non-leaf vertex, the leaves of one block that it reads (two or more) enter
   * through one partial sum over them.
   */
  public static Ecdag holderPartials(Ecdag g) {
    Net net = Net.of(g);
    List<Net.V> snapshot = new ArrayList<>(net.vertices);
    for (Net.V v : snapshot) {
      if (v.kind == Ecdag.Kind.LEAF || v.kind == Ecdag.Kind.ROOT) {
        continue;
      }
      Map<Integer, List<Integer>> byBlock = new TreeMap<>();
      for (int u : v.in) {
        Net.V x = net.vertex(u);
        if (x.kind == Ecdag.Kind.LEAF) {
          byBlock.computeIfAbsent(x.block, b -> new ArrayList<>()).add(u);
        }
      }
      for (List<Integer> leaves : byBlock.values()) {
        if (leaves.size() < 2 || leaves.size() == v.in.length) {
          continue;
        }
        int[] sub = leaves.stream().mapToInt(Integer::intValue).toArray();
        int[] coefs = new int[sub.length];
        for (int i = 0; i < sub.length; i++) {
          coefs[i] = v.coefOf(sub[i]);
        }
        Net.V p = net.insertBefore(List.of(v), sub, coefs);
        v.replaceInputs(sub, p.id, 1);
      }
    }
    return net.toEcdag();
  }

  // ------------------------------------------------------------------ chains

  /**
   * Each repaired vertex as a chain over the blocks in {@code order}: S1 = the terms of
   * order[0]'s leaves, S(i) = S(i-1) + the terms of order[i]'s leaves, the repaired vertex
   * being the last. Blocks that a repaired vertex does not read are skipped for it. Every
   * leaf block of the flattened graph must appear in the order.
   */
  public static Ecdag chain(Ecdag g, int[] order) {
    Ecdag flat = flatten(g);
    Net out = new Net(g.subchunkCount());
    Map<Integer, Integer> leafMap = new HashMap<>();
    int[] rank = new int[maxBlock(flat) + 1];
    Arrays.fill(rank, -1);
    for (int i = 0; i < order.length; i++) {
      if (order[i] >= 0 && order[i] < rank.length) {
        rank[order[i]] = i;
      }
    }
    for (Ecdag.Vertex v : flat.vertices()) {
      if (v.kind() == Ecdag.Kind.LEAF) {
        if (rank[v.block()] < 0) {
          throw new IllegalArgumentException("the chain order " + Arrays.toString(order) + " misses block " + v.block());
        }
        leafMap.put(v.id(), out.add(Ecdag.Kind.LEAF, v.block(), v.subchunk(), new int[0], new int[0]));
      }
    }
    for (Ecdag.Vertex v : flat.vertices()) {
      if (v.kind() != Ecdag.Kind.REPAIRED) {
        continue;
      }
      TreeMap<Integer, List<Ecdag.Edge>> byRank = new TreeMap<>();
      for (Ecdag.Edge e : flat.inputs(v.id())) {
        byRank.computeIfAbsent(rank[flat.vertex(e.from()).block()], r -> new ArrayList<>()).add(e);
      }
      int acc = -1;
      int steps = byRank.size();
      int step = 0;
      for (List<Ecdag.Edge> terms : byRank.values()) {
        int extra = acc >= 0 ? 1 : 0;
        int[] in = new int[terms.size() + extra];
        int[] co = new int[in.length];
        if (acc >= 0) {
          in[0] = acc;
          co[0] = 1;
        }
        for (int i = 0; i < terms.size(); i++) {
          in[i + extra] = leafMap.get(terms.get(i).from());
          co[i + extra] = terms.get(i).coef();
        }
        step++;
        if (step == steps) {
          out.add(Ecdag.Kind.REPAIRED, v.block(), v.subchunk(), in, co);
        } else {
          acc = out.add(Ecdag.Kind.INNER, -1, -1, in, co);
        }
      }
    }
    return out.toEcdag();
  }

  static int maxBlock(Ecdag g) {
    int m = -1;
    for (Ecdag.Vertex v : g.vertices()) {
      m = Math.max(m, v.block());
    }
    return m;
  }

  // ------------------------------------------------------------------ a mutable graph

  /** A graph under rewriting: vertices with inputs and coefficients; ids are not ordered. */
  static final class Net {
    final int subchunks;
    final List<V> vertices = new ArrayList<>();
    private final Map<Integer, V> byId = new HashMap<>();
    private int nextId;

    static final class V {
      final int id;
      final Ecdag.Kind kind;
      final int block;
      final int subchunk;
      int[] in;
      int[] coef;
      /** Where to sort: a new vertex sorts just before the earliest of the consumers it was made for. */
      double order;
      List<V> consumers = new ArrayList<>();

      V(int id, Ecdag.Kind kind, int block, int subchunk, int[] in, int[] coef, double order) {
        this.id = id;
        this.kind = kind;
        this.block = block;
        this.subchunk = subchunk;
        this.in = in;
        this.coef = coef;
        this.order = order;
      }

      int coefOf(int input) {
        for (int i = 0; i < in.length; i++) {
          if (in[i] == input) {
            return coef[i];
          }
        }
        return 0;
      }

      /** Drops the inputs in {@code gone} and reads {@code with} x scale instead. */
      void replaceInputs(int[] gone, int with, int scale) {
        java.util.Set<Integer> drop = new java.util.HashSet<>();
        for (int x : gone) {
          drop.add(x);
        }
        int keep = 0;
        for (int x : in) {
          keep += drop.contains(x) ? 0 : 1;
        }
        int[] ni = new int[keep + 1];
        int[] nc = new int[keep + 1];
        int j = 0;
        for (int i = 0; i < in.length; i++) {
          if (!drop.contains(in[i])) {
            ni[j] = in[i];
            nc[j++] = coef[i];
          }
        }
        ni[j] = with;
        nc[j] = scale;
        in = ni;
        coef = nc;
      }
    }

    Net(int subchunks) {
      this.subchunks = subchunks;
    }

    static Net of(Ecdag g) {
      Net n = new Net(g.subchunkCount());
      for (Ecdag.Vertex v : g.vertices()) {
        List<Ecdag.Edge> in = g.inputs(v.id());
        n.add(v.kind(), v.block(), v.subchunk(), in.stream().mapToInt(Ecdag.Edge::from).toArray(),
            in.stream().mapToInt(Ecdag.Edge::coef).toArray());
      }
      return n;
    }

    int add(Ecdag.Kind kind, int block, int subchunk, int[] in, int[] coef) {
      V v = new V(nextId++, kind, block, subchunk, in, coef, vertices.size());
      vertices.add(v);
      byId.put(v.id, v);
      return v.id;
    }

    V vertex(int id) {
      return byId.get(id);
    }

    /** A new inner vertex = sum coef x in, placed before the earliest of {@code consumers}. */
    V insertBefore(List<V> consumers, int[] in, int[] coef) {
      double before = Double.MAX_VALUE;
      for (V w : consumers) {
        before = Math.min(before, w.order);
      }
      double after = -1;
      for (int u : in) {
        after = Math.max(after, vertex(u).order);
      }
      V v = new V(nextId++, Ecdag.Kind.INNER, -1, -1, in.clone(), coef.clone(), (after + before) / 2);
      vertices.add(v);
      byId.put(v.id, v);
      return v;
    }

    void indexConsumers() {
      for (V v : vertices) {
        v.consumers = new ArrayList<>();
      }
      for (V v : vertices) {
        for (int u : v.in) {
          vertex(u).consumers.add(v);
        }
      }
    }

    /** Vertices with every input before its consumers (Kahn's algorithm, ties by order). */
    List<V> topological() {
      indexConsumers();
      Map<V, Integer> waiting = new HashMap<>();
      java.util.PriorityQueue<V> ready = new java.util.PriorityQueue<>((a, b) -> a.order != b.order
          ? Double.compare(a.order, b.order) : Integer.compare(a.id, b.id));
      for (V v : vertices) {
        waiting.put(v, v.in.length);
        if (v.in.length == 0) {
          ready.add(v);
        }
      }
      List<V> out = new ArrayList<>();
      while (!ready.isEmpty()) {
        V v = ready.poll();
        out.add(v);
        for (V w : v.consumers) {
          if (waiting.merge(w, -1, Integer::sum) == 0) {
            ready.add(w);
          }
        }
      }
      if (out.size() != vertices.size()) {
        throw new IllegalStateException("graph rewrite made a cycle");
      }
      return out;
    }

    /** Builds the Ecdag (the root, if present, is rebuilt by the builder). */
    Ecdag toEcdag() {
      Ecdag.Builder b = Ecdag.builder(subchunks);
      Map<Integer, Integer> id = new HashMap<>();
      for (V v : topological()) {
        int[] in = new int[v.in.length];
        for (int i = 0; i < in.length; i++) {
          in[i] = id.get(v.in[i]);
        }
        switch (v.kind) {
          case LEAF -> id.put(v.id, b.leaf(v.block, v.subchunk));
          case INNER -> id.put(v.id, b.combine(in, v.coef));
          case REPAIRED -> id.put(v.id, b.repaired(v.block, v.subchunk, in, v.coef));
          case ROOT -> { }
        }
      }
      return b.build();
    }
  }
}
