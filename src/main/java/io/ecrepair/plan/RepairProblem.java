package io.ecrepair.plan;

import io.ecrepair.codes.RepairableCode;
import io.ecrepair.ecdag.Ecdag;
import java.util.Arrays;
import java.util.TreeSet;
import java.util.stream.IntStream;

/**
 * What a planner colors: a repair graph and the nodes that may compute its vertices (ParaRC
 * section 3.1). Nodes are internal block indices 0..blockCount-1; the requestor, which
 * receives the repaired block, is the lost index (it replaces the lost block) or, for a
 * requestor that holds no block of the group, node {@code blockCount}, named "R".
 *
 * <p>Leaves are fixed to the node holding their block and the root to the requestor; every
 * other vertex (inner or repaired) is free and may take any candidate color: the nodes holding
 * leaves plus the requestor (the paper's "nodes storing the available blocks and the node
 * storing the repaired block").
 */
public final class RepairProblem {
  private final Ecdag graph;
  private final int blockCount;
  private final int requestor;
  private final int[] candidates;
  private final boolean explicitCandidates;
  private final int[] fixedColor;
  private final int[] free;

  public RepairProblem(Ecdag graph, int blockCount, int requestor) {
    this(graph, blockCount, requestor, null);
  }

  /**
   * @param candidates the colors free vertices may take (null: leaf holders plus requestor)
   */
  public RepairProblem(Ecdag graph, int blockCount, int requestor, int[] candidates) {
    if (blockCount < 1) {
      throw new IllegalArgumentException("a group needs at least one block, got " + blockCount);
    }
    if (requestor < 0 || requestor > blockCount) {
      throw new IllegalArgumentException("requestor " + requestor + " is neither a block index 0.." + (blockCount - 1)
          + " nor the outside requestor " + blockCount);
    }
    this.graph = graph;
    this.explicitCandidates = candidates != null;
    this.blockCount = blockCount;
    this.requestor = requestor;
    int v = graph.vertices().size();
    this.fixedColor = new int[v];
    TreeSet<Integer> holders = new TreeSet<>();
    int freeCount = 0;
    for (Ecdag.Vertex x : graph.vertices()) {
      switch (x.kind()) {
        case LEAF -> {
          if (x.block() < 0 || x.block() >= blockCount) {
            throw new IllegalArgumentException("leaf " + x.id() + " names block " + x.block() + " outside 0.."
                + (blockCount - 1));
          }
          if (x.block() == requestor) {
            throw new IllegalArgumentException("leaf " + x.id() + " reads block " + x.block()
                + ", which the requestor is rebuilding");
          }
          fixedColor[x.id()] = x.block();
          holders.add(x.block());
        }
        case ROOT -> fixedColor[x.id()] = requestor;
        default -> {
          fixedColor[x.id()] = -1;
          freeCount++;
        }
      }
    }
    this.free = new int[freeCount];
    int i = 0;
    for (Ecdag.Vertex x : graph.vertices()) {
      if (fixedColor[x.id()] < 0) {
        free[i++] = x.id();
      }
    }
    if (candidates == null) {
      holders.add(requestor);
      this.candidates = holders.stream().mapToInt(Integer::intValue).toArray();
    } else {
      int[] c = IntStream.of(candidates).sorted().distinct().toArray();
      for (int x : c) {
        if (x < 0 || x > blockCount) {
          throw new IllegalArgumentException("candidate node " + x + " does not exist");
        }
      }
      this.candidates = c;
    }
  }

  /** The bandwidth-optimal repair of one lost block, with the requestor replacing it (or outside). */
  public static RepairProblem forCode(RepairableCode code, int lost, boolean outsideRequestor) {
    return forCode(code, new int[] {lost}, outsideRequestor);
  }

  /**
   * The code's repair of several lost blocks together from all the others. The requestor
   * replaces the first (lowest) lost block, or is outside; it receives every repaired block
   * (a DataNode that rebuilds several blocks writes them all). The other lost blocks' nodes
   * hold nothing and take no part.
   */
  public static RepairProblem forCode(RepairableCode code, int[] lost, boolean outsideRequestor) {
    int n = code.totalUnits();
    int[] sorted = checkedLost(lost, n);
    int[] available = IntStream.range(0, n).filter(i -> Arrays.binarySearch(sorted, i) < 0).toArray();
    Ecdag g = code.repairGraph(sorted, available);
    return new RepairProblem(g, n, outsideRequestor ? n : sorted[0]);
  }

