package io.ecrepair.exec;

import io.ecrepair.ecdag.Ecdag;
import io.ecrepair.gf.Buffers;
import io.ecrepair.gf.GFMatrix;
import io.ecrepair.gf.LinearProgram;
import io.ecrepair.gf.RegionCoder;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * An ECDAG compiled once into a {@link LinearProgram} over one cell row, then run on every
 * row. Buffers: 0..n-1 are the helpers' cells (block b's sub-chunk j at cellBase + j*s),
 * then one output buffer per lost block (sub-chunk j at outBase + j*s), then a scratch
 * buffer for inner vertices. Vertices with the same inputs become one multi-row step, so an
 * input read once serves all its uses (ParaRC section 6.2).
 */
public final class CompiledGraph {
  private final Ecdag graph;
  private final int blockBuffers;
  private final int[] lostBlocks;
  private final int scratchUnits;
  private final LinearProgram program;
  private final ThreadLocal<ByteBuffer> scratch = new ThreadLocal<>();

  private CompiledGraph(Ecdag graph, int blockBuffers, int[] lostBlocks, int scratchUnits, LinearProgram program) {
    this.graph = graph;
    this.blockBuffers = blockBuffers;
    this.lostBlocks = lostBlocks;
    this.scratchUnits = scratchUnits;
    this.program = program;
  }

  public static CompiledGraph compile(Ecdag graph) {
    TreeSet<Integer> lost = new TreeSet<>();
    int maxBlock = -1;
    for (Ecdag.Vertex v : graph.vertices()) {
      if (v.kind() == Ecdag.Kind.REPAIRED) {
        lost.add(v.block());
      }
      maxBlock = Math.max(maxBlock, v.block());
    }
    int blockBuffers = maxBlock + 1;
    int[] lostBlocks = lost.stream().mapToInt(Integer::intValue).toArray();
    int scratchBuffer = blockBuffers + lostBlocks.length;
    LinearProgram.Ref[] ref = new LinearProgram.Ref[graph.vertices().size()];
    int scratchUnits = 0;
    Map<InputSet, StepBuilder> steps = new LinkedHashMap<>();
    for (Ecdag.Vertex v : graph.vertices()) {
      switch (v.kind()) {
        case LEAF -> ref[v.id()] = new LinearProgram.Ref(v.block(), v.subchunk());
        case INNER -> ref[v.id()] = new LinearProgram.Ref(scratchBuffer, scratchUnits++);
        case REPAIRED -> ref[v.id()] = new LinearProgram.Ref(
            blockBuffers + Arrays.binarySearch(lostBlocks, v.block()), v.subchunk());
        case ROOT -> { }
      }
      if (v.kind() == Ecdag.Kind.INNER || v.kind() == Ecdag.Kind.REPAIRED) {
        List<Ecdag.Edge> in = new ArrayList<>(graph.inputs(v.id()));
        in.sort((a, b) -> Integer.compare(a.from(), b.from()));
        InputSet key = new InputSet(in.stream().mapToInt(Ecdag.Edge::from).toArray());
        StepBuilder step = steps.computeIfAbsent(key, k -> new StepBuilder(in.stream().map(e -> ref[e.from()]).toList()));
        step.addRow(in.stream().mapToInt(Ecdag.Edge::coef).toArray(), ref[v.id()]);
      }
    }
    List<LinearProgram.Step> program = steps.values().stream().map(StepBuilder::build).toList();
    return new CompiledGraph(graph, blockBuffers, lostBlocks, scratchUnits,
        new LinearProgram(scratchBuffer + 1, program));
  }

  public Ecdag graph() {
    return graph;
  }

  /** The blocks this graph rebuilds, in the order run() takes their output buffers. */
  public int[] lostBlocks() {
    return lostBlocks.clone();
  }

  public int stepCount() {
    return program.steps().size();
  }

  /**
   * Runs the graph over sub-chunks of s bytes: cells[b] holds helper block b's cell row
   * (null for blocks the graph does not read), out[i] receives lostBlocks()[i].
   */
  public void run(RegionCoder coder, ByteBuffer[] cells, int cellBase, ByteBuffer[] out, int outBase, int s) {
    if (out.length != lostBlocks.length) {
      throw new IllegalArgumentException("graph rebuilds " + lostBlocks.length + " blocks, got " + out.length + " outputs");
    }
    ByteBuffer[] buffers = new ByteBuffer[program.bufferCount()];
    int[] bases = new int[buffers.length];
    for (int b = 0; b < blockBuffers && b < cells.length; b++) {
      buffers[b] = cells[b];
      bases[b] = cellBase;
    }
    for (int i = 0; i < out.length; i++) {
      buffers[blockBuffers + i] = out[i];
      bases[blockBuffers + i] = outBase;
    }
    buffers[buffers.length - 1] = scratch(s);
    coder.run(program, buffers, bases, s);
  }

  private ByteBuffer scratch(int s) {
    int need = Math.max(1, scratchUnits * s);
    ByteBuffer b = scratch.get();
    if (b == null || b.capacity() < need) {
      b = Buffers.alignedDirect(need);
      scratch.set(b);
    }
    return b;
  }

  /** The sorted input vertex ids of a vertex: equal sets share one step. */
  private record InputSet(int[] ids) {
    @Override
    public boolean equals(Object o) {
      return o instanceof InputSet other && Arrays.equals(ids, other.ids);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(ids);
    }
  }

  private static final class StepBuilder {
    private final List<LinearProgram.Ref> inputs;
    private final List<int[]> rows = new ArrayList<>();
    private final List<LinearProgram.Ref> outputs = new ArrayList<>();

    StepBuilder(List<LinearProgram.Ref> inputs) {
      this.inputs = inputs;
    }

    void addRow(int[] coefs, LinearProgram.Ref output) {
      rows.add(coefs);
      outputs.add(output);
    }

    LinearProgram.Step build() {
      byte[] m = new byte[rows.size() * inputs.size()];
      for (int r = 0; r < rows.size(); r++) {
        for (int c = 0; c < inputs.size(); c++) {
          m[r * inputs.size() + c] = (byte) rows.get(r)[c];
        }
      }
      return new LinearProgram.Step(new GFMatrix(rows.size(), inputs.size(), m), inputs, outputs);
    }
  }
}
