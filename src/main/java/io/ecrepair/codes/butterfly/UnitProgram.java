package io.ecrepair.codes.butterfly;

import io.ecrepair.ecdag.Ecdag;
import io.ecrepair.gf.Buffers;
import io.ecrepair.gf.GFMatrix;
import io.ecrepair.gf.LinearProgram;
import io.ecrepair.gf.RegionCoder;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A Butterfly graph compiled once into a {@link LinearProgram} over the units of one stripe, so
 * the direct (non-graph) paths run every step in a single native call. Buffer u (0..n-1) is
 * unit u with sub-chunk j at base[u] + j*s: leaves are read there and rebuilt sub-chunks are
 * written straight into their unit's buffer; buffer n is scratch for inner vertices.
 * Thread-safe: scratch is per thread.
 */
final class UnitProgram {
  private final int units;
  private final int scratchUnits;
  private final LinearProgram program;
  private final ThreadLocal<ByteBuffer> scratch = new ThreadLocal<>();

  private UnitProgram(int units, int scratchUnits, LinearProgram program) {
    this.units = units;
    this.scratchUnits = scratchUnits;
    this.program = program;
  }

  /** Compiles a graph whose leaf and repaired blocks are unit indices below {@code units}. */
  static UnitProgram compile(Ecdag graph, int units) {
    LinearProgram.Ref[] ref = new LinearProgram.Ref[graph.vertices().size()];
    int scratchUnits = 0;
    List<LinearProgram.Step> steps = new ArrayList<>();
    for (Ecdag.Vertex v : graph.vertices()) {
      switch (v.kind()) {
        case LEAF, REPAIRED -> ref[v.id()] = new LinearProgram.Ref(v.block(), v.subchunk());
        case INNER -> ref[v.id()] = new LinearProgram.Ref(units, scratchUnits++);
        case ROOT -> { }
      }
      if (v.kind() == Ecdag.Kind.INNER || v.kind() == Ecdag.Kind.REPAIRED) {
        List<Ecdag.Edge> in = graph.inputs(v.id());
        byte[] coefs = new byte[in.size()];
        List<LinearProgram.Ref> inputs = new ArrayList<>(in.size());
        for (int i = 0; i < coefs.length; i++) {
          coefs[i] = (byte) in.get(i).coef();
          inputs.add(ref[in.get(i).from()]);
        }
        steps.add(new LinearProgram.Step(new GFMatrix(1, coefs.length, coefs), inputs, List.of(ref[v.id()])));
      }
    }
    return new UnitProgram(units, scratchUnits, new LinearProgram(units + 1, steps));
  }

  /**
   * Runs over sub-chunks of s bytes: unitBuffers[u] at bases[u] holds unit u (an input, an
   * output, or null when the program does not touch it).
   */
  void run(RegionCoder coder, ByteBuffer[] unitBuffers, int[] bases, int s) {
    if (s == 0) {
      return;
    }
    ByteBuffer[] buffers = new ByteBuffer[units + 1];
    int[] b = new int[units + 1];
    System.arraycopy(unitBuffers, 0, buffers, 0, units);
    System.arraycopy(bases, 0, b, 0, units);
    buffers[units] = scratch(s, unitBuffers);
    coder.run(program, buffers, b, s);
  }

  /** Scratch of the same kind as the units (direct unless they are all heap buffers). */
  private ByteBuffer scratch(int s, ByteBuffer[] unitBuffers) {
    int need = Math.max(1, scratchUnits * s);
    boolean heap = true;
    for (ByteBuffer u : unitBuffers) {
      heap &= u == null || !u.isDirect();
    }
    if (heap) {
      return ByteBuffer.allocate(need);
    }
    ByteBuffer b = scratch.get();
    if (b == null || b.capacity() < need) {
      b = Buffers.alignedDirect(need);
      scratch.set(b);
    }
    return b;
  }
}
