package io.ecrepair.exec;

import io.ecrepair.codes.CellLayout;
import io.ecrepair.codes.RepairableCode;
import io.ecrepair.ecdag.Ecdag;
import io.ecrepair.gf.RegionCoder;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One repair (lost units, available units) applied to every cell row of a block group, the
 * same way wherever the bytes come from (local block files, HDFS block reads): for a row of
 * coding length L, which byte ranges of each helper's cell the repair needs (the graph's leaf
 * sub-chunks as runs of contiguous sub-chunks, plus the tail bytes the tail graph reads), and
 * running the compiled sub-chunk graph and the tail graph over the cells (docs/architecture.md#cell-layout).
 *
 * <p>Immutable and safe to share between threads once built ({@link CompiledGraph} keeps its
 * scratch per thread).
 */
public final class CellRowRepair {
  private final int alpha;
  private final int[] lost;
  private final CompiledGraph vector;
  private final CompiledGraph tail;
  /** unit -> runs of sub-chunk indices {first, count}, sorted. */
  private final TreeMap<Integer, int[][]> vectorRuns;
  private final TreeSet<Integer> tailUnits;
  /** Whether a row's tail bytes are rebuilt (all but a window of sub-chunks that ends before the tail). */
  private final boolean withTail;
  /** Windows of this repair built so far, per (first, count, withTail): at most {@link #MAX_WINDOWS}. */
  private final java.util.Map<Long, CellRowRepair> windows = new java.util.LinkedHashMap<>(16, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(java.util.Map.Entry<Long, CellRowRepair> eldest) {
      return size() > MAX_WINDOWS;
    }
  };
  private static final int MAX_WINDOWS = 256;

  private CellRowRepair(int alpha, CompiledGraph vector, CompiledGraph tail, boolean withTail) {
    this.alpha = alpha;
    this.vector = vector;
    this.tail = tail;
    this.withTail = withTail;
    this.lost = vector.lostBlocks();
    if (!Arrays.equals(lost, tail.lostBlocks())) {
      throw new IllegalStateException("sub-chunk graph rebuilds " + Arrays.toString(lost) + " but tail graph "
          + Arrays.toString(tail.lostBlocks()));
    }
    this.vectorRuns = runsOf(vector.graph());
    this.tailUnits = new TreeSet<>();
    for (Ecdag.Vertex leaf : tail.graph().leaves()) {
      tailUnits.add(leaf.block());
    }
  }

  /**
   * The repair of {@code lost} from {@code available} (sorted, disjoint unit indices) that the
   * code finds cheapest.
   *
   * @throws io.ecrepair.codes.UndecodableException when {@code available} cannot rebuild {@code lost}
   */
  public static CellRowRepair plan(RepairableCode code, int[] lost, int[] available) {
    return new CellRowRepair(code.subPacketization(), CompiledGraph.compile(code.repairGraph(lost, available)),
        CompiledGraph.compile(code.tailRepairGraph(lost, available)), true);
  }

  /**
   * This repair for a read of part of the lost cells: it rebuilds only sub-chunks
   * [{@code first}, {@code first + count}) of each lost cell, and the tail bytes when
   * {@code withTail}, reading only what those need ({@link Ecdag#restrictedTo}). Other bytes
   * of the output cells are left as they were, or rebuilt where the window is computed from
   * them (Butterfly reads rebuilt sub-chunks).
   */
  public CellRowRepair window(int first, int count, boolean withTail) {
    if (first < 0 || count < 1 || first + count > alpha) {
      throw new IllegalArgumentException("sub-chunks " + first + "+" + count + " outside 0.." + (alpha - 1));
    }
    long key = ((long) first << 32) | ((long) count << 1) | (withTail ? 1 : 0);
    synchronized (windows) {
      CellRowRepair w = windows.get(key);
      if (w != null) {
        return w;
      }
    }
    CellRowRepair w = new CellRowRepair(alpha, CompiledGraph.compile(vector.graph().restrictedTo(first, count)), tail,
        withTail);
    synchronized (windows) {
      windows.put(key, w);
    }
    return w;
  }

  /** The units rebuilt, in the order {@link #run} takes its output buffers (sorted). */
  public int[] lost() {
    return lost.clone();
  }

  /** Every unit some row may read from (sorted). */
  public int[] helpers() {
    TreeSet<Integer> all = new TreeSet<>(vectorRuns.keySet());
    if (withTail) {
      all.addAll(tailUnits);
    }
    return all.stream().mapToInt(Integer::intValue).toArray();
  }

  public int subPacketization() {
    return alpha;
  }

  /** The repair graph of a row's sub-chunks (for a scalar code, of its whole cells). */
  public Ecdag graph() {
    return vector.graph();
  }

  /**
   * The byte ranges {offset, length} inside {@code unit}'s cell that a row of coding length
   * {@code codingLength} reads: sorted, adjacent ranges merged. Empty when the row does not
   * read the unit.
   */
  public List<int[]> ranges(int unit, int codingLength) {
    CellLayout cell = new CellLayout(alpha, codingLength);
    int s = cell.subchunkBytes();
    List<int[]> out = new ArrayList<>();
    int[][] runs = vectorRuns.get(unit);
    if (s > 0 && runs != null) {
      for (int[] run : runs) {
        add(out, run[0] * s, run[1] * s);
      }
    }
    if (withTail && cell.tailBytes() > 0 && tailUnits.contains(unit)) {
      add(out, cell.tailOffset(), cell.tailBytes());
    }
    return out;
  }

  /** Bytes a row of coding length {@code codingLength} reads from every unit together (cells taken as full). */
  public long bytesPerRow(int codingLength) {
    long total = 0;
    for (int unit : helpers()) {
      for (int[] r : ranges(unit, codingLength)) {
        total += r[1];
      }
    }
    return total;
  }

  /**
   * Rebuilds the lost cells of one row: {@code cells[u]} holds unit u's cell (at least the
   * ranges {@link #ranges} names for it, offsets from 0; null for units not read),
   * {@code out[i]} receives the first {@code codingLength} bytes of {@code lost()[i]}'s cell.
   */
  public void run(RegionCoder coder, ByteBuffer[] cells, ByteBuffer[] out, int codingLength) {
    CellLayout cell = new CellLayout(alpha, codingLength);
    if (cell.subchunkBytes() > 0) {
      vector.run(coder, cells, 0, out, 0, cell.subchunkBytes());
    }
    if (withTail && cell.tailBytes() > 0) {
      tail.run(coder, cells, cell.tailOffset(), out, cell.tailOffset(), cell.tailBytes());
    }
  }

  /** The units the tail graph reads (sorted): where a row's tail bytes come from. */
  public int[] tailHelpers() {
    return tailUnits.stream().mapToInt(Integer::intValue).toArray();
  }

  /**
   * Rebuilds only the tail of a row (the bytes past alpha whole sub-chunks of a cell of coding
   * length {@code codingLength}): {@code tails[u]} holds unit u's tail bytes from offset 0 (null
   * for units not read), {@code out[i]} receives those of {@code lost()[i]}. For a plan run
   * elsewhere that covers the sub-chunks alone.
   */
  public void runTail(RegionCoder coder, ByteBuffer[] tails, ByteBuffer[] out, int codingLength) {
    int bytes = new CellLayout(alpha, codingLength).tailBytes();
    if (bytes > 0) {
      tail.run(coder, tails, 0, out, 0, bytes);
    }
  }

  private static void add(List<int[]> out, int offset, int length) {
    if (!out.isEmpty()) {
      int[] last = out.get(out.size() - 1);
      if (last[0] + last[1] == offset) {
        last[1] += length;
        return;
      }
    }
    out.add(new int[] {offset, length});
  }

  private static TreeMap<Integer, int[][]> runsOf(Ecdag graph) {
    TreeMap<Integer, TreeSet<Integer>> byUnit = new TreeMap<>();
    for (Ecdag.Vertex leaf : graph.leaves()) {
      byUnit.computeIfAbsent(leaf.block(), b -> new TreeSet<>()).add(leaf.subchunk());
    }
    TreeMap<Integer, int[][]> runs = new TreeMap<>();
    byUnit.forEach((unit, subs) -> {
      List<int[]> r = new ArrayList<>();
      for (int j : subs) {
        if (!r.isEmpty() && r.get(r.size() - 1)[0] + r.get(r.size() - 1)[1] == j) {
          r.get(r.size() - 1)[1]++;
        } else {
          r.add(new int[] {j, 1});
        }
      }
      runs.put(unit, r.toArray(new int[0][]));
    });
    return runs;
  }
}
