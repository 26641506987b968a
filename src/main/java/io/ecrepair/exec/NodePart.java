package io.ecrepair.exec;

import io.ecrepair.ecdag.Ecdag;
import io.ecrepair.gf.GFMatrix;
import io.ecrepair.gf.LinearProgram;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One node's part of a colored repair graph in the form {@link PartRunner} runs and the
 * agents' wire protocol carries: which sub-chunks of its own block it reads, the groups of
 * values it receives from each other node and sends to each, its compute steps, and (on the
 * requestor) which values are the repaired sub-chunks.
 *
 * <p>A group is the values one node sends another at one topological level, in vertex order;
 * sender and receiver derive the same groups from the same coloring, so a frame of a group
 * needs no labels. Values live in slots of one buffer: each received group takes consecutive
 * slots (its frame lands in place), then every value computed here takes one.
 */
public final class NodePart {
  /**
   * Values one node sends another at {@code level}, in strictly ascending vertex order: a frame
   * carries each value once, so a group that named a value twice would make its frames (and
   * whoever buffers them) grow with the repeats, not with the repair.
   */
  public record Group(int peer, int level, int[] vertices) {
    public Group {
      vertices = vertices.clone();
      if (vertices.length == 0) {
        throw new IllegalArgumentException("an empty group");
      }
      requireAscending(vertices, "a group's values");
    }
  }

  /** {@code outputs = matrix x inputs} over vertex ids, at {@code level}; every input is a different value. */
  public record Step(int level, int[] inputs, int[] outputs, GFMatrix matrix) {
    public Step {
      if (matrix.rows() != outputs.length || matrix.cols() != inputs.length || inputs.length == 0) {
        throw new IllegalArgumentException("a step's matrix must be outputs x inputs");
      }
      requireDistinct(inputs, "a step's inputs");
    }
  }

  private static void requireAscending(int[] values, String what) {
    for (int i = 1; i < values.length; i++) {
      if (values[i] <= values[i - 1]) {
        throw new IllegalArgumentException(what + " are not strictly ascending at " + values[i]);
      }
    }
  }

  private static void requireDistinct(int[] values, String what) {
    int[] sorted = values.clone();
    Arrays.sort(sorted);
    for (int i = 1; i < sorted.length; i++) {
      if (sorted[i] == sorted[i - 1]) {
        throw new IllegalArgumentException(what + " name value " + sorted[i] + " twice");
      }
    }
  }

  /** A repaired sub-chunk held on the requestor. */
  public record Result(int vertex, int block, int subchunk) {}

  private final int node;
  private final int alpha;
  /** leaf vertex id -> sub-chunk of this node's block. */
  private final int[][] leaves;
  private final List<Group> inbound;
  private final List<Group> outbound;
  private final List<Step> steps;
  private final List<Result> results;
  // Derived: where every value lives, and one program per level.
  private final Map<Integer, Integer> slotOf = new HashMap<>();
  private final Map<Integer, Integer> subchunkOf = new HashMap<>();
  private final int slots;
  private final TreeMap<Integer, LinearProgram> programs = new TreeMap<>();

