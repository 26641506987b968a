package io.ecrepair.codes.clay;

import static io.ecrepair.codes.clay.ClayCodeTest.bytes;
import static io.ecrepair.codes.clay.ClayCodeTest.complement;
import static io.ecrepair.codes.clay.ClayCodeTest.encodeRandom;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.CellLayout;
import io.ecrepair.ecdag.Ecdag;
import io.ecrepair.exec.CentralExecutor;
import io.ecrepair.gf.RegionCoder;
import io.ecrepair.gf.RegionCoders;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Repair of several lost units (paper, Appendix A) against the original bytes. The expected
 * patterns, helpers, repair layers and costs are worked out here from the paper's rules with
 * plain arithmetic on the documented placement (unit u at grid position nu + u, node
 * (x, y) = (p mod q, p div q), digit y of layer z of weight q^y), independent of the code.
 *
 * <p>Counting rule for virtual nodes (shortening), as the code documents it: virtual nodes
 * are known zeros, never read and never counted; they help for free. d_e counts real
 * helpers only (d, or n - f when d = n-1), e_y counts lost real units, and a lost unit's
 * section needs only its real units available.
 */
class ClayMultiRepairTest {
  private static RegionCoder best;

  @BeforeAll
  static void coder() {
    RegionCoders.requireNativeIfConfigured();
    best = RegionCoders.best();
  }

  /**
   * Small codes where several failures can be repaired: d = n-1 with q = 2 (only single
   * failures qualify), q = 3 with t = 2 and t = 3, shortened (nu = 2), and d &lt; n-1 with
   * q = 3 (nu = 1; nu = 0 with n - d = 3, so aloof units) and q = 2.
   */
  static Stream<Arguments> codes() {
    return Stream.of(
        Arguments.of(4, 2, 3),
        Arguments.of(6, 3, 5),
        Arguments.of(9, 6, 8),
        Arguments.of(7, 4, 6),
        Arguments.of(8, 4, 6),
        Arguments.of(9, 4, 6),
        Arguments.of(6, 3, 4));
  }

  // ---------------------------------------------------------------- the paper's rules, independently

  /** What Appendix A says about a lost set, all units but the lost ones available. */
  record Expected(int[] helpers, int[] repairLayers, int betaE, long paperCost) {}

  static int pow(int b, int e) {
    int r = 1;
    for (int i = 0; i < e; i++) {
      r *= b;
    }
    return r;
  }

  /** Null when the lost set is no repairable failure pattern (given the available units). */
  static Expected expected(int n, int k, int d, int[] lost, int[] available) {
    int q = d - k + 1;
    int t = (n + q - 1) / q;
    int nu = q * t - n;
    int alpha = pow(q, t);
    int[] e = new int[t];
    boolean[] isLost = new boolean[n];
    for (int l : lost) {
      e[(nu + l) / q]++;
      isLost[l] = true;
    }
    boolean[] avail = new boolean[n];
    for (int a : available) {
      avail[a] = true;
    }
    int prod = 1;
    for (int y = 0; y < t; y++) {
      prod *= q - e[y];
    }
    int betaE = alpha - prod;
    List<Integer> layers = new ArrayList<>();
    for (int z = 0; z < alpha; z++) {
      boolean hole = false;
      for (int l : lost) {
        int p = nu + l;
        hole |= (z / pow(q, p / q)) % q == p % q;
      }
      if (hole) {
        layers.add(z);
      }
    }
    int sections = (int) Arrays.stream(e).filter(x -> x > 0).count();
    TreeSet<Integer> helpers = new TreeSet<>();
    for (int u = 0; u < n; u++) {
      if (!isLost[u] && e[(nu + u) / q] > 0) {
        if (!avail[u]) {
          return null;
        }
        helpers.add(u);
      }
    }
    if (d == n - 1) {
      if (sections != 1 || lost.length > q - 1) {
        return null;
      }
      for (int u = 0; u < n; u++) {
        if (!isLost[u]) {
          if (!avail[u]) {
            return null;
          }
          helpers.add(u);
        }
      }
    } else {
      if (lost.length > n - d || helpers.size() > d) {
        return null;
      }
      for (int u = 0; u < n && helpers.size() < d; u++) {
        if (avail[u] && !isLost[u]) {
          helpers.add(u);
        }
      }
      if (helpers.size() < d) {
        return null;
      }
    }
    int[] h = helpers.stream().mapToInt(Integer::intValue).toArray();
    return new Expected(h, layers.stream().mapToInt(Integer::intValue).toArray(), betaE, (long) h.length * betaE);
  }

