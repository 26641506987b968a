package io.ecrepair.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.CellLayout;
import io.ecrepair.codes.CodeSpec;
import io.ecrepair.codes.RepairableCode;
import io.ecrepair.ecdag.Ecdag;
import io.ecrepair.gf.Buffers;
import io.ecrepair.gf.RegionCoders;
import io.ecrepair.plan.CodeRepairs;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * A repair restricted to a window of sub-chunks ({@link Ecdag#restrictedTo},
 * {@link CellRowRepair#window}), as a degraded read of part of a lost cell runs it: on random
 * data, for every lost unit and every window of one and two sub-chunks (and a few wider), it
 * rebuilds exactly the window's bytes from only the ranges it names (everything else handed
 * to it is garbage), writes nothing else of the output but right bytes, and reads less than the
 * whole repair.
 * The same window as a chain over the helpers ({@link CodeRepairs#windowChain}; for RS and LRC
 * {@link CodeRepairs#scalarChain} over the window's sub-chunks as rows), run on simulated nodes,
 * gives the same bytes with no node receiving more than the window.
 */
class SubchunkWindowTest {
  private static final byte GARBAGE = 0x5a;

  @Test
  void everyWindowRebuildsItsBytesFromTheRangesItNamesOnly() {
    // CLAY(6,3): alpha 27, 10,000-byte cells leave a 1-byte tail; Butterfly(4,2): alpha 8; CLAY(4,2): alpha 8.
    for (CodeSpec spec : new CodeSpec[] {new CodeSpec("clay", 6, 3), new CodeSpec("butterfly", 4, 2),
        new CodeSpec("clay", 4, 2)}) {
      RepairableCode code = spec.create(RegionCoders.best());
      int length = 10_000;
      ByteBuffer[] units = encoded(code, length, new Random(spec.hashCode()));
      int alpha = code.subPacketization();
      CellLayout cell = new CellLayout(alpha, length);
      int s = cell.subchunkBytes();
      for (int lost = 0; lost < spec.n(); lost++) {
        int[] available = others(spec.n(), lost);
        CellRowRepair whole = CellRowRepair.plan(code, new int[] {lost}, available);
        for (int count : new int[] {1, 2, alpha / 2}) {
          for (int first = 0; first + count <= alpha; first++) {
            for (boolean tail : new boolean[] {false, true}) {
              CellRowRepair w = whole.window(first, count, tail);
              String what = spec + " lost " + lost + " sub-chunks " + first + "+" + count + (tail ? " and tail" : "");
              ByteBuffer out = garbage(length);
              w.run(RegionCoders.best(), namedRangesOnly(w, units, length), new ByteBuffer[] {out}, length);
              for (int i = 0; i < length; i++) {
                boolean inWindow = (i >= first * s && i < (first + count) * s) || (tail && i >= cell.tailOffset());
                // Outside the window: untouched, or rebuilt on the way (Butterfly reads rebuilt sub-chunks).
                boolean right = out.get(i) == units[lost].get(i) || (!inWindow && out.get(i) == GARBAGE);
                if (!right) {
                  throw new AssertionError(what + ": byte " + i + " is " + out.get(i) + ", expected "
                      + units[lost].get(i) + (inWindow ? "" : " or untouched"));
                }
              }
              if (count <= 2 && spec.codec().equals("clay")) {
                assertTrue(w.bytesPerRow(length) < whole.bytesPerRow(length),
                    what + " reads " + w.bytesPerRow(length) + " bytes, the whole cell's repair " + whole.bytesPerRow(length));
              }
            }
          }
        }
      }
    }
  }

  @Test
  void aWindowOfFourClaySubchunksReadsAFractionOfTheCellsRepair() {
    RepairableCode code = new CodeSpec("clay", 10, 4).create(RegionCoders.best());
    int length = 4 << 20;
    for (int lost = 0; lost < 10; lost++) {
      CellRowRepair whole = CellRowRepair.plan(code, new int[] {lost}, others(14, lost));
      for (int first = 0; first + 4 <= 256; first += 36) {
        long read = whole.window(first, 4, false).bytesPerRow(length);
        // 22 to 68 sub-chunks of 16 KiB, against 832 for the whole cell.
        assertTrue(read <= 68L * 16384, "lost " + lost + " window " + first + ": " + read + " bytes");
        assertTrue(read >= 4L * 16384);
      }
    }
  }

  @Test
  void aChainOverAWindowGivesItsBytesWithNoNodeReceivingMore() {
    for (CodeSpec spec : new CodeSpec[] {new CodeSpec("clay", 10, 4), new CodeSpec("butterfly", 6, 2),
        new CodeSpec("butterfly", 4, 2), new CodeSpec("clay", 6, 3), new CodeSpec("rs", 6, 3),
        new CodeSpec("lrc-l2", 6, 4)}) {
      RepairableCode code = CodeRepairs.code(spec);
      // A scalar code's cell is cut into sub-chunks for a window: here 16.
      int alpha = code.subPacketization() > 1 ? code.subPacketization() : 16;
      int s = 24;
      int rows = 2;
      ByteBuffer[] blocks = new ByteBuffer[spec.n() + 1];
      ByteBuffer[] rowsOf = new ByteBuffer[spec.n()];
      Random rnd = new Random(7);
      for (int u = 0; u < spec.n(); u++) {
        rowsOf[u] = ByteBuffer.allocate(rows * alpha * s);
      }
      for (int r = 0; r < rows; r++) {
        ByteBuffer[] cells = encoded(code, alpha * s, rnd);
        for (int u = 0; u < spec.n(); u++) {
          rowsOf[u].put(r * alpha * s, cells[u], 0, alpha * s);
        }
      }
      for (int lost = 0; lost < spec.k(); lost += alpha <= 8 ? 1 : 3) {
        // Every window of one sub-chunk of a small code (Butterfly's windows read rebuilt sub-chunks), else three of four.
        int count = alpha <= 8 ? 1 : 4;
        int[] firsts = alpha <= 8 ? IntStream.range(0, alpha).toArray() : new int[] {0, alpha / 3, alpha - 4};
        for (int first : firsts) {
          CellRowRepair repair = CodeRepairs.plan(spec, new int[] {lost}, others(spec.n(), lost));
          boolean scalar = alpha == 16;
          // A scalar code's chain runs over the window's sub-chunks as rows of their own.
          CodeRepairs.WindowChain chain = scalar ? CodeRepairs.scalarChain(repair)
              : CodeRepairs.windowChain(repair, first, count);
          for (int u = 0; u < spec.n(); u++) {
            blocks[u] = u == lost ? null : scalar ? windowOf(rowsOf[u], rows, alpha * s, first * s, count * s) : rowsOf[u];
          }
          SimulatedCluster.Result r = new SimulatedCluster(RegionCoders.best()).run(chain.plan().graph(),
              chain.plan().colors(), spec.n(), blocks, s, 8);
          String what = spec + " lost " + lost + " window " + first + "+" + count;
          ByteBuffer got = r.repaired(lost);
          for (int row = 0; row < rows; row++) {
            int at = row * alpha * s + first * s;
            int gotAt = scalar ? row * count * s : at;
            assertEquals(0, got.slice(gotAt, count * s).compareTo(rowsOf[lost].slice(at, count * s)),
                what + " row " + row);
          }
          for (int node = 0; node < spec.n(); node++) {
            assertTrue(r.bytesIn()[node] <= (long) count * s * rows,
                what + ": node " + node + " received " + r.bytesIn()[node] + " bytes");
          }
          assertTrue(chain.plan().point().maxLoad() <= (scalar ? 1 : count), what + ": " + chain.plan().point());
        }
      }
    }
  }

  /** Bytes [from, from + len) of each of {@code rows} rows of {@code rowBytes}, one after another. */
  private static ByteBuffer windowOf(ByteBuffer rowsOf, int rows, int rowBytes, int from, int len) {
    ByteBuffer w = ByteBuffer.allocate(rows * len);
    for (int row = 0; row < rows; row++) {
      w.put(row * len, rowsOf, row * rowBytes + from, len);
    }
    return w;
  }

  @Test
  void aWindowOutsideTheCellIsRefused() {
    RepairableCode code = new CodeSpec("clay", 4, 2).create(RegionCoders.best());
    CellRowRepair whole = CellRowRepair.plan(code, new int[] {0}, new int[] {1, 2, 3, 4, 5});
    assertThrows(IllegalArgumentException.class, () -> whole.window(7, 2, false));
    assertThrows(IllegalArgumentException.class, () -> whole.window(-1, 1, false));
    assertThrows(IllegalArgumentException.class, () -> whole.window(0, 0, false));
    assertThrows(IllegalArgumentException.class, () -> whole.graph().restrictedTo(8, 1));
  }

  private static ByteBuffer[] encoded(RepairableCode code, int length, Random rnd) {
    int k = code.dataUnits();
    int n = code.totalUnits();
    ByteBuffer[] units = new ByteBuffer[n];
    for (int u = 0; u < n; u++) {
      units[u] = Buffers.alignedDirect(length);
      if (u < k) {
        byte[] b = new byte[length];
        rnd.nextBytes(b);
        units[u].put(0, b);
      }
    }
    code.encode(java.util.Arrays.copyOf(units, k), new int[k], java.util.Arrays.copyOfRange(units, k, n),
        new int[n - k], length);
    return units;
  }

  /** Each helper's cell with only the ranges the repair names filled in, garbage elsewhere. */
  private static ByteBuffer[] namedRangesOnly(CellRowRepair r, ByteBuffer[] units, int length) {
    ByteBuffer[] cells = new ByteBuffer[units.length];
    for (int h : r.helpers()) {
      cells[h] = garbage(length);
      for (int[] range : r.ranges(h, length)) {
        cells[h].put(range[0], units[h], range[0], range[1]);
      }
    }
    return cells;
  }

  private static ByteBuffer garbage(int length) {
    ByteBuffer b = Buffers.alignedDirect(length);
    for (int i = 0; i < length; i++) {
      b.put(i, GARBAGE);
    }
    return b;
  }

  private static int[] others(int n, int lost) {
    return IntStream.range(0, n).filter(u -> u != lost).toArray();
  }
}