  /**
   * @param leaves {vertex, subchunk} pairs of the leaves this node reads from its own block
   * @throws IllegalArgumentException when the parts do not fit together (a step's input that
   *     is neither read, received nor computed before it, a value sent that is not here, ...)
   */
  public NodePart(int node, int alpha, int[][] leaves, List<Group> inbound, List<Group> outbound, List<Step> steps,
                  List<Result> results) {
    this.node = node;
    this.alpha = alpha;
    this.leaves = leaves.clone();
    this.inbound = List.copyOf(inbound);
    this.outbound = List.copyOf(outbound);
    this.steps = List.copyOf(steps);
    this.results = List.copyOf(results);
    if (alpha < 1) {
      throw new IllegalArgumentException("alpha " + alpha);
    }
    boolean[] subchunkRead = new boolean[alpha];
    for (int[] l : leaves) {
      // Each sub-chunk is read once: the part's row buffers hold one copy of each.
      if (l.length != 2 || l[1] < 0 || l[1] >= alpha || subchunkRead[l[1]] || subchunkOf.put(l[0], l[1]) != null) {
        throw new IllegalArgumentException("bad leaf " + Arrays.toString(l));
      }
      subchunkRead[l[1]] = true;
    }
    int next = 0;
    int lastLevel = -1;
    java.util.Set<Integer> received = new java.util.HashSet<>();
    for (Group g : inbound) {
      if (g.level() < lastLevel) {
        throw new IllegalArgumentException("inbound groups out of level order");
      }
      lastLevel = g.level();
      for (int v : g.vertices()) {
        if (subchunkOf.containsKey(v) || slotOf.put(v, next++) != null) {
          throw new IllegalArgumentException("value " + v + " arrives twice or is also read here");
        }
        received.add(v);
      }
    }
    Map<Integer, Integer> levelOf = new HashMap<>();
    for (Group g : inbound) {
      for (int v : g.vertices()) {
        levelOf.put(v, g.level());
      }
    }
    subchunkOf.keySet().forEach(v -> levelOf.put(v, 0));
    TreeMap<Integer, List<LinearProgram.Step>> byLevel = new TreeMap<>();
    for (Step s : steps) {
      List<LinearProgram.Ref> in = new ArrayList<>();
      for (int v : s.inputs()) {
        Integer l = levelOf.get(v);
        if (l == null || l >= s.level()) {
          throw new IllegalArgumentException("step at level " + s.level() + " uses value " + v
              + ", which is not here before it");
        }
        in.add(ref(v));
      }
      List<LinearProgram.Ref> out = new ArrayList<>();
      for (int v : s.outputs()) {
        if (levelOf.containsKey(v)) {
          throw new IllegalArgumentException("value " + v + " is computed twice");
        }
        slotOf.put(v, next++);
        levelOf.put(v, s.level());
        out.add(ref(v));
      }
      byLevel.computeIfAbsent(s.level(), x -> new ArrayList<>()).add(new LinearProgram.Step(s.matrix(), in, out));
    }
    this.slots = next;
    byLevel.forEach((level, st) -> programs.put(level, new LinearProgram(2, st)));
    java.util.Set<Long> sent = new java.util.HashSet<>();
    for (Group g : outbound) {
      for (int v : g.vertices()) {
        if (!sent.add((long) g.peer() << 32 | v)) {
          throw new IllegalArgumentException("value " + v + " is sent to node " + g.peer() + " twice");
        }
        Integer l = levelOf.get(v);
        if (l == null || l != g.level() || received.contains(v)) {
          throw new IllegalArgumentException("value " + v + " is sent at level " + g.level() + " but is not produced"
              + " here at that level");
        }
      }
    }
    for (Result r : results) {
      if (!levelOf.containsKey(r.vertex()) || r.subchunk() < 0 || r.subchunk() >= alpha) {
        throw new IllegalArgumentException("repaired value " + r.vertex() + " never reaches node " + node);
      }
    }
  }

  /** Where value v lives: buffer 0 (own leaves, by sub-chunk) or 1 (slots). */
  LinearProgram.Ref ref(int v) {
    Integer sub = subchunkOf.get(v);
    if (sub != null) {
      return new LinearProgram.Ref(0, sub);
    }
    Integer slot = slotOf.get(v);
    if (slot == null) {
      throw new IllegalArgumentException("value " + v + " is not on node " + node);
    }
    return new LinearProgram.Ref(1, slot);
  }