  static List<int[]> lostSets(int n, int min, int max) {
    List<int[]> out = new ArrayList<>();
    for (int mask = 1; mask < 1 << n; mask++) {
      int c = Integer.bitCount(mask);
      if (c >= min && c <= max) {
        final int mm = mask;
        out.add(IntStream.range(0, n).filter(i -> (mm & 1 << i) != 0).toArray());
      }
    }
    return out;
  }

  // ---------------------------------------------------------------- checks

  /**
   * Runs the repair graph with a source that only serves the repair layers of the helpers,
   * checks its reads and compares every rebuilt sub-chunk and the tail with the originals.
   */
  static void checkRepairGraph(ClayCode code, ByteBuffer[] units, int len, int[] lost, int[] available,
                               Expected ex) {
    String what = code.name() + " lost " + Arrays.toString(lost) + " len " + len;
    int alpha = code.alpha();
    Ecdag g = code.repairGraph(lost, available);
    Map<Integer, TreeSet<Integer>> leaves = new TreeMap<>();
    for (Ecdag.Vertex v : g.leaves()) {
      leaves.computeIfAbsent(v.block(), b -> new TreeSet<>()).add(v.subchunk());
    }
    long reads = g.leaves().size();
    assertEquals(code.repairSubchunkCount(lost, available), reads, what + ": reads as announced");
    assertTrue(reads < (long) code.dataUnits() * alpha, what + ": less than a decode");
    assertTrue(reads <= ex.paperCost(), what + ": at most d_e * beta_e");
    TreeSet<Integer> helperSet = new TreeSet<>(Arrays.stream(ex.helpers()).boxed().toList());
    TreeSet<Integer> layerSet = new TreeSet<>(Arrays.stream(ex.repairLayers()).boxed().toList());
    for (Map.Entry<Integer, TreeSet<Integer>> h : leaves.entrySet()) {
      assertTrue(helperSet.contains(h.getKey()), what + ": reads unit " + h.getKey() + ", no helper");
      assertTrue(layerSet.containsAll(h.getValue()), what + ": helper " + h.getKey() + " sends a layer outside R");
      assertTrue(h.getValue().size() <= ex.betaE(), what + ": helper " + h.getKey() + " sends at most beta_e");
    }
    if (code.d() == code.totalUnits() - 1) {
      // d = n-1: every layer knows exactly k' positions, so the paper's count is exact.
      assertEquals(ex.paperCost(), reads, what + ": d_e * beta_e");
      assertEquals(helperSet, leaves.keySet(), what + ": every helper sends");
      for (TreeSet<Integer> sub : leaves.values()) {
        assertEquals(layerSet, sub, what + ": each helper sends exactly the beta_e repair layers");
      }
    }
    assertEquals(lost.length * alpha, g.repaired().size(), what + ": every sub-chunk of every lost unit");
    CellLayout layout = new CellLayout(alpha, len);
    int s = layout.subchunkBytes();
    CentralExecutor exec = new CentralExecutor(best);
    if (s > 0) {
      Map<CentralExecutor.Key, ByteBuffer> got = exec.run(g, (b, j) -> {
        assertTrue(helperSet.contains(b) && layerSet.contains(j), what + ": reads " + b + "/" + j);
        return new CentralExecutor.Region(units[b], j * s);
      }, s);
      for (int l : lost) {
        for (int j = 0; j < alpha; j++) {
          ByteBuffer r = got.get(new CentralExecutor.Key(l, j));
          assertNotNull(r, what + ": unit " + l + " sub-chunk " + j);
          assertArrayEquals(bytes(units[l], j * s, s), bytes(r, 0, s), what + ": unit " + l + " sub-chunk " + j);
        }
      }
    }
    Ecdag tg = code.tailRepairGraph(lost, available);
    assertEquals(code.dataUnits(), tg.leaves().size(), what + ": the tail reads k units");
    tg.leaves().forEach(v -> assertTrue(helperSet.contains(v.block()), what + ": tail from helpers"));
    if (layout.tailBytes() > 0) {
      Map<CentralExecutor.Key, ByteBuffer> tgot = exec.run(tg,
          (b, j) -> new CentralExecutor.Region(units[b], layout.tailOffset()), layout.tailBytes());
      for (int l : lost) {
        assertArrayEquals(bytes(units[l], layout.tailOffset(), layout.tailBytes()),
            bytes(tgot.get(new CentralExecutor.Key(l, 0)), 0, layout.tailBytes()), what + ": tail of " + l);
      }
    }
  }

