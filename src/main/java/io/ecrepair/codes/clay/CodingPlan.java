package io.ecrepair.codes.clay;

import io.ecrepair.ecdag.Ecdag;
import io.ecrepair.gf.Buffers;
import io.ecrepair.gf.CodingTables;
import io.ecrepair.gf.GFMatrix;
import io.ecrepair.gf.LinearProgram;
import io.ecrepair.gf.RegionCoder;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A compiled encode, decode or repair of one erasure pattern: a list of region operations
 * out = M x in over runs of sub-chunks, independent of the sub-chunk size. The same plan is
 * run over buffers ({@link #execute}) or written out as an {@link Ecdag} ({@link #emit}), so
 * the graph and the direct implementation cannot disagree.
 *
 * <p>An operand names a sub-chunk: of a caller's unit ({@link #UNIT}, by unit index), of a
 * caller's output ({@link #OUT}, by output index), or of scratch space ({@link #SCRATCH}, for
 * uncoupled values U). While a plan is built, a scratch operand is (slot, layer); the built
 * plan packs scratch so that its "layer" is a sub-chunk position in one scratch buffer. A
 * step covers {@code run} consecutive layers (positions) starting at each operand's.
 */
final class CodingPlan {
  static final int UNIT = 0;
  static final int OUT = 1;
  static final int SCRATCH = 2;

  /** One region call: out[r] = sum_j matrix[r][j] * in[j] over run * s bytes. */
  static final class Step {
    final GFMatrix matrix;
    final CodingTables tables;
    final int[] inKind;
    final int[] inId;
    final int[] inLayer;
    final int[] outKind;
    final int[] outId;
    final int[] outLayer;
    final int run;

    Step(GFMatrix matrix, CodingTables tables, int[] inKind, int[] inId, int[] inLayer,
         int[] outKind, int[] outId, int[] outLayer, int run) {
      this.matrix = matrix;
      this.tables = tables;
      this.inKind = inKind;
      this.inId = inId;
      this.inLayer = inLayer;
      this.outKind = outKind;
      this.outId = outId;
      this.outLayer = outLayer;
      this.run = run;
    }
  }

  private final List<Step> steps;
  private final int scratchSubchunks;
  private volatile Compiled compiled;

  CodingPlan(List<Step> steps, int scratchSubchunks) {
    this.steps = List.copyOf(steps);
    this.scratchSubchunks = scratchSubchunks;
  }

  List<Step> steps() {
    return steps;
  }

  /** Sub-chunks of scratch space the plan needs (for U values), after packing. */
  int scratchSubchunks() {
    return scratchSubchunks;
  }

  /**
   * Runs the plan over sub-chunks of {@code s} bytes: sub-chunk j of unit u starts at
   * unitOff[u] + j*s, of output o at outOff[o] + j*s.
   */
  void execute(RegionCoder coder, ByteBuffer[] units, int[] unitOff, ByteBuffer[] out, int[] outOff, int s) {
    if (s == 0 || steps.isEmpty()) {
      return;
    }
    ByteBuffer scratch = null;
    if (scratchSubchunks > 0) {
      if ((long) s * scratchSubchunks > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("cell too large for Clay scratch space");
      }
      scratch = Scratch.get(s * scratchSubchunks, preferDirect(units, out));
    }
    ByteBuffer[] buffers = new ByteBuffer[units.length + out.length + 1];
    int[] bases = new int[buffers.length];
    System.arraycopy(units, 0, buffers, 0, units.length);
    System.arraycopy(unitOff, 0, bases, 0, units.length);
    System.arraycopy(out, 0, buffers, units.length, out.length);
    System.arraycopy(outOff, 0, bases, units.length, out.length);
    buffers[buffers.length - 1] = scratch;
    // One compiled program: the native coder runs every step in a single call.
    coder.run(program(units.length, out.length), buffers, bases, s);
  }

  /** The plan as a LinearProgram over [units..., outputs..., scratch], built once per shape. */
  private LinearProgram program(int unitCount, int outCount) {
    Compiled c = compiled;
    if (c == null || c.unitCount != unitCount || c.outCount != outCount) {
      List<LinearProgram.Step> ls = new ArrayList<>();
      for (Step st : steps) {
        List<LinearProgram.Ref> in = new ArrayList<>();
        for (int j = 0; j < st.inKind.length; j++) {
          in.add(ref(st.inKind[j], st.inId[j], st.inLayer[j], unitCount, outCount));
        }
        List<LinearProgram.Ref> o = new ArrayList<>();
        for (int r = 0; r < st.outKind.length; r++) {
          o.add(ref(st.outKind[r], st.outId[r], st.outLayer[r], unitCount, outCount));
        }
        ls.add(new LinearProgram.Step(st.matrix, in, o, st.run));
      }
      c = new Compiled(unitCount, outCount, new LinearProgram(unitCount + outCount + 1, ls));
      compiled = c;
    }
    return c.program;
  }

  private static LinearProgram.Ref ref(int kind, int id, int layer, int unitCount, int outCount) {
    return switch (kind) {
      case UNIT -> new LinearProgram.Ref(id, layer);
      case OUT -> new LinearProgram.Ref(unitCount + id, layer);
      default -> new LinearProgram.Ref(unitCount + outCount, layer);
    };
  }

  private record Compiled(int unitCount, int outCount, LinearProgram program) {}

  /**
   * Adds the plan's operations to a graph, one vertex per output sub-chunk: caller units are
   * leaves (block = unit index, sub-chunk = layer), outputs are repaired vertices of
   * {@code outUnits[output index]}, scratch values inner vertices.
   */
  void emit(Ecdag.Builder g, int[] outUnits) {
    Map<Long, Integer> vertex = new HashMap<>();
    for (Step st : steps) {
      for (int r = 0; r < st.run; r++) {
        int[] inputs = new int[st.inKind.length];
        for (int j = 0; j < inputs.length; j++) {
          int layer = st.inLayer[j] + r;
          if (st.inKind[j] == UNIT) {
            inputs[j] = g.leaf(st.inId[j], layer);
          } else {
            Integer v = vertex.get(key(st.inKind[j], st.inId[j], layer));
            if (v == null) {
              throw new IllegalStateException("plan reads a value before computing it");
            }
            inputs[j] = v;
          }
        }
        for (int o = 0; o < st.outKind.length; o++) {
          int[] coefs = new int[inputs.length];
          for (int j = 0; j < coefs.length; j++) {
            coefs[j] = st.matrix.get(o, j) & 0xFF;
          }
          int layer = st.outLayer[o] + r;
          int v = st.outKind[o] == OUT
              ? g.repaired(outUnits[st.outId[o]], layer, inputs, coefs)
              : g.combine(inputs, coefs);
          vertex.put(key(st.outKind[o], st.outId[o], layer), v);
        }
      }
    }
  }

  private static long key(int kind, int id, int layer) {
    return ((long) kind << 56) | ((long) id << 28) | layer;
  }

  private static boolean preferDirect(ByteBuffer[] units, ByteBuffer[] out) {
    for (ByteBuffer b : units) {
      if (b != null && !b.hasArray()) {
        return true;
      }
    }
    for (ByteBuffer b : out) {
      if (b != null && !b.hasArray()) {
        return true;
      }
    }
    return false;
  }

  /** When a step may run; see {@link Builder#build}. */
  enum Phase {
    /** Reads caller units only (pair transforms); scheduled just before its first reader. */
    PRELUDE,
    /** Layer steps, in the order added. */
    LAYER,
    /** Scheduled as soon as everything it reads has been computed. */
    FINAL
  }

  /** Builds a plan: collects steps and prepares each distinct matrix once. */
  static final class Builder {
    private final RegionCoder coder;
    private final List<Step> prelude = new ArrayList<>();
    private final List<Step> layer = new ArrayList<>();
    private final List<Step> fin = new ArrayList<>();
    private final Map<GFMatrix, CodingTables> tables = new HashMap<>();
    private int slots;

    Builder(RegionCoder coder) {
      this.coder = coder;
    }

    int newSlot() {
      return slots++;
    }

    void add(Phase phase, GFMatrix m, int[] inKind, int[] inId, int[] inLayer, int[] outKind, int[] outId,
             int[] outLayer, int run) {
      CodingTables t = tables.computeIfAbsent(m, coder::prepare);
      Step st = new Step(m, t, inKind, inId, inLayer, outKind, outId, outLayer, run);
      switch (phase) {
        case PRELUDE -> prelude.add(st);
        case LAYER -> layer.add(st);
        default -> fin.add(st);
      }
    }

    /**
     * Orders the steps for cache locality: layer steps keep their order; a prelude step runs
     * right before the first step reading one of its outputs, a final step right after the
     * last of its inputs is computed. Values then tend to be used while still in cache.
     */
    CodingPlan build() {
      return new Scheduler().run();
    }

    /** The ordering of {@link #build}. */
    private final class Scheduler {
      private final List<Step> order = new ArrayList<>();
      private final Map<Long, Integer> preludeWriting = new HashMap<>();
      private final boolean[] preludeDone = new boolean[prelude.size()];
      private final java.util.Set<Long> computed = new java.util.HashSet<>();
      private final int[] waiting = new int[fin.size()];
      private final Map<Long, List<Integer>> finalsWaitingOn = new HashMap<>();
      private final boolean[] finalDone = new boolean[fin.size()];
      private final List<Integer> ready = new ArrayList<>();

      CodingPlan run() {
        for (int i = 0; i < prelude.size(); i++) {
          final int idx = i;
          forEachOutput(prelude.get(i), key -> preludeWriting.put(key, idx));
        }
        for (int i = 0; i < fin.size(); i++) {
          final int idx = i;
          forEachInput(fin.get(i), key -> {
            waiting[idx]++;
            finalsWaitingOn.computeIfAbsent(key, x -> new ArrayList<>()).add(idx);
          });
          if (waiting[i] == 0) {
            ready.add(i);
          }
        }
        for (Step st : layer) {
          forEachInput(st, key -> {
            Integer p = preludeWriting.get(key);
            if (p != null && !preludeDone[p]) {
              preludeDone[p] = true;
              emit(prelude.get(p));
            }
          });
          emit(st);
          emitReadyFinals();
        }
        for (int i = 0; i < prelude.size(); i++) {
          if (!preludeDone[i]) {
            emit(prelude.get(i));
          }
        }
        emitReadyFinals();
        for (int i = 0; i < fin.size(); i++) {
          if (!finalDone[i]) {
            throw new IllegalStateException("a final step reads a value no step computes");
          }
        }
        return compactScratch(mergeAdjacent(order));
      }

      private void emit(Step st) {
        order.add(st);
        forEachOutput(st, key -> {
          if (computed.add(key)) {
            for (int f : finalsWaitingOn.getOrDefault(key, List.of())) {
              if (--waiting[f] == 0) {
                ready.add(f);
              }
            }
          }
        });
      }

      private void emitReadyFinals() {
        while (!ready.isEmpty()) {
          List<Integer> now = new ArrayList<>(ready);
          ready.clear();
          for (int f : now) {
            if (!finalDone[f]) {
              finalDone[f] = true;
              emit(fin.get(f));
            }
          }
        }
      }
    }

    /**
     * Packs scratch: every (slot, layer) a step touches gets its own sub-chunk position,
     * slot by slot in layer order, so runs stay contiguous and no unused layer takes space.
     * Afterwards a scratch operand is (SCRATCH, 0, position).
     */
    private CodingPlan compactScratch(List<Step> steps) {
      java.util.TreeSet<Long> used = new java.util.TreeSet<>();
      for (Step st : steps) {
        for (int j = 0; j < st.inKind.length; j++) {
          if (st.inKind[j] == SCRATCH) {
            for (int r = 0; r < st.run; r++) {
              used.add(((long) st.inId[j] << 32) | (st.inLayer[j] + r));
            }
          }
        }
        for (int o = 0; o < st.outKind.length; o++) {
          if (st.outKind[o] == SCRATCH) {
            for (int r = 0; r < st.run; r++) {
              used.add(((long) st.outId[o] << 32) | (st.outLayer[o] + r));
            }
          }
        }
      }
      Map<Long, Integer> position = new HashMap<>();
      for (long u : used) {
        position.put(u, position.size());
      }
      List<Step> out = new ArrayList<>(steps.size());
      for (Step st : steps) {
        int[] inId = st.inId.clone();
        int[] inLayer = st.inLayer.clone();
        for (int j = 0; j < inId.length; j++) {
          if (st.inKind[j] == SCRATCH) {
            inLayer[j] = position.get(((long) inId[j] << 32) | inLayer[j]);
            inId[j] = 0;
          }
        }
        int[] outId = st.outId.clone();
        int[] outLayer = st.outLayer.clone();
        for (int o = 0; o < outId.length; o++) {
          if (st.outKind[o] == SCRATCH) {
            outLayer[o] = position.get(((long) outId[o] << 32) | outLayer[o]);
            outId[o] = 0;
          }
        }
        out.add(new Step(st.matrix, st.tables, st.inKind, inId, inLayer, st.outKind, outId, outLayer, st.run));
      }
      return new CodingPlan(out, used.size());
    }

    /**
     * Joins consecutive steps with the same matrix whose operands continue each other layer
     * by layer (B's operand = A's operand + A's run) into one longer call, unless the joined
     * call would read a sub-chunk it writes.
     */
    private static List<Step> mergeAdjacent(List<Step> steps) {
      List<Step> out = new ArrayList<>();
      for (Step st : steps) {
        Step last = out.isEmpty() ? null : out.get(out.size() - 1);
        if (last != null && continues(last, st)) {
          out.set(out.size() - 1, new Step(last.matrix, last.tables, last.inKind, last.inId, last.inLayer,
              last.outKind, last.outId, last.outLayer, last.run + st.run));
        } else {
          out.add(st);
        }
      }
      return out;
    }

    private static boolean continues(Step a, Step b) {
      if (a.tables != b.tables || !Arrays.equals(a.inKind, b.inKind) || !Arrays.equals(a.inId, b.inId)
          || !Arrays.equals(a.outKind, b.outKind) || !Arrays.equals(a.outId, b.outId)) {
        return false;
      }
      for (int j = 0; j < a.inLayer.length; j++) {
        if (b.inLayer[j] != a.inLayer[j] + a.run) {
          return false;
        }
      }
      for (int o = 0; o < a.outLayer.length; o++) {
        if (b.outLayer[o] != a.outLayer[o] + a.run) {
          return false;
        }
      }
      java.util.Set<Long> written = new java.util.HashSet<>();
      forEachOutput(a, written::add);
      forEachOutput(b, written::add);
      boolean[] clash = {false};
      java.util.function.LongConsumer check = key -> clash[0] |= written.contains(key);
      forEachInput(a, check);
      forEachInput(b, check);
      return !clash[0];
    }

    /** Computed (scratch or output) sub-chunks a step reads. */
    private static void forEachInput(Step st, java.util.function.LongConsumer f) {
      for (int j = 0; j < st.inKind.length; j++) {
        if (st.inKind[j] != UNIT) {
          for (int r = 0; r < st.run; r++) {
            f.accept(key(st.inKind[j], st.inId[j], st.inLayer[j] + r));
          }
        }
      }
    }

    private static void forEachOutput(Step st, java.util.function.LongConsumer f) {
      for (int o = 0; o < st.outKind.length; o++) {
        for (int r = 0; r < st.run; r++) {
          f.accept(key(st.outKind[o], st.outId[o], st.outLayer[o] + r));
        }
      }
    }
  }

  /** Per-thread scratch space, grown on demand and reused across calls. */
  private static final class Scratch {
    private static final ThreadLocal<ByteBuffer[]> POOL = ThreadLocal.withInitial(() -> new ByteBuffer[2]);

    static ByteBuffer get(int bytes, boolean direct) {
      ByteBuffer[] pool = POOL.get();
      int i = direct ? 1 : 0;
      if (pool[i] == null || pool[i].capacity() < bytes) {
        // A multiple of the alignment: Buffers.alignedDirect may come out short otherwise.
        int size = (bytes + Buffers.ALIGNMENT - 1) / Buffers.ALIGNMENT * Buffers.ALIGNMENT;
        pool[i] = direct ? Buffers.alignedDirect(size) : ByteBuffer.allocate(size);
      }
      return pool[i];
    }
  }
}
