package io.ecrepair.exec;

import io.ecrepair.ecdag.Ecdag;
import io.ecrepair.gf.CodingTables;
import io.ecrepair.gf.RegionCoder;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Runs a colored repair graph across simulated nodes in one JVM, on real bytes: every node
 * runs its {@link NodeProgram} against its own store of values, and a value reaches another
 * node only through the {@link Transport}, which is called exactly where the coloring puts a
 * transfer (once per value and destination node). It counts the bytes each node sends and
 * receives, so a test can hold them against the plan's traffic table, and the requestor's
 * output against the lost block.
 *
 * <p>Blocks are sequences of cell rows; a cell holds alpha sub-chunks of {@code s} bytes
 * (DESIGN.md section 3, without tail). The graph describes one cell row and runs on every
 * row, each sub-chunk cut into slices of at most {@code sliceBytes} that flow through the
 * nodes one after another (the slices of repair pipelining); within a slice the nodes run
 * level by level of the graph.
 */
public final class SimulatedCluster {
  /** Moves {@code len} bytes of a value from one node to another. */
  public interface Transport {
    void send(int from, int to, int vertex, ByteBuffer src, int srcOff, int len);
  }

  /** The rebuilt blocks (by lost block, ascending) and the bytes each node sent and received. */
  public record Result(int[] lostBlocks, ByteBuffer[] repaired, long[] bytesIn, long[] bytesOut, long transfers) {
    public ByteBuffer repaired(int block) {
      for (int i = 0; i < lostBlocks.length; i++) {
        if (lostBlocks[i] == block) {
          return repaired[i];
        }
      }
      throw new IllegalArgumentException("block " + block + " is not rebuilt by this graph");
    }

    public long totalBytes() {
      long t = 0;
      for (long b : bytesOut) {
        t += b;
      }
      return t;
    }
  }

  private final RegionCoder coder;

  public SimulatedCluster(RegionCoder coder) {
    this.coder = coder;
  }