  /** {@code lost} sorted, after checking it names distinct indices 0..n-1 (at least one). */
  public static int[] checkedLost(int[] lost, int n) {
    int[] sorted = IntStream.of(lost).sorted().distinct().toArray();
    if (sorted.length == 0 || sorted.length != lost.length) {
      throw new IllegalArgumentException("lost indices " + Arrays.toString(lost) + " must be distinct, at least one");
    }
    if (sorted[0] < 0 || sorted[sorted.length - 1] >= n) {
      throw new IllegalArgumentException("lost index outside 0.." + (n - 1) + ": " + Arrays.toString(lost));
    }
    return sorted;
  }

  /**
   * The same nodes over another graph (a transform of this one, or the repair from other
   * helpers); default candidates follow the new graph's leaf holders.
   */
  public RepairProblem withGraph(Ecdag other) {
    return new RepairProblem(other, blockCount, requestor, explicitCandidates ? candidates : null);
  }

  /**
   * The same problem with {@code excluded} no longer candidates: those nodes only send their
   * own sub-chunks (the requestor always stays a candidate). No exclusion returns this problem.
   */
  public RepairProblem withoutCandidates(int[] excluded) {
    if (excluded.length == 0) {
      return this;
    }
    int[] kept = IntStream.of(candidates)
        .filter(c -> c == requestor || IntStream.of(excluded).noneMatch(x -> x == c)).toArray();
    return new RepairProblem(graph, blockCount, requestor, kept);
  }

  /** Whether {@code color} respects the fixed colors and the candidates. */
  public boolean admits(int[] color) {
    try {
      checkColoring(color);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  public Ecdag graph() {
    return graph;
  }

  /** Internal blocks in the group (n). */
  public int blockCount() {
    return blockCount;
  }

  /** Nodes colors may name: the n block holders plus the outside requestor slot. */
  public int nodeCount() {
    return blockCount + 1;
  }

  public int requestor() {
    return requestor;
  }

  /** The blocks the graph rebuilds (sorted). */
  public int[] lostBlocks() {
    return graph.repaired().stream().mapToInt(Ecdag.Vertex::block).sorted().distinct().toArray();
  }

  public boolean outsideRequestor() {
    return requestor == blockCount;
  }

  /** Sorted colors a free vertex may take. */
  public int[] candidates() {
    return candidates.clone();
  }

  int[] candidatesView() {
    return candidates;
  }

  /** The fixed color of a leaf or the root; -1 for a free vertex. */
  public int fixedColor(int vertex) {
    return fixedColor[vertex];
  }

  /** Ids of the free (inner and repaired) vertices, ascending. */
  public int[] freeVertices() {
    return free.clone();
  }

  int[] freeView() {
    return free;
  }

  /** Sub-chunks of the lost block(s): what the requestor must at least receive. */
  public int repairedCount() {
    return (int) graph.vertices().stream().filter(x -> x.kind() == Ecdag.Kind.REPAIRED).count();
  }

  /** The display name of a node: its block index, or "R" for the outside requestor. */
  public String nodeName(int node) {
    return node == blockCount ? "R" : Integer.toString(node);
  }

  /** A coloring with every free vertex at the requestor (centralized repair). */
  public int[] centralizedColoring() {
    int[] c = fixedColor.clone();
    for (int v : free) {
      c[v] = requestor;
    }
    return c;
  }

  /** Checks that a coloring respects the fixed colors and the candidates. */
  public void checkColoring(int[] color) {
    if (color.length != fixedColor.length) {
      throw new IllegalArgumentException("coloring has " + color.length + " entries for " + fixedColor.length + " vertices");
    }
    for (int v = 0; v < color.length; v++) {
      if (fixedColor[v] >= 0 && color[v] != fixedColor[v]) {
        throw new IllegalArgumentException("vertex " + v + " is fixed to node " + nodeName(fixedColor[v]) + ", colored "
            + color[v]);
      }
      if (fixedColor[v] < 0 && Arrays.binarySearch(candidates, color[v]) < 0) {
        throw new IllegalArgumentException("vertex " + v + " colored " + color[v] + ", not a candidate node");
      }
    }
  }
}
