package io.ecrepair.gf;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A straight-line program of region products: step i computes outputs = M_i x inputs, where
 * every region is named (buffer, unit): bytes [base[buffer] + unit*unitBytes, +unitBytes) of
 * one of the buffers handed to {@link RegionCoder#run}. A repair graph compiles to one of
 * these once; running it on a cell row is then a single native call, however many steps
 * (sub-chunk repairs have hundreds of small ones per cell).
 */
public final class LinearProgram {
  /** A region: the unit-th unitBytes-long piece of a buffer, after its base offset. */
  public record Ref(int buffer, int unit) {}

  /**
   * outputs = matrix x inputs, over regions {@code width} units long: region (b, u) of a step
   * is bytes [base[b] + u*unitBytes, +width*unitBytes), so one step can cover a run of
   * consecutive units (e.g. sub-chunks of consecutive layers) in one call.
   */
  public record Step(GFMatrix matrix, List<Ref> inputs, List<Ref> outputs, int width) {
    public Step {
      if (matrix.cols() != inputs.size() || matrix.rows() != outputs.size() || inputs.isEmpty() || outputs.isEmpty()) {
        throw new IllegalArgumentException("a step's matrix must be outputs x inputs, both non-empty");
      }
      if (width < 1) {
        throw new IllegalArgumentException("a step covers at least one unit, got width " + width);
      }
      inputs = List.copyOf(inputs);
      outputs = List.copyOf(outputs);
    }

    /** A step over single units. */
    public Step(GFMatrix matrix, List<Ref> inputs, List<Ref> outputs) {
      this(matrix, inputs, outputs, 1);
    }
  }

  private final int bufferCount;
  private final List<Step> steps;
  private final int[] maxUnit;
  private volatile NativeForm nativeForm;
  private volatile CodingTables[] javaTables;

  public LinearProgram(int bufferCount, List<Step> steps) {
    this.bufferCount = bufferCount;
    this.steps = List.copyOf(steps);
    this.maxUnit = new int[bufferCount];
    java.util.Arrays.fill(maxUnit, -1);
    for (Step s : steps) {
      for (List<Ref> refs : List.of(s.inputs(), s.outputs())) {
        for (Ref r : refs) {
          if (r.buffer() < 0 || r.buffer() >= bufferCount || r.unit() < 0) {
            throw new IllegalArgumentException("region " + r + " outside the program's " + bufferCount + " buffers");
          }
          maxUnit[r.buffer()] = Math.max(maxUnit[r.buffer()], r.unit() + s.width() - 1);
        }
      }
    }
  }

  public int bufferCount() {
    return bufferCount;
  }

  public List<Step> steps() {
    return steps;
  }

  /** Checks that every region the program touches lies inside its buffer. */
  void checkBuffers(ByteBuffer[] buffers, int[] bases, int unitBytes) {
    if (buffers.length != bufferCount || bases.length != bufferCount) {
      throw new IllegalArgumentException("program takes " + bufferCount + " buffers and bases");
    }
    if (unitBytes < 0) {
      throw new IllegalArgumentException("negative unit size " + unitBytes);
    }
    for (int b = 0; b < bufferCount; b++) {
      if (maxUnit[b] < 0) {
        continue;
      }
      long end = bases[b] + (long) (maxUnit[b] + 1) * unitBytes;
      if (buffers[b] == null) {
        throw new IllegalArgumentException("buffer " + b + " is used by the program but missing");
      }
      if (bases[b] < 0 || end > buffers[b].capacity()) {
        throw new IndexOutOfBoundsException("buffer " + b + ": program needs bytes up to " + end
            + " but it holds " + buffers[b].capacity());
      }
    }
  }

  /** The int-coded program and concatenated ISA-L tables for the native runner, built once. */
  NativeForm nativeForm(NativeRegionCoder coder) {
    NativeForm f = nativeForm;
    if (f == null) {
      f = NativeForm.build(this, coder);
      nativeForm = f;
    }
    return f;
  }

  CodingTables[] javaTables(RegionCoder coder) {
    CodingTables[] t = javaTables;
    if (t == null) {
      t = new CodingTables[steps.size()];
      for (int i = 0; i < t.length; i++) {
        t[i] = coder.prepare(steps.get(i).matrix());
      }
      javaTables = t;
    }
    return t;
  }

  /** [steps, then per step: k, rows, tableOffset, width, k x (buffer, unit), rows x (buffer, unit)]. */
  record NativeForm(int[] code, ByteBuffer tables) {
    static NativeForm build(LinearProgram p, NativeRegionCoder coder) {
      List<Integer> code = new ArrayList<>();
      code.add(p.steps.size());
      int tableBytes = 0;
      for (Step s : p.steps) {
        tableBytes += 32 * s.matrix().rows() * s.matrix().cols();
      }
      ByteBuffer tables = Buffers.alignedDirect(Math.max(32, tableBytes));
      int offset = 0;
      for (Step s : p.steps) {
        ByteBuffer t = coder.prepare(s.matrix()).isalTables();
        int size = 32 * s.matrix().rows() * s.matrix().cols();
        tables.put(offset, t, 0, size);
        code.add(s.inputs().size());
        code.add(s.outputs().size());
        code.add(offset);
        code.add(s.width());
        for (Ref r : s.inputs()) {
          code.add(r.buffer());
          code.add(r.unit());
        }
        for (Ref r : s.outputs()) {
          code.add(r.buffer());
          code.add(r.unit());
        }
        offset += size;
      }
      return new NativeForm(code.stream().mapToInt(Integer::intValue).toArray(), tables);
    }
  }
}