  /** Every node's part of {@code graph} under {@code color} (nodes that do nothing are left out). */
  public static Map<Integer, NodePart> compile(Ecdag graph, int[] color) {
    Map<Integer, NodeProgram> programs = NodeProgram.compile(graph, color);
    // (from, to) -> level -> vertices
    Map<Integer, TreeMap<Integer, TreeMap<Integer, List<Integer>>>> in = new TreeMap<>();
    Map<Integer, TreeMap<Integer, TreeMap<Integer, List<Integer>>>> out = new TreeMap<>();
    for (NodeProgram p : programs.values()) {
      for (NodeProgram.Send s : p.sends()) {
        for (int to : s.to()) {
          out.computeIfAbsent(p.node(), x -> new TreeMap<>()).computeIfAbsent(s.level(), x -> new TreeMap<>())
              .computeIfAbsent(to, x -> new ArrayList<>()).add(s.vertex());
          in.computeIfAbsent(to, x -> new TreeMap<>()).computeIfAbsent(s.level(), x -> new TreeMap<>())
              .computeIfAbsent(p.node(), x -> new ArrayList<>()).add(s.vertex());
        }
      }
    }
    int requestor = color[graph.root().id()];
    Map<Integer, NodePart> parts = new TreeMap<>();
    for (NodeProgram p : programs.values()) {
      int n = p.node();
      int[][] leaves = p.reads().stream().map(v -> new int[] {v, graph.vertex(v).subchunk()}).toArray(int[][]::new);
      List<Step> steps = p.steps().stream().map(s -> new Step(s.level(), s.inputs(), s.outputs(), s.matrix())).toList();
      List<Result> results = new ArrayList<>();
      if (n == requestor) {
        for (Ecdag.Vertex v : graph.repaired()) {
          results.add(new Result(v.id(), v.block(), v.subchunk()));
        }
      }
      parts.put(n, new NodePart(n, graph.subchunkCount(), leaves, groups(in.get(n)), groups(out.get(n)), steps,
          results));
    }
    return parts;
  }

  private static List<Group> groups(TreeMap<Integer, TreeMap<Integer, List<Integer>>> byLevel) {
    List<Group> g = new ArrayList<>();
    if (byLevel != null) {
      byLevel.forEach((level, peers) -> peers.forEach((peer, vs) -> g.add(new Group(peer, level,
          vs.stream().mapToInt(Integer::intValue).sorted().toArray()))));
    }
    return g;
  }

  public int node() {
    return node;
  }

  /** Sub-chunks per cell row. */
  public int alpha() {
    return alpha;
  }

  /** {vertex, subchunk} of every leaf read from this node's block. */
  public int[][] leaves() {
    return Arrays.stream(leaves).map(int[]::clone).toArray(int[][]::new);
  }

  /** The sub-chunks of its own block this node reads per row, ascending. */
  public int[] leafSubchunks() {
    return Arrays.stream(leaves).mapToInt(l -> l[1]).sorted().toArray();
  }

  /** Groups received, in the order they arrive from each peer (by level, then peer). */
  public List<Group> inbound() {
    return inbound;
  }

  /** Groups sent, in the order they are produced (by level, then peer). */
  public List<Group> outbound() {
    return outbound;
  }

  public List<Step> steps() {
    return steps;
  }

  public List<Result> results() {
    return results;
  }

  /** Slots of the value buffer: the values received and computed here per slice. */
  public int slots() {
    return slots;
  }

  /** Coefficients of all compute steps: the multiply-adds of a slice, per byte of a value. */
  public long coefficients() {
    return steps.stream().mapToLong(s -> (long) s.inputs().length * s.outputs().length).sum();
  }

  int slotOf(int vertex) {
    return slotOf.get(vertex);
  }

  /** The compute steps of each level as one program over {leaves, slots}. */
  TreeMap<Integer, LinearProgram> programs() {
    return programs;
  }

  /** Sub-chunk values this node receives per slice (all groups). */
  public int valuesIn() {
    return inbound.stream().mapToInt(g -> g.vertices().length).sum();
  }

  /** Sub-chunk values this node sends per slice (all groups). */
  public int valuesOut() {
    return outbound.stream().mapToInt(g -> g.vertices().length).sum();
  }
}
