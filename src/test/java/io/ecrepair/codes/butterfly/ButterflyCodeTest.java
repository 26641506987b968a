package io.ecrepair.codes.butterfly;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.CellLayout;
import io.ecrepair.codes.UndecodableException;
import io.ecrepair.codes.rs.ReedSolomonCode;
import io.ecrepair.ecdag.Ecdag;
import io.ecrepair.exec.CentralExecutor;
import io.ecrepair.gf.RegionCoder;
import io.ecrepair.gf.RegionCoders;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Butterfly codes against original bytes: the data written, and parities checked once
 * against the paper's definition written out independently below (byte arrays, no views).
 */
class ButterflyCodeTest {
  private static final RegionCoder BEST = RegionCoders.best();

  // ---------------------------------------------------------------- construction

  @Test
  void acceptsOnlyTwoToFourteenDataUnits() {
    for (int k : new int[] {-1, 0, 1, 15, 16}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new ButterflyCode(k, BEST));
      assertTrue(e.getMessage().contains("k=" + k), e.getMessage());
    }
    for (int k = 2; k <= 14; k++) {
      ButterflyCode code = new ButterflyCode(k, BEST);
      assertEquals(1 << (k - 1), code.alpha());
      assertEquals(code.alpha(), code.subPacketization());
      assertEquals(k + 2, code.totalUnits());
      assertEquals("Butterfly(" + (k + 2) + "," + k + ")", code.name());
    }
    ButterflyFamily family = new ButterflyFamily();
    assertThrows(IllegalArgumentException.class, () -> family.validate("butterfly", 10, 3));
    assertThrows(IllegalArgumentException.class, () -> family.validate("butterfly", 15, 2));
    family.validate("butterfly", 10, 2);
    // CodeSpec cannot name "butterfly" until the family is registered in Codecs; any (10, 2) spec serves.
    assertEquals(5.5, family.repairBlocksPerLostBlock(new io.ecrepair.codes.CodeSpec("rs", 10, 2)));
  }

  /** k = 2 by hand: D = [a b; c d], H = [a+b, c+d], B = [c+b, a+b+d]. */
  @Test
  void twoDataUnitsMatchTheHandWrittenCode() {
    ButterflyCode code = new ButterflyCode(2, BEST);
    byte a = 0x11, b = 0x22, c = 0x44, d = (byte) 0x88;
    ByteBuffer[] data = {ByteBuffer.wrap(new byte[] {a, c}), ByteBuffer.wrap(new byte[] {b, d})};
    ByteBuffer[] parity = {ByteBuffer.allocate(2), ByteBuffer.allocate(2)};
    code.encode(data, new int[2], parity, new int[2], 2);
    assertArrayEquals(new byte[] {(byte) (a ^ b), (byte) (c ^ d)}, parity[0].array());
    assertArrayEquals(new byte[] {(byte) (c ^ b), (byte) (a ^ b ^ d)}, parity[1].array());
  }

  /** Parities equal the paper's recursion (and RS on the tail) for every length class. */
  @Test
  void paritiesFollowTheRecursiveDefinition() {
    Random rnd = new Random(1);
    for (int k = 2; k <= 7; k++) {
      ButterflyCode code = new ButterflyCode(k, BEST);
      for (int len : lengths(code.alpha())) {
        Stripe st = Stripe.encode(code, len, rnd, k % 2 == 0, 3);
        CellLayout layout = new CellLayout(code.alpha(), len);
        int s = layout.subchunkBytes();
        byte[][][] m = new byte[code.alpha()][k][];
        for (int r = 0; r < code.alpha(); r++) {
          for (int c = 0; c < k; c++) {
            m[r][c] = Arrays.copyOfRange(st.original[c], r * s, (r + 1) * s);
          }
        }
        byte[][] b = referenceButterfly(m);
        for (int r = 0; r < code.alpha(); r++) {
          byte[] h = new byte[s];
          for (int c = 0; c < k; c++) {
            xorInto(h, m[r][c]);
          }
          assertArrayEquals(h, Arrays.copyOfRange(st.original[k], r * s, (r + 1) * s), "H row " + r);
          assertArrayEquals(b[r], Arrays.copyOfRange(st.original[k + 1], r * s, (r + 1) * s), "B row " + r);
        }
        int tail = layout.tailBytes();
        if (tail > 0) {
          ByteBuffer[] d = new ByteBuffer[k];
          for (int c = 0; c < k; c++) {
            d[c] = ByteBuffer.wrap(Arrays.copyOfRange(st.original[c], layout.tailOffset(), len));
          }
          ByteBuffer[] p = {ByteBuffer.allocate(tail), ByteBuffer.allocate(tail)};
          new ReedSolomonCode(k, 2, BEST).encode(d, new int[k], p, new int[2], tail);
          for (int j = 0; j < 2; j++) {
            assertArrayEquals(p[j].array(), Arrays.copyOfRange(st.original[k + j], layout.tailOffset(), len), "tail");
          }
        }
      }
    }
  }

  // ---------------------------------------------------------------- decode

  @ParameterizedTest
  @ValueSource(ints = {2, 3, 4, 5, 6})
  void everyOneAndTwoErasurePatternDecodes(int k) {
    ButterflyCode code = new ButterflyCode(k, BEST);
    Random rnd = new Random(10 + k);
    int n = k + 2;
    int patterns = 0;
    for (int len : lengths(code.alpha())) {
      Stripe st = Stripe.encode(code, len, rnd, len % 2 == 0, 5);
      for (int[] erased : erasurePatterns(n)) {
        st.decodeAndCheck(code, erased, erased);
        patterns++;
        if (erased.length == 2) {
          // Only one of the two missing units wanted, and a present unit wanted too (copied).
          st.decodeAndCheck(code, erased, new int[] {erased[1]});
          int present = IntStream.range(0, n).filter(u -> u != erased[0] && u != erased[1]).findFirst().orElseThrow();
          st.decodeAndCheck(code, erased, new int[] {present, erased[0]});
        }
      }
    }
    assertEquals(4 * (n + n * (n - 1) / 2), patterns);
  }

  @Test
  void threeMissingUnitsAreUndecodable() {
    ButterflyCode code = new ButterflyCode(4, BEST);
    Stripe st = Stripe.encode(code, 100, new Random(3), false, 0);
    ByteBuffer[] units = st.units.clone();
    units[0] = null;
    units[3] = null;
    units[5] = null;
    assertThrows(UndecodableException.class, () -> code.decode(units, st.off, new int[] {0},
        new ByteBuffer[] {ByteBuffer.allocate(100)}, new int[1], 100));
    assertThrows(UndecodableException.class, () -> code.repairGraph(new int[] {0}, new int[] {1, 2, 4}));
    assertThrows(UndecodableException.class, () -> code.tailRepairGraph(new int[] {0, 1}, new int[] {2, 3, 4}));
    assertThrows(IllegalArgumentException.class, () -> code.repairGraph(new int[] {0}, new int[] {0, 1, 2, 3, 4, 5}));
  }

  // ---------------------------------------------------------------- single-node repair

  @ParameterizedTest
  @ValueSource(ints = {2, 3, 4, 5, 6})
  void everySingleNodeRepairReadsItsSubchunksOnly(int k) {
    ButterflyCode code = new ButterflyCode(k, BEST);
    Random rnd = new Random(20 + k);
    int n = k + 2;
    int alpha = code.alpha();
    for (int lost = 0; lost < n; lost++) {
      // Which sub-chunks each helper sends, and that the data repair is MSR-optimal.
      int total = 0;
      for (int h = 0; h < n; h++) {
        if (h != lost) {
          int[] sub = code.repairSubchunks(lost, h);
          total += sub.length;
          if (lost <= k) {
            assertEquals(alpha / 2, sub.length, "unit " + lost + " helper " + h);
          }
        }
      }
      assertEquals(lost == k + 1 ? k * alpha : (n - 1) * alpha / 2, total);
      // Contiguous runs: unit 0 one, unit 0 < c < k-1 2^(c-1)+1, unit k-1 single sub-chunks,
      // H the bottom half.
      int[] expectedRuns = new int[n];
      expectedRuns[0] = 1;
      for (int c = 1; c < k - 1; c++) {
        expectedRuns[c] = (1 << (c - 1)) + 1;
      }
      expectedRuns[k - 1] = alpha / 2;
      expectedRuns[k] = 1;
      expectedRuns[k + 1] = 1;
      assertEquals(expectedRuns[lost], runs(code.repairSubchunks(lost)), "runs for unit " + lost);
    }
    assertArrayEquals(IntStream.range(0, alpha / 2).toArray(), code.repairSubchunks(0), "unit 0: the top half");
    assertArrayEquals(IntStream.range(alpha / 2, alpha).toArray(), code.repairSubchunks(k), "H: the bottom half");
    assertArrayEquals(IntStream.range(0, alpha / 2).map(i -> 2 * i + 1).toArray(), code.repairSubchunks(k - 1, k + 1),
        "innermost unit: B sends the odd sub-chunks");
    assertEquals(0, code.repairSubchunks(k + 1, k).length, "B's repair reads nothing from H");
    for (int len : lengths(alpha)) {
      Stripe st = Stripe.encode(code, len, rnd, len % 2 == 1, 7);
      for (int lost = 0; lost < n; lost++) {
        st.repairAndCheck(code, lost, rnd);
        st.repairGraphAndCheck(code, lost);
      }
    }
  }

  @Test
  void repairWithoutAllHelpersFallsBackToDecoding() {
    ButterflyCode code = new ButterflyCode(5, BEST);
    Random rnd = new Random(6);
    Stripe st = Stripe.encode(code, 9 * code.alpha() + 4, rnd, true, 4);
    for (int[] pair : new int[][] {{0, 3}, {2, 5}, {4, 6}, {6, 5}}) {
      ByteBuffer[] helpers = st.units.clone();
      helpers[pair[1]] = null;
      ByteBuffer out = ByteBuffer.allocate(st.len);
      code.repair(pair[0], helpers, st.off, out, 0, st.len);
      assertArrayEquals(st.original[pair[0]], out.array(), "repair of " + pair[0] + " without " + pair[1]);
    }
    assertThrows(IllegalArgumentException.class, () -> code.repairSubchunks(2, 2));
    assertThrows(IllegalArgumentException.class, () -> code.repairSubchunks(7));
    assertThrows(IllegalArgumentException.class, () -> code.decode(st.units, st.off, new int[] {1, 1},
        new ByteBuffer[] {ByteBuffer.allocate(st.len), ByteBuffer.allocate(st.len)}, new int[2], st.len));
  }

  @Test
  void graphsForMissingHelpersAndTwoLostUnitsRebuildTheOriginal() {
    Random rnd = new Random(4);
    for (int k = 2; k <= 6; k++) {
      ButterflyCode code = new ButterflyCode(k, BEST);
      int n = k + 2;
      Stripe st = Stripe.encode(code, 6 * code.alpha() + 1, rnd, true, 0);
      for (int[] erased : erasurePatterns(n)) {
        if (erased.length < 2) {
          continue;
        }
        int[] available = IntStream.range(0, n).filter(u -> u != erased[0] && u != erased[1]).toArray();
        st.graphAndCheck(code, erased, available);
        st.graphAndCheck(code, new int[] {erased[0]}, available);
        st.graphAndCheck(code, new int[] {erased[1]}, available);
      }
    }
  }

  // ---------------------------------------------------------------- larger codes, other coders

  @Test
  void randomPatternsForTenAndTwelveDataUnits() {
    Random rnd = new Random(2024);
    for (int k : new int[] {10, 12}) {
      ButterflyCode code = new ButterflyCode(k, BEST);
      int n = k + 2;
      int alpha = code.alpha();
      for (int trial = 0; trial < 2; trial++) {
        int len = alpha * (1 + rnd.nextInt(8)) + rnd.nextInt(alpha);
        Stripe st = Stripe.encode(code, len, rnd, trial == 0, rnd.nextInt(64));
        int a = rnd.nextInt(k);
        int b = a + 1 + rnd.nextInt(n - a - 1);
        st.decodeAndCheck(code, new int[] {a, b}, new int[] {a, b});
        st.decodeAndCheck(code, new int[] {rnd.nextInt(k), k}, new int[] {k});
        int c = rnd.nextInt(k);
        st.decodeAndCheck(code, new int[] {c, k}, new int[] {c, k});
        st.decodeAndCheck(code, new int[] {c}, new int[] {c});
        for (int lost : new int[] {0, rnd.nextInt(k), k - 1, k, k + 1}) {
          st.repairAndCheck(code, lost, rnd);
        }
        st.repairGraphAndCheck(code, rnd.nextInt(k));
        st.repairGraphAndCheck(code, k - 1);
        st.graphAndCheck(code, new int[] {a, b}, IntStream.range(0, n).filter(u -> u != a && u != b).toArray());
      }
    }
  }

  @Test
  void fourteenDataUnitsRepairOptimally() {
    ButterflyCode code = new ButterflyCode(14, BEST);
    Random rnd = new Random(14);
    Stripe st = Stripe.encode(code, code.alpha() + 5, rnd, true, 0);
    for (int lost : new int[] {0, 7, 13, 14}) {
      st.repairAndCheck(code, lost, rnd);
    }
    st.repairGraphAndCheck(code, 13);
    st.decodeAndCheck(code, new int[] {3, 11}, new int[] {3, 11});
  }

  @Test
  void javaCoderGivesTheSameBytes() {
    RegionCoder java = RegionCoders.java();
    ButterflyCode code = new ButterflyCode(4, java);
    Random rnd = new Random(5);
    for (int len : lengths(code.alpha())) {
      Stripe st = Stripe.encode(code, len, rnd, len % 2 == 0, 2);
      st.checkAgainst(new ButterflyCode(4, BEST));
      for (int[] erased : erasurePatterns(6)) {
        st.decodeAndCheck(code, erased, erased);
      }
      for (int lost = 0; lost < 6; lost++) {
        st.repairAndCheck(code, lost, rnd);
      }
    }
  }

  // ---------------------------------------------------------------- helpers

  /** L = 0, L < alpha, a multiple of alpha, and one with a tail (odd sub-chunk size). */
  private static int[] lengths(int alpha) {
    return new int[] {0, alpha - 1, 3 * alpha, 37 * alpha + alpha / 2 + 1};
  }

  private static int runs(int[] sorted) {
    int runs = 0;
    for (int i = 0; i < sorted.length; i++) {
      if (i == 0 || sorted[i] != sorted[i - 1] + 1) {
        runs++;
      }
    }
    return runs;
  }

  private static List<int[]> erasurePatterns(int n) {
    List<int[]> p = new ArrayList<>();
    for (int a = 0; a < n; a++) {
      p.add(new int[] {a});
      for (int b = a + 1; b < n; b++) {
        p.add(new int[] {a, b});
      }
    }
    return p;
  }

  /** The paper's recursion on byte arrays: m[row][column], one sub-chunk each. */
  private static byte[][] referenceButterfly(byte[][][] m) {
    if (m.length == 1) {
      return new byte[][] {m[0][0].clone()};
    }
    int h = m.length / 2;
    byte[][][] aTop = new byte[h][][];
    byte[][][] bFlipped = new byte[h][][];
    for (int i = 0; i < h; i++) {
      aTop[i] = Arrays.copyOfRange(m[i], 1, m[i].length);
      bFlipped[i] = Arrays.copyOfRange(m[2 * h - 1 - i], 1, m[i].length);
    }
    byte[][] innerA = referenceButterfly(aTop);
    byte[][] innerB = referenceButterfly(bFlipped);
    byte[][] out = new byte[2 * h][];
    for (int i = 0; i < h; i++) {
      out[i] = m[2 * h - 1 - i][0].clone(); // (P b)[i]
      xorInto(out[i], innerA[i]);
      byte[] x = innerB[i].clone(); // H(a A)[i] + B(P B)[i], then flipped into row 2h-1-i
      for (byte[] cell : m[i]) {
        xorInto(x, cell);
      }
      out[2 * h - 1 - i] = x;
    }
    return out;
  }

  private static void xorInto(byte[] dst, byte[] src) {
    for (int i = 0; i < dst.length; i++) {
      dst[i] ^= src[i];
    }
  }

  /** One encoded stripe: unit u is bytes [off[u], off[u]+len) of units[u]; original[u] its bytes. */
  private static final class Stripe {
    final ByteBuffer[] units;
    final int[] off;
    final byte[][] original;
    final int len;

    private Stripe(ByteBuffer[] units, int[] off, byte[][] original, int len) {
      this.units = units;
      this.off = off;
      this.original = original;
      this.len = len;
    }

    static Stripe encode(ButterflyCode code, int len, Random rnd, boolean direct, int maxOffset) {
      int k = code.dataUnits();
      int n = k + 2;
      ByteBuffer[] units = new ByteBuffer[n];
      int[] off = new int[n];
      for (int u = 0; u < n; u++) {
        off[u] = maxOffset == 0 ? 0 : rnd.nextInt(maxOffset + 1);
        units[u] = allocate(direct, off[u] + len + 3);
        byte[] junk = new byte[units[u].capacity()];
        rnd.nextBytes(junk);
        units[u].put(0, junk);
      }
      code.encode(Arrays.copyOf(units, k), off, Arrays.copyOfRange(units, k, n), Arrays.copyOfRange(off, k, n), len);
      byte[][] original = new byte[n][len];
      for (int u = 0; u < n; u++) {
        units[u].get(off[u], original[u]);
      }
      return new Stripe(units, off, original, len);
    }

    /** The parities another code instance computes for the same data are these. */
    void checkAgainst(ButterflyCode other) {
      int k = other.dataUnits();
      ByteBuffer[] p = {ByteBuffer.allocate(len), ByteBuffer.allocate(len)};
      other.encode(Arrays.copyOf(units, k), off, p, new int[2], len);
      assertArrayEquals(original[k], p[0].array());
      assertArrayEquals(original[k + 1], p[1].array());
    }

    void decodeAndCheck(ButterflyCode code, int[] erased, int[] wanted) {
      ByteBuffer[] in = units.clone();
      for (int e : erased) {
        in[e] = null;
      }
      ByteBuffer[] out = new ByteBuffer[wanted.length];
      int[] outOff = new int[wanted.length];
      for (int i = 0; i < out.length; i++) {
        outOff[i] = i + 1;
        out[i] = allocate(i % 2 == 0, len + outOff[i] + 2);
      }
      code.decode(in, off, wanted, out, outOff, len);
      for (int i = 0; i < out.length; i++) {
        assertArrayEquals(original[wanted[i]], bytes(out[i], outOff[i], len),
            code.name() + " L=" + len + " erased " + Arrays.toString(erased) + " unit " + wanted[i]);
      }
    }

    /**
     * Direct repair with every sub-chunk the helpers should not send overwritten by junk: the
     * result can only be right if exactly the advertised sub-chunks (and the tail) are read.
     */
    void repairAndCheck(ButterflyCode code, int lost, Random rnd) {
      CellLayout layout = new CellLayout(code.alpha(), len);
      int s = layout.subchunkBytes();
      ByteBuffer[] helpers = new ByteBuffer[units.length];
      for (int u = 0; u < units.length; u++) {
        if (u == lost) {
          continue;
        }
        helpers[u] = allocate(units[u].isDirect(), units[u].capacity());
        helpers[u].put(0, units[u], 0, units[u].capacity());
        boolean[] sends = new boolean[code.alpha()];
        for (int j : code.repairSubchunks(lost, u)) {
          sends[j] = true;
        }
        byte[] junk = new byte[s];
        for (int j = 0; j < code.alpha(); j++) {
          if (!sends[j]) {
            rnd.nextBytes(junk);
            helpers[u].put(off[u] + j * s, junk);
          }
        }
      }
      ByteBuffer out = allocate(rnd.nextBoolean(), len + 9);
      code.repair(lost, helpers, off, out, 9, len);
      assertArrayEquals(original[lost], bytes(out, 9, len), code.name() + " L=" + len + " repair of " + lost);
    }

    /** The single-node graph: its leaves are the advertised sub-chunks; it rebuilds the unit. */
    void repairGraphAndCheck(ButterflyCode code, int lost) {
      int n = units.length;
      int k = n - 2;
      int alpha = code.alpha();
      int[] available = IntStream.range(0, n).filter(u -> u != lost).toArray();
      Ecdag g = code.repairGraph(new int[] {lost}, available);
      Map<Integer, TreeSet<Integer>> leaves = new HashMap<>();
      for (Ecdag.Vertex v : g.leaves()) {
        leaves.computeIfAbsent(v.block(), b -> new TreeSet<>()).add(v.subchunk());
      }
      assertFalse(leaves.containsKey(lost));
      int expected = lost == k + 1 ? k * alpha : (n - 1) * alpha / 2;
      assertEquals(expected, g.leaves().size(), "leaves for unit " + lost);
      for (int h : available) {
        int[] sub = code.repairSubchunks(lost, h);
        int[] got = leaves.getOrDefault(h, new TreeSet<>()).stream().mapToInt(Integer::intValue).toArray();
        assertArrayEquals(sub, got, "unit " + lost + " helper " + h);
      }
      run(code, g, new int[] {lost}, available);
    }

    void graphAndCheck(ButterflyCode code, int[] lost, int[] available) {
      Ecdag g = code.repairGraph(lost, available);
      for (Ecdag.Vertex v : g.leaves()) {
        assertTrue(Arrays.binarySearch(available, v.block()) >= 0, "reads unavailable unit " + v.block());
      }
      run(code, g, lost, available);
    }

    /** Runs the vector graph and the tail graph with the central executor; compares with the original. */
    private void run(ButterflyCode code, Ecdag g, int[] lost, int[] available) {
      CellLayout layout = new CellLayout(code.alpha(), len);
      int s = layout.subchunkBytes();
      CentralExecutor exec = new CentralExecutor(BEST);
      String what = code.name() + " L=" + len + " lost " + Arrays.toString(lost);
      if (s > 0) {
        Map<CentralExecutor.Key, ByteBuffer> out = exec.run(g,
            (block, sub) -> new CentralExecutor.Region(units[block], off[block] + sub * s), s);
        assertEquals(lost.length * code.alpha(), out.size());
        for (int l : lost) {
          for (int j = 0; j < code.alpha(); j++) {
            assertArrayEquals(Arrays.copyOfRange(original[l], j * s, (j + 1) * s),
                bytes(out.get(new CentralExecutor.Key(l, j)), 0, s), what + " sub-chunk " + j);
          }
        }
      }
      int tail = layout.tailBytes();
      if (tail > 0) {
        Ecdag tg = code.tailRepairGraph(lost, available);
        assertEquals(1, tg.subchunkCount());
        Map<CentralExecutor.Key, ByteBuffer> out = exec.run(tg,
            (block, sub) -> new CentralExecutor.Region(units[block], off[block] + layout.tailOffset()), tail);
        for (int l : lost) {
          assertArrayEquals(Arrays.copyOfRange(original[l], layout.tailOffset(), len),
              bytes(out.get(new CentralExecutor.Key(l, 0)), 0, tail), what + " tail");
        }
      }
    }
  }

  private static ByteBuffer allocate(boolean direct, int size) {
    return direct ? ByteBuffer.allocateDirect(size) : ByteBuffer.allocate(size);
  }

  private static byte[] bytes(ByteBuffer b, int off, int len) {
    byte[] r = new byte[len];
    b.get(off, r);
    return r;
  }
}