  /**
   * The direct path: decode with {@code lost} missing (and {@code alsoMissing} too, not
   * wanted) from copies in which everything but the repair layers of the helpers and the
   * tails of the first k helpers is garbage; a decode reading k whole units gives wrong bytes.
   */
  static void checkDirectRepair(ClayCode code, ByteBuffer[] units, int len, int[] lost, int[] alsoMissing,
                                Expected ex, Random rnd) {
    int n = code.totalUnits();
    CellLayout layout = new CellLayout(code.alpha(), len);
    int s = layout.subchunkBytes();
    ByteBuffer[] masked = new ByteBuffer[n];
    int[] off = new int[n];
    List<Integer> helpers = Arrays.stream(ex.helpers()).boxed().toList();
    for (int u = 0; u < n; u++) {
      final int uu = u;
      if (Arrays.stream(lost).anyMatch(l -> l == uu) || Arrays.stream(alsoMissing).anyMatch(l -> l == uu)) {
        continue;
      }
      off[u] = 5;
      byte[] junk = new byte[len + 5];
      rnd.nextBytes(junk);
      masked[u] = ByteBuffer.allocate(len + 5).put(0, junk);
      int hi = helpers.indexOf(u);
      if (hi < 0) {
        continue; // aloof
      }
      for (int z : ex.repairLayers()) {
        masked[u].put(5 + z * s, units[u], z * s, s);
      }
      if (hi < code.dataUnits()) {
        masked[u].put(5 + layout.tailOffset(), units[u], layout.tailOffset(), layout.tailBytes());
      }
    }
    ByteBuffer[] out = new ByteBuffer[lost.length];
    int[] outOff = new int[lost.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = i % 2 == 0 ? ByteBuffer.allocateDirect(len + 3) : ByteBuffer.allocate(len + 3);
      outOff[i] = 3;
    }
    // wanted in reverse order: outputs follow the caller's order
    int[] wanted = lost.clone();
    for (int i = 0; i < wanted.length / 2; i++) {
      int tmp = wanted[i];
      wanted[i] = wanted[wanted.length - 1 - i];
      wanted[wanted.length - 1 - i] = tmp;
    }
    code.decode(masked, off, wanted, out, outOff, len);
    for (int i = 0; i < wanted.length; i++) {
      assertArrayEquals(bytes(units[wanted[i]], 0, len), bytes(out[i], 3, len),
          code.name() + " direct repair of " + Arrays.toString(lost) + " unit " + wanted[i] + " len " + len);
    }
  }

  /** The decode graph: k whole units read, every lost sub-chunk right. */
  static void checkDecodeGraph(ClayCode code, ByteBuffer[] units, int len, int[] lost, int[] available) {
    String what = code.name() + " decode of " + Arrays.toString(lost);
    int alpha = code.alpha();
    Ecdag g = code.repairGraph(lost, available);
    assertEquals((long) code.dataUnits() * alpha, g.leaves().size(), what + ": k whole units");
    assertEquals((long) code.dataUnits() * alpha, code.repairSubchunkCount(lost, available), what);
    g.leaves().forEach(v -> assertTrue(Arrays.stream(lost).noneMatch(l -> l == v.block()), what));
    int s = new CellLayout(alpha, len).subchunkBytes();
    if (s == 0) {
      return;
    }
    Map<CentralExecutor.Key, ByteBuffer> got = new CentralExecutor(best).run(g,
        (b, j) -> new CentralExecutor.Region(units[b], j * s), s);
    for (int l : lost) {
      for (int j = 0; j < alpha; j++) {
        assertArrayEquals(bytes(units[l], j * s, s), bytes(got.get(new CentralExecutor.Key(l, j)), 0, s),
            what + ": unit " + l + " sub-chunk " + j);
      }
    }
  }