  /**
   * Runs the graph colored by {@code color} over nodes 0..nodeCount-1.
   *
   * @param blocks block b's bytes (node b holds block b); null where a block is not stored
   * @param subchunkBytes s, bytes per sub-chunk; a cell row is alpha x s bytes
   * @param sliceBytes the largest piece of a sub-chunk moved at once
   */
  public Result run(Ecdag graph, int[] color, int nodeCount, ByteBuffer[] blocks, int subchunkBytes, int sliceBytes) {
    if (subchunkBytes < 1 || sliceBytes < 1) {
      throw new IllegalArgumentException("sub-chunk and slice sizes must be positive");
    }
    int alpha = graph.subchunkCount();
    long cell = (long) alpha * subchunkBytes;
    long rowsL = -1;
    for (Ecdag.Vertex v : graph.leaves()) {
      ByteBuffer b = v.block() < blocks.length ? blocks[v.block()] : null;
      if (b == null) {
        throw new IllegalArgumentException("the graph reads block " + v.block() + ", which is not stored");
      }
      if (b.limit() % cell != 0) {
        throw new IllegalArgumentException("block " + v.block() + " is " + b.limit()
            + " bytes, not whole cell rows of " + cell);
      }
      long r = b.limit() / cell;
      if (rowsL >= 0 && r != rowsL) {
        throw new IllegalArgumentException("blocks differ in length");
      }
      rowsL = r;
    }
    int rows = (int) Math.max(0, rowsL);
    Map<Integer, NodeProgram> programs = NodeProgram.compile(graph, color);
    int requestor = color[graph.root().id()];
    TreeSet<Integer> lost = new TreeSet<>();
    for (Ecdag.Vertex v : graph.repaired()) {
      lost.add(v.block());
    }
    int[] lostBlocks = lost.stream().mapToInt(Integer::intValue).toArray();
    ByteBuffer[] out = new ByteBuffer[lostBlocks.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = ByteBuffer.allocate((int) (rows * cell));
    }
    long[] in = new long[nodeCount];
    long[] sent = new long[nodeCount];
    long[] transfers = {0};
    List<Map<Integer, ByteBuffer>> store = new ArrayList<>();
    for (int n = 0; n < nodeCount; n++) {
      store.add(new HashMap<>());
    }
    int slice = Math.min(sliceBytes, subchunkBytes);
    Transport transport = (from, to, vertex, src, off, len) -> {
      ByteBuffer dst = store.get(to).computeIfAbsent(vertex, x -> ByteBuffer.allocate(slice));
      dst.put(0, src, off, len);
      sent[from] += len;
      in[to] += len;
      transfers[0]++;
    };
    int maxLevel = 0;
    Map<NodeProgram.Step, CodingTables> tables = new HashMap<>();
    for (NodeProgram p : programs.values()) {
      for (NodeProgram.Step s : p.steps()) {
        tables.put(s, coder.prepare(s.matrix()));
        maxLevel = Math.max(maxLevel, s.level());
      }
      for (NodeProgram.Send s : p.sends()) {
        maxLevel = Math.max(maxLevel, s.level());
      }
    }
    List<List<NodeProgram.Step>> stepsAt = new ArrayList<>();
    List<List<int[]>> sendsAt = new ArrayList<>(); // {node, vertex, dest...}
    for (int l = 0; l <= maxLevel; l++) {
      stepsAt.add(new ArrayList<>());
      sendsAt.add(new ArrayList<>());
    }
    Map<NodeProgram.Step, Integer> stepNode = new HashMap<>();
    for (NodeProgram p : programs.values()) {
      for (NodeProgram.Step s : p.steps()) {
        stepsAt.get(s.level()).add(s);
        stepNode.put(s, p.node());
      }
      for (NodeProgram.Send s : p.sends()) {
        int[] e = new int[s.to().length + 2];
        e[0] = p.node();
        e[1] = s.vertex();
        System.arraycopy(s.to(), 0, e, 2, s.to().length);
        sendsAt.get(s.level()).add(e);
      }
    }
    for (int row = 0; row < rows; row++) {
      long rowBase = row * cell;
      for (int o = 0; o < subchunkBytes; o += slice) {
        int len = Math.min(slice, subchunkBytes - o);
        for (int l = 0; l <= maxLevel; l++) {
          for (NodeProgram.Step s : stepsAt.get(l)) {
            int node = stepNode.get(s);
            ByteBuffer[] ib = new ByteBuffer[s.inputs().length];
            int[] io = new int[ib.length];
            for (int j = 0; j < ib.length; j++) {
              locate(graph, color, node, s.inputs()[j], blocks, store, rowBase, o, subchunkBytes, ib, io, j);
            }
            ByteBuffer[] ob = new ByteBuffer[s.outputs().length];
            for (int r = 0; r < ob.length; r++) {
              ob[r] = store.get(node).computeIfAbsent(s.outputs()[r], x -> ByteBuffer.allocate(slice));
            }
            coder.encode(tables.get(s), ib, io, ob, new int[ob.length], len, false);
          }
          for (int[] e : sendsAt.get(l)) {
            ByteBuffer[] b = new ByteBuffer[1];
            int[] off = new int[1];
            locate(graph, color, e[0], e[1], blocks, store, rowBase, o, subchunkBytes, b, off, 0);
            for (int d = 2; d < e.length; d++) {
              transport.send(e[0], e[d], e[1], b[0], off[0], len);
            }
          }
        }
        for (Ecdag.Vertex v : graph.repaired()) {
          ByteBuffer src = store.get(requestor).get(v.id());
          if (src == null) {
            throw new IllegalStateException("repaired vertex " + v.id() + " never reached the requestor");
          }
          int i = java.util.Arrays.binarySearch(lostBlocks, v.block());
          out[i].put((int) (rowBase + (long) v.subchunk() * subchunkBytes + o), src, 0, len);
        }
      }
    }
    return new Result(lostBlocks, out, in, sent, transfers[0]);
  }

  /** Where node {@code node} finds value u: its own block for its leaves, else its store. */
  private static void locate(Ecdag g, int[] color, int node, int u, ByteBuffer[] blocks,
                             List<Map<Integer, ByteBuffer>> store,
                             long rowBase, int o, int s, ByteBuffer[] b, int[] off, int j) {
    Ecdag.Vertex v = g.vertex(u);
    if (v.kind() == Ecdag.Kind.LEAF && color[u] == node) {
      b[j] = blocks[v.block()];
      off[j] = (int) (rowBase + (long) v.subchunk() * s + o);
      return;
    }
    ByteBuffer x = store.get(node).get(u);
    if (x == null) {
      throw new IllegalStateException("node " + node + " needs value " + u + ", which never reached it");
    }
    b[j] = x;
    off[j] = 0;
  }
}