  static void checkDirectDecode(ClayCode code, ByteBuffer[] units, int len, int[] lost) {
    ByteBuffer[] view = units.clone();
    for (int l : lost) {
      view[l] = null;
    }
    ByteBuffer[] out = new ByteBuffer[lost.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = ByteBuffer.allocate(len);
    }
    code.decode(view, new int[units.length], lost, out, new int[lost.length], len);
    for (int i = 0; i < lost.length; i++) {
      assertArrayEquals(bytes(units[lost[i]], 0, len), bytes(out[i], 0, len),
          code.name() + " decode of " + Arrays.toString(lost) + " unit " + lost[i]);
    }
  }

  // ---------------------------------------------------------------- exhaustive, small codes

  @ParameterizedTest
  @MethodSource("codes")
  void everyLostSetIsRepairedOrDecoded(int n, int k, int d) {
    ClayCode code = new ClayCode(n, k, d, best);
    int alpha = code.alpha();
    long decodeCost = (long) k * alpha;
    Random rnd = new Random(31L * n + 7L * k + d);
    int repaired = 0;
    boolean firstLength = true;
    for (int len : new int[] {alpha * 3, alpha * 2 + alpha / 2 + 1, alpha - 1}) {
      ByteBuffer[] units = encodeRandom(code, len, rnd, len % 2 == 0);
      for (int[] lost : lostSets(n, 2, n - k)) {
        int[] available = complement(n, lost);
        Expected ex = expected(n, k, d, lost, available);
        String what = code.name() + " lost " + Arrays.toString(lost);
        int[] layers = code.repairSubchunks(lost);
        assertEquals(alpha - expectedProduct(n, k, d, lost), layers.length, what + ": beta_e");
        if (ex == null) {
          assertNull(code.repairHelpers(lost, available), what + ": not a repairable pattern");
          assertFalse(code.repairableWithSavings(lost, available), what);
        } else {
          assertArrayEquals(ex.repairLayers(), layers, what + ": repair layers = layers with a hole-dot");
          assertEquals(ex.betaE(), layers.length, what);
          assertArrayEquals(ex.helpers(), code.repairHelpers(lost, available), what + ": helpers");
          assertEquals(d == n - 1 ? n - lost.length : d, ex.helpers().length, what + ": d_e");
          if (ex.paperCost() < decodeCost) {
            assertTrue(code.repairableWithSavings(lost, available), what + ": Remark 1 says repair");
          }
          if (d == n - 1) {
            assertEquals(ex.paperCost() < decodeCost, code.repairableWithSavings(lost, available), what);
          }
        }
        if (code.repairableWithSavings(lost, available)) {
          repaired++;
          checkRepairGraph(code, units, len, lost, available, ex);
          checkDirectRepair(code, units, len, lost, new int[0], ex, rnd);
        } else if (firstLength) { // decoding itself is ClayCodeTest's; once per pattern here
          checkDecodeGraph(code, units, len, lost, available);
          checkDirectDecode(code, units, len, lost);
        }
      }
      firstLength = false;
    }
    if (code.q() >= 3 || d < n - 1) {
      assertTrue(repaired > 0, code.name() + ": some multi-failure patterns repair with savings");
    }
  }

  /** prod_y (q - e_y), straight from the coordinates. */
  static int expectedProduct(int n, int k, int d, int[] lost) {
    int q = d - k + 1;
    int t = (n + q - 1) / q;
    int nu = q * t - n;
    int[] e = new int[t];
    for (int l : lost) {
      e[(nu + l) / q]++;
    }
    int prod = 1;
    for (int y = 0; y < t; y++) {
      prod *= q - e[y];
    }
    return prod;
  }

  /** d &lt; n-1: units missing besides the lost ones are aloof; a missing y-section mate forces a decode. */
  @ParameterizedTest
  @MethodSource("codes")
  void unavailableUnitsBecomeAloofOrForceADecode(int n, int k, int d) {
    ClayCode code = new ClayCode(n, k, d, best);
    Random rnd = new Random(n * 1000L + d);
    int len = code.alpha() * 4 + 3;
    ByteBuffer[] units = encodeRandom(code, len, rnd, false);
    int checked = 0;
    for (int[] lost : lostSets(n, 2, n - k - 1)) {
      if (d < n - 1 && lost.length > n - d - 1) {
        // d helpers and the extra missing unit leave no room: not repairable
        assertNull(code.repairHelpers(lost, complement(n, IntStream.concat(Arrays.stream(lost),
            IntStream.of(complement(n, lost)[0])).sorted().toArray())));
        continue;
      }
      for (int extra = 0; extra < n; extra++) {
        final int x = extra;
        if (Arrays.stream(lost).anyMatch(l -> l == x)) {
          continue;
        }
        int[] missing = IntStream.concat(Arrays.stream(lost), IntStream.of(extra)).sorted().toArray();
        int[] available = complement(n, missing);
        Expected ex = expected(n, k, d, lost, available);
        String what = code.name() + " lost " + Arrays.toString(lost) + " missing " + extra;
        assertArrayEquals(ex == null ? null : ex.helpers(), code.repairHelpers(lost, available), what);
        if (d == n - 1) {
          // every survivor must help: one missing forces a decode (its graph is checked once)
          assertFalse(code.repairableWithSavings(lost, available), what);
          if (extra == (lost[0] == 0 ? 1 : 0)) {
            checkDecodeGraph(code, units, len, lost, available);
          }
          continue;
        }
        if (code.repairableWithSavings(lost, available)) {
          checked++;
          assertTrue(Arrays.stream(ex.helpers()).noneMatch(h -> h == x), what);
          checkRepairGraph(code, units, len, lost, available, ex);
          checkDirectRepair(code, units, len, lost, new int[] {extra}, ex, rnd);
        } else {
          checkDecodeGraph(code, units, len, lost, available);
        }
      }
    }
    if (n - d >= 3) { // f = 2 lost, d helpers and one more unit unavailable
      assertTrue(checked > 0, code.name() + ": some patterns repair with an unavailable aloof unit");
    }
  }

  // ---------------------------------------------------------------- production size

  /** Every 2- and 3-failure pattern within one y-section of Clay(14,10,13), random data. */
  @Test
  void clay14_10_13RepairsFailuresWithinASection() {
    ClayCode code = new ClayCode(14, 10, 13, best);
    Random rnd = new Random(1413);
    int alpha = code.alpha();
    int[] lens = {alpha * 2 + 1 + rnd.nextInt(alpha - 1), alpha * 3, 1 + rnd.nextInt(alpha - 1)};
    int patterns = 0;
    for (int len : lens) {
      ByteBuffer[] units = encodeRandom(code, len, rnd, rnd.nextBoolean());
      for (int[] lost : lostSets(14, 2, 3)) {
        int y = code.coordinate(lost[0]).y();
        if (Arrays.stream(lost).anyMatch(l -> code.coordinate(l).y() != y)) {
          continue;
        }
        int[] available = complement(14, lost);
        Expected ex = expected(14, 10, 13, lost, available);
        assertNotNull(ex);
        int f = lost.length;
        assertEquals(f == 2 ? 128 : 192, ex.betaE(), "256 - (4 - f) * 64");
        assertEquals(14 - f, ex.helpers().length);
        assertTrue(code.repairableWithSavings(lost, available));
        assertEquals(f == 2 ? 12 * 128 : 11 * 192, code.repairSubchunkCount(lost, available));
        checkRepairGraph(code, units, len, lost, available, ex);
        checkDirectRepair(code, units, len, lost, new int[0], ex, rnd);
        patterns++;
      }
      // a few patterns across sections: decoded
      for (int trial = 0; trial < 3; trial++) {
        int a = rnd.nextInt(2);
        int b = 2 + rnd.nextInt(12);
        int[] lost = {a, b};
        assertFalse(code.repairableWithSavings(lost, complement(14, lost)));
        checkDecodeGraph(code, units, len, lost, complement(14, lost));
        checkDirectDecode(code, units, len, lost);
      }
    }
    assertEquals(3 * (1 + 3 * 6 + 3 * 4), patterns);
  }

  /** The table of the class comment (and of the report): sub-chunks read, Clay(14,10,13). */
  @Test
  void clay14_10_13Costs() {
    ClayCode code = new ClayCode(14, 10, 13, best);
    int[] all = IntStream.range(0, 14).toArray();
    // section 0 holds the two virtual nodes and units 0, 1; section 1 units 2..5; section 3 units 10..13
    assertEquals(13 * 64, code.repairSubchunkCount(new int[] {4}, complement(14, new int[] {4})));
    assertEquals(12 * 128, code.repairSubchunkCount(new int[] {2, 3}, complement(14, new int[] {2, 3})));
    assertEquals(12 * 128, code.repairSubchunkCount(new int[] {0, 1}, complement(14, new int[] {0, 1})));
    assertEquals(11 * 192, code.repairSubchunkCount(new int[] {10, 11, 12}, complement(14, new int[] {10, 11, 12})));
    assertEquals(2560, code.repairSubchunkCount(new int[] {2, 3, 4, 5}, complement(14, new int[] {2, 3, 4, 5})));
    assertEquals(2560, code.repairSubchunkCount(new int[] {0, 2}, complement(14, new int[] {0, 2})));
    assertEquals(2560, code.repairSubchunkCount(new int[] {5, 6}, complement(14, new int[] {5, 6})));
    // all 4 units of section 1: every layer has a hole-dot (beta_e = alpha), no savings
    assertEquals(256, code.repairSubchunks(new int[] {2, 3, 4, 5}).length);
    assertNull(code.repairHelpers(new int[] {2, 3, 4, 5}, complement(14, new int[] {2, 3, 4, 5})));
    // a helper missing: d = n-1 needs every survivor
    int[] lost = {2, 3};
    int[] available = Arrays.stream(all).filter(u -> u != 2 && u != 3 && u != 9).toArray();
    assertFalse(code.repairableWithSavings(lost, available));
    assertEquals(2560, code.repairSubchunkCount(lost, available));
  }

  /**
   * d &lt; n-1: layers knowing more than k' positions leave some out, so the repair reads
   * less than d_e * beta_e, and Remark 1 is applied to what is read.
   */
  @Test
  void clay8_4_6ReadsLessThanThePaperCount() {
    ClayCode code = new ClayCode(8, 4, 6, best); // q = 3, t = 3, nu = 1, alpha = 27, k * alpha = 108
    int[] oneSection = {2, 3}; // positions 3, 4: section 1
    int[] available = complement(8, oneSection);
    assertEquals(27 - 1 * 3 * 3, code.repairSubchunks(oneSection).length);
    assertEquals(6, code.repairHelpers(oneSection, available).length);
    assertTrue(code.repairableWithSavings(oneSection, available), "6 x 18 = 108 = k * alpha, but 96 are read");
    assertEquals(96, code.repairSubchunkCount(oneSection, available));
    int[] twoSections = {2, 5}; // sections 1 and 2
    available = complement(8, twoSections);
    assertEquals(27 - 2 * 2 * 3, code.repairSubchunks(twoSections).length);
    long reads = code.repairSubchunkCount(twoSections, available);
    assertTrue(reads < 6 * 15, "fewer than d_e * beta_e = 90: " + reads);
    int len = 27 * 5 + 4;
    ByteBuffer[] units = encodeRandom(code, len, new Random(846), false);
    for (int[] lost : new int[][] {oneSection, twoSections}) {
      Expected ex = expected(8, 4, 6, lost, complement(8, lost));
      checkRepairGraph(code, units, len, lost, complement(8, lost), ex);
      checkDirectRepair(code, units, len, lost, new int[0], ex, new Random(1));
    }
  }

  /** Shortening: the two real units of section 0 lost, the two virtual nodes of it never read. */
  @Test
  void virtualNodesHelpForFree() {
    ClayCode code = new ClayCode(14, 10, 13, best);
    assertEquals(2, code.virtualNodes());
    int[] lost = {0, 1};
    int[] available = complement(14, lost);
    // e_0 = 2 lost real units; section 0's other two nodes are virtual: 12 real helpers
    assertArrayEquals(IntStream.range(2, 14).toArray(), code.repairHelpers(lost, available));
    assertEquals(256 - 2 * 64, code.repairSubchunks(lost).length);
    int len = code.alpha() * 3 + 17;
    ByteBuffer[] units = encodeRandom(code, len, new Random(2), true);
    Expected ex = expected(14, 10, 13, lost, available);
    checkRepairGraph(code, units, len, lost, available, ex);
    checkDirectRepair(code, units, len, lost, new int[0], ex, new Random(3));
    // Clay(8,4,6): q = 3, nu = 1; section 0 = {virtual, unit 0, unit 1}; d < n-1 so d = 6
    // real helpers whatever the virtual node
    ClayCode c8 = new ClayCode(8, 4, 6, best);
    assertArrayEquals(new int[] {2, 3, 4, 5, 6, 7}, c8.repairHelpers(lost, complement(8, lost)));
    assertEquals(27 - 1 * 3 * 3, c8.repairSubchunks(lost).length);
  }

  /** The general algorithm with one lost node is the single-node repair: same reads, same bytes. */
  @ParameterizedTest
  @MethodSource("codes")
  void oneLostNodeThroughAlgorithm1(int n, int k, int d) {
    ClayCode code = new ClayCode(n, k, d, best);
    ClayPlanner planner = new ClayPlanner(code.grid(),
        new BaseCode(code.parameters().baseLength(), code.parameters().baseDimension()), best);
    int len = code.alpha() * 2;
    int s = 2;
    ByteBuffer[] units = encodeRandom(code, len, new Random(n + d), false);
    for (int lost = 0; lost < n; lost++) {
      int[] helpers = code.repairHelpers(lost, complement(n, new int[] {lost}));
      boolean[] hp = new boolean[code.grid().positions()];
      for (int h : helpers) {
        hp[code.grid().positionOfUnit(h)] = true;
      }
      RepairPattern rp = new RepairPattern(code.grid(), new int[] {code.grid().positionOfUnit(lost)}, hp);
      assertEquals((long) d * code.beta(), rp.readCount());
      Ecdag.Builder b = Ecdag.builder(code.alpha());
      planner.multiRepairPlan(rp).emit(b, new int[] {lost});
      Ecdag g = b.build();
      assertEquals((long) d * code.beta(), g.leaves().size());
      final int l = lost;
      Map<CentralExecutor.Key, ByteBuffer> got = new CentralExecutor(best).run(g, (u, j) -> {
        assertTrue(u != l);
        return new CentralExecutor.Region(units[u], j * s);
      }, s);
      for (int j = 0; j < code.alpha(); j++) {
        assertArrayEquals(bytes(units[lost], j * s, s), bytes(got.get(new CentralExecutor.Key(lost, j)), 0, s));
      }
    }
  }

  @Test
  void rejectsBadPatterns() {
    ClayCode code = new ClayCode(6, 3, 5, best);
    assertThrows(IllegalArgumentException.class, () -> code.repairHelpers(new int[] {1, 1}, new int[] {0, 2, 3}));
    assertThrows(IllegalArgumentException.class, () -> code.repairableWithSavings(new int[] {1, 2}, new int[] {1, 3}));
    assertThrows(IllegalArgumentException.class, () -> code.repairSubchunks(new int[] {6}));
    assertThrows(IllegalArgumentException.class, () -> code.repairGraph(new int[] {3, 3}, new int[] {0, 1, 2}));
    assertThrows(io.ecrepair.codes.UndecodableException.class,
        () -> code.repairSubchunkCount(new int[] {0, 1, 2, 3}, new int[] {4, 5}));
  }
}
