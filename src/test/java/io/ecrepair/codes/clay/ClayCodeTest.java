package io.ecrepair.codes.clay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.CellLayout;
import io.ecrepair.codes.UndecodableException;
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
 * Clay codes against the original bytes: every erasure pattern and every single-node repair
 * of small codes (direct and as graphs run by the central executor), every cell-length class,
 * random patterns for the production-size codes.
 */
class ClayCodeTest {
  private static RegionCoder best;

  @BeforeAll
  static void coder() {
    RegionCoders.requireNativeIfConfigured();
    best = RegionCoders.best();
  }

  /** The small codes tested exhaustively: plain, q = 2 and 4... , shortened, d < n-1. */
  static Stream<Arguments> smallCodes() {
    return Stream.of(
        Arguments.of(4, 2, 3),
        Arguments.of(6, 4, 5),
        Arguments.of(5, 3, 4),
        Arguments.of(6, 3, 4));
  }

  /** Cell lengths of every layout class: multiple of alpha, with a tail, below alpha, zero. */
  static int[] lengths(int alpha) {
    return new int[] {alpha * 5, alpha * 3 + alpha / 2 + 1, alpha - 1, 0};
  }

  // ---------------------------------------------------------------- stripes

  /** n units of len bytes, data random, parity encoded by the code under test. */
  static ByteBuffer[] encodeRandom(ClayCode code, int len, Random rnd, boolean direct) {
    int k = code.dataUnits();
    int n = code.totalUnits();
    ByteBuffer[] units = new ByteBuffer[n];
    for (int i = 0; i < n; i++) {
      units[i] = direct ? ByteBuffer.allocateDirect(len) : ByteBuffer.allocate(len);
    }
    for (int i = 0; i < k; i++) {
      byte[] b = new byte[len];
      rnd.nextBytes(b);
      units[i].put(0, b);
    }
    for (int i = k; i < n; i++) {
      byte[] junk = new byte[len];
      rnd.nextBytes(junk); // encode must overwrite, not accumulate
      units[i].put(0, junk);
    }
    code.encode(Arrays.copyOf(units, k), new int[k], Arrays.copyOfRange(units, k, n), new int[n - k], len);
    return units;
  }

  static byte[] bytes(ByteBuffer b, int off, int len) {
    byte[] x = new byte[len];
    b.get(off, x);
    return x;
  }

  static List<int[]> patternsUpTo(int n, int max) {
    List<int[]> out = new ArrayList<>();
    for (int mask = 1; mask < 1 << n; mask++) {
      if (Integer.bitCount(mask) <= max) {
        final int mm = mask;
        out.add(IntStream.range(0, n).filter(i -> (mm & 1 << i) != 0).toArray());
      }
    }
    return out;
  }

  static int[] complement(int n, int[] lost) {
    return IntStream.range(0, n).filter(i -> Arrays.stream(lost).noneMatch(l -> l == i)).toArray();
  }

  // ---------------------------------------------------------------- parameters

  @Test
  void parametersFollowThePaper() {
    ClayParameters p = ClayCode.parameters(14, 10, 13);
    assertEquals(4, p.q());
    assertEquals(4, p.t());
    assertEquals(2, p.virtualNodes());
    assertEquals(256, p.alpha());
    assertEquals(64, p.beta());
    assertEquals(243, ClayCode.parameters(14, 10, 12).alpha());
    assertEquals(128, ClayCode.parameters(14, 10, 11).alpha());
    assertEquals(81, ClayCode.parameters(12, 9, 11).alpha());
    assertEquals(1024, ClayCode.parameters(20, 16, 19).alpha());
    assertEquals(8, ClayCode.parameters(6, 4, 5).alpha());
    ClayCode c = new ClayCode(16, 12, 15, best);
    assertEquals(4, c.q());
    assertEquals(4, c.t());
    assertEquals(0, c.virtualNodes());
    assertEquals(256, c.alpha());
    assertEquals(64, c.beta());
    assertEquals(15, c.d());
    assertEquals("Clay(16,12,15)", c.name());
    assertEquals(256, c.subPacketization());
  }

  /** The codec name carries d: {@code clay} is d = n - 1, {@code clay-d<D>} is D, checked like the code's own. */
  @Test
  void codecNamesCarryTheNumberOfHelpers() {
    ClayCode d11 = (ClayCode) new io.ecrepair.codes.CodeSpec("clay-d11", 10, 4).create(best);
    assertEquals(11, d11.d());
    assertEquals(128, d11.subPacketization());
    assertEquals(13, ((ClayCode) new io.ecrepair.codes.CodeSpec("clay", 10, 4).create(best)).d());
    assertEquals(5.5, io.ecrepair.codes.Codecs.family("clay-d11")
        .repairBlocksPerLostBlock(new io.ecrepair.codes.CodeSpec("clay-d11", 10, 4)), 1e-9);
    for (String bad : new String[] {"clay-d", "clay-dx", "clay-d9", "clay-d14", "clay-d1000"}) {
      assertThrows(IllegalArgumentException.class, () -> new io.ecrepair.codes.CodeSpec(bad, 10, 4), bad);
    }
  }

  @Test
  void rejectsBadParameters() {
    assertThrows(IllegalArgumentException.class, () -> new ClayCode(6, 4, 3, best)); // d < k
    assertThrows(IllegalArgumentException.class, () -> new ClayCode(6, 4, 6, best)); // d > n-1
    assertThrows(IllegalArgumentException.class, () -> new ClayCode(4, 4, 4, best)); // m = 0
    assertThrows(IllegalArgumentException.class, () -> new ClayCode(4, 0, 2, best)); // k = 0
    assertThrows(IllegalArgumentException.class, () -> new ClayCode(256, 200, 210, best)); // n > 255
    assertThrows(IllegalArgumentException.class, () -> new ClayCode(60, 40, 41, best)); // alpha = 2^30
  }

  @Test
  void degenerateQOneIsTheBaseCode() {
    // d = k: q = 1, alpha = 1, repair reads k whole units.
    ClayCode c = new ClayCode(6, 4, 4, best);
    assertEquals(1, c.alpha());
    Random rnd = new Random(5);
    ByteBuffer[] units = encodeRandom(c, 100, rnd, false);
    for (int lost = 0; lost < 6; lost++) {
      ByteBuffer out = ByteBuffer.allocate(100);
      ByteBuffer[] view = units.clone();
      view[lost] = null;
      c.repair(lost, view, new int[6], out, 0, 100);
      assertArrayEquals(bytes(units[lost], 0, 100), bytes(out, 0, 100));
    }
  }

  // ---------------------------------------------------------------- decode

  @ParameterizedTest
  @MethodSource("smallCodes")
  void decodesEveryErasurePattern(int n, int k, int d) {
    ClayCode code = new ClayCode(n, k, d, best);
    Random rnd = new Random(n * 100 + k * 10 + d);
    for (int len : lengths(code.alpha())) {
      ByteBuffer[] units = encodeRandom(code, len, rnd, len % 2 == 0);
      for (int[] lost : patternsUpTo(n, n - k)) {
        ByteBuffer[] view = units.clone();
        for (int l : lost) {
          view[l] = null;
        }
        ByteBuffer[] out = new ByteBuffer[lost.length];
        int[] outOff = new int[lost.length];
        for (int i = 0; i < out.length; i++) {
          out[i] = ByteBuffer.allocate(len + 7);
          outOff[i] = 7;
        }
        code.decode(view, new int[n], lost, out, outOff, len);
        for (int i = 0; i < lost.length; i++) {
          assertArrayEquals(bytes(units[lost[i]], 0, len), bytes(out[i], 7, len),
              code.name() + " len " + len + " lost " + Arrays.toString(lost) + " unit " + lost[i]);
        }
        // only the last missing unit wanted (with several missing: a layered decode that
        // computes erased units it does not output)
        int last = lost[lost.length - 1];
        ByteBuffer one = ByteBuffer.allocate(len);
        code.decode(view, new int[n], new int[] {last}, new ByteBuffer[] {one}, new int[1], len);
        assertArrayEquals(bytes(units[last], 0, len), bytes(one, 0, len),
            code.name() + " len " + len + " lost " + Arrays.toString(lost) + " only " + last);
      }
    }
  }

  @Test
  void decodeRefusesMoreThanMErasures() {
    ClayCode code = new ClayCode(6, 3, 4, best);
    ByteBuffer[] units = encodeRandom(code, 64, new Random(1), false);
    ByteBuffer[] view = units.clone();
    view[0] = view[2] = view[4] = view[5] = null;
    assertThrows(UndecodableException.class, () -> code.decode(view, new int[6], new int[] {0},
        new ByteBuffer[] {ByteBuffer.allocate(64)}, new int[1], 64));
    assertThrows(UndecodableException.class, () -> code.repairGraph(new int[] {0}, new int[] {1, 3}));
  }

  @Test
  void decodeOfAnAvailableUnitCopiesIt() {
    ClayCode code = new ClayCode(6, 4, 5, best);
    ByteBuffer[] units = encodeRandom(code, 80, new Random(3), false);
    ByteBuffer[] view = units.clone();
    view[1] = null;
    ByteBuffer[] out = {ByteBuffer.allocate(80), ByteBuffer.allocate(80)};
    code.decode(view, new int[6], new int[] {4, 1}, out, new int[2], 80);
    assertArrayEquals(bytes(units[4], 0, 80), bytes(out[0], 0, 80));
    assertArrayEquals(bytes(units[1], 0, 80), bytes(out[1], 0, 80));
  }

  // ---------------------------------------------------------------- single-node repair

  @ParameterizedTest
  @MethodSource("smallCodes")
  void repairsEveryNodeReadingOnlyBetaSubchunks(int n, int k, int d) {
    ClayCode code = new ClayCode(n, k, d, best);
    Random rnd = new Random(7 + n * k * d);
    for (int len : lengths(code.alpha())) {
      ByteBuffer[] units = encodeRandom(code, len, rnd, len % 2 == 1);
      for (int lost = 0; lost < n; lost++) {
        checkDirectRepair(code, units, lost, len, rnd);
        checkGraphRepair(code, units, lost, len);
      }
    }
  }

  /**
   * Repairs {@code lost} from copies of the units in which every byte the repair may not read
   * is garbage: only the repair sub-chunks of the d helpers, and the tails of k helpers, are
   * real. A repair that reads anything else gives wrong bytes.
   */
  static void checkDirectRepair(ClayCode code, ByteBuffer[] units, int lost, int len, Random rnd) {
    int n = code.totalUnits();
    int[] available = complement(n, new int[] {lost});
    int[] helpers = code.repairHelpers(lost, available);
    assertNotNull(helpers, "all units available: repair must be bandwidth-optimal");
    assertEquals(code.d(), helpers.length);
    int[] sub = code.repairSubchunks(lost);
    assertEquals(code.beta(), sub.length);
    assertEquals(code.beta(), new TreeSet<>(Arrays.stream(sub).boxed().toList()).size());
    // y-section mates are always helpers
    NodeCoordinate c = code.coordinate(lost);
    for (int u = 0; u < n; u++) {
      if (u != lost && code.coordinate(u).y() == c.y()) {
        final int uu = u;
        assertTrue(Arrays.stream(helpers).anyMatch(h -> h == uu), "y-section mate " + u + " is a helper");
      }
    }
    CellLayout layout = new CellLayout(code.alpha(), len);
    int s = layout.subchunkBytes();
    ByteBuffer[] masked = new ByteBuffer[n];
    int[] off = new int[n];
    int readSubchunks = 0;
    for (int u = 0; u < n; u++) {
      if (u == lost) {
        continue;
      }
      off[u] = 3;
      byte[] junk = new byte[len + 3];
      rnd.nextBytes(junk);
      masked[u] = ByteBuffer.allocate(len + 3).put(0, junk);
      final int uu = u;
      int helperIndex = IntStream.range(0, helpers.length).filter(i -> helpers[i] == uu).findFirst().orElse(-1);
      if (helperIndex < 0) {
        continue; // aloof: nothing of it may be read
      }
      for (int j : sub) {
        masked[u].put(3 + j * s, units[u], j * s, s);
        readSubchunks++;
      }
      if (helperIndex < code.dataUnits()) {
        masked[u].put(3 + layout.tailOffset(), units[u], layout.tailOffset(), layout.tailBytes());
      }
    }
    assertEquals(code.d() * code.beta(), readSubchunks);
    ByteBuffer out = ByteBuffer.allocateDirect(len + 5);
    code.repair(lost, masked, off, out, 5, len);
    assertArrayEquals(bytes(units[lost], 0, len), bytes(out, 5, len), code.name() + " repair of " + lost + " len " + len);
  }

  static void checkGraphRepair(ClayCode code, ByteBuffer[] units, int lost, int len) {
    int n = code.totalUnits();
    int[] available = complement(n, new int[] {lost});
    int[] sub = code.repairSubchunks(lost);
    Ecdag g = code.repairGraph(new int[] {lost}, available);
    assertEquals(code.alpha(), g.subchunkCount());
    Map<Integer, TreeSet<Integer>> leaves = new TreeMap<>();
    for (Ecdag.Vertex v : g.leaves()) {
      leaves.computeIfAbsent(v.block(), b -> new TreeSet<>()).add(v.subchunk());
    }
    assertEquals(code.d(), leaves.size(), "graph reads d helpers");
    assertEquals(code.d() * code.beta(), g.leaves().size(), "graph reads d * beta sub-chunks");
    for (Map.Entry<Integer, TreeSet<Integer>> e : leaves.entrySet()) {
      assertTrue(e.getKey() != lost && e.getKey() >= 0 && e.getKey() < n);
      assertArrayEquals(sub, e.getValue().stream().mapToInt(Integer::intValue).toArray(),
          "helper " + e.getKey() + " sends the repair sub-chunks");
    }
    assertEquals(code.alpha(), g.repaired().size());
    CellLayout layout = new CellLayout(code.alpha(), len);
    int s = layout.subchunkBytes();
    CentralExecutor exec = new CentralExecutor(best);
    Map<CentralExecutor.Key, ByteBuffer> got = exec.run(g, (b, j) -> {
      assertTrue(b != lost);
      return new CentralExecutor.Region(units[b], j * s);
    }, s);
    for (int j = 0; j < code.alpha(); j++) {
      ByteBuffer r = got.get(new CentralExecutor.Key(lost, j));
      assertNotNull(r, "sub-chunk " + j + " repaired");
      assertArrayEquals(bytes(units[lost], j * s, s), bytes(r, 0, s), code.name() + " graph repair of " + lost + " sub-chunk " + j);
    }
    Ecdag tg = code.tailRepairGraph(new int[] {lost}, available);
    assertEquals(code.dataUnits(), tg.leaves().size(), "the tail reads k units");
    int tail = layout.tailBytes();
    Map<CentralExecutor.Key, ByteBuffer> tgot = exec.run(tg,
        (b, j) -> new CentralExecutor.Region(units[b], layout.tailOffset()), tail);
    assertArrayEquals(bytes(units[lost], layout.tailOffset(), tail),
        bytes(tgot.get(new CentralExecutor.Key(lost, 0)), 0, tail));
  }

  // ---------------------------------------------------------------- multi-failure graphs

  @ParameterizedTest
  @MethodSource("smallCodes")
  void decodeGraphsRebuildEveryPattern(int n, int k, int d) {
    ClayCode code = new ClayCode(n, k, d, best);
    int len = code.alpha() * 4 + 3;
    ByteBuffer[] units = encodeRandom(code, len, new Random(99), false);
    CentralExecutor exec = new CentralExecutor(best);
    CellLayout layout = new CellLayout(code.alpha(), len);
    int s = layout.subchunkBytes();
    for (int[] lost : patternsUpTo(n, n - k)) {
      int[] available = complement(n, lost);
      Ecdag g = code.repairGraph(lost, available);
      if (lost.length > 1 && !code.repairableWithSavings(lost, available)) {
        assertEquals(k * code.alpha(), g.leaves().size(), "a decode graph reads k whole units");
      } // else a multi-node repair (ClayMultiRepairTest)
      g.leaves().forEach(v -> assertTrue(Arrays.stream(lost).noneMatch(l -> l == v.block())));
      Map<CentralExecutor.Key, ByteBuffer> got = exec.run(g, (b, j) -> new CentralExecutor.Region(units[b], j * s), s);
      for (int l : lost) {
        for (int j = 0; j < code.alpha(); j++) {
          assertArrayEquals(bytes(units[l], j * s, s), bytes(got.get(new CentralExecutor.Key(l, j)), 0, s),
              code.name() + " lost " + Arrays.toString(lost) + " unit " + l + " sub-chunk " + j);
        }
      }
      Ecdag tg = code.tailRepairGraph(lost, available);
      assertEquals(k, tg.leaves().size());
      Map<CentralExecutor.Key, ByteBuffer> tgot = exec.run(tg,
          (b, j) -> new CentralExecutor.Region(units[b], layout.tailOffset()), layout.tailBytes());
      for (int l : lost) {
        assertArrayEquals(bytes(units[l], layout.tailOffset(), layout.tailBytes()),
            bytes(tgot.get(new CentralExecutor.Key(l, 0)), 0, layout.tailBytes()));
      }
    }
  }

  // ---------------------------------------------------------------- randomized production sizes

  static Stream<Arguments> largeCodes() {
    return Stream.of(Arguments.of(14, 10, 13), Arguments.of(16, 12, 15));
  }

  @ParameterizedTest
  @MethodSource("largeCodes")
  void randomPatternsAndRepairsOfLargeCodes(int n, int k, int d) {
    ClayCode code = new ClayCode(n, k, d, best);
    Random rnd = new Random(20180212L + n);
    int alpha = code.alpha();
    int[] lens = {alpha * 16, alpha * 9 + 1 + rnd.nextInt(alpha - 1), 1 + rnd.nextInt(alpha - 1), 0};
    for (int len : lens) {
      ByteBuffer[] units = encodeRandom(code, len, rnd, rnd.nextBoolean());
      for (int trial = 0; trial < 6; trial++) {
        int count = 1 + rnd.nextInt(n - k);
        List<Integer> all = new ArrayList<>(IntStream.range(0, n).boxed().toList());
        java.util.Collections.shuffle(all, rnd);
        int[] lost = all.subList(0, count).stream().mapToInt(Integer::intValue).sorted().toArray();
        ByteBuffer[] view = units.clone();
        for (int l : lost) {
          view[l] = null;
        }
        ByteBuffer[] out = new ByteBuffer[lost.length];
        for (int i = 0; i < out.length; i++) {
          out[i] = ByteBuffer.allocateDirect(len);
        }
        code.decode(view, new int[n], lost, out, new int[lost.length], len);
        for (int i = 0; i < lost.length; i++) {
          assertArrayEquals(bytes(units[lost[i]], 0, len), bytes(out[i], 0, len),
              code.name() + " len " + len + " lost " + Arrays.toString(lost));
        }
      }
      for (int trial = 0; trial < 3; trial++) {
        int lost = rnd.nextInt(n);
        checkDirectRepair(code, units, lost, len, rnd);
        checkGraphRepair(code, units, lost, len);
      }
    }
    // two lost units: the decode graph, checked against the originals
    int len = alpha * 2;
    ByteBuffer[] units = encodeRandom(code, len, rnd, true);
    int[] lost = {1, n - 2};
    Ecdag g = code.repairGraph(lost, complement(n, lost));
    assertEquals(k * alpha, g.leaves().size());
    Map<CentralExecutor.Key, ByteBuffer> got = new CentralExecutor(best).run(g,
        (b, j) -> new CentralExecutor.Region(units[b], j * 2), 2);
    for (int l : lost) {
      for (int j = 0; j < alpha; j++) {
        assertArrayEquals(bytes(units[l], j * 2, 2), bytes(got.get(new CentralExecutor.Key(l, j)), 0, 2));
      }
    }
  }

  @Test
  void repairOfClay14_10_13ReadsAQuarterOfEachHelper() {
    ClayCode code = new ClayCode(14, 10, 13, best);
    int cell = 1 << 20;
    CellLayout layout = new CellLayout(code.alpha(), cell);
    for (int lost = 0; lost < 14; lost++) {
      long bytesRead = (long) code.d() * code.repairSubchunks(lost).length * layout.subchunkBytes();
      assertEquals(13L * cell / 4, bytesRead, "d * beta sub-chunks = d/q of a unit");
    }
  }

  // ---------------------------------------------------------------- layout

  @Test
  void repairSubchunksAreRunsOfQToTheSection() {
    ClayCode code = new ClayCode(14, 10, 13, best);
    for (int u = 0; u < 14; u++) {
      int[] sub = code.repairSubchunks(u);
      int y = code.coordinate(u).y();
      int run = (int) Math.pow(code.q(), y);
      List<int[]> runs = ClayGrid.runs(sub);
      assertEquals(code.beta() / run, runs.size(), "unit " + u);
      for (int[] r : runs) {
        assertEquals(run, r[1]);
      }
    }
    // the documented placement: virtual nodes first, units after them in index order
    assertEquals(new NodeCoordinate(2, 0), code.coordinate(0));
    assertEquals(new NodeCoordinate(0, 3), code.coordinate(10));
    assertEquals(new NodeCoordinate(3, 3), code.coordinate(13));
    assertArrayEquals(IntStream.range(192, 256).toArray(), code.repairSubchunks(13));
  }

  /**
   * The stored bytes are the Clay construction itself, checked with scalar arithmetic
   * independent of the coding plans: undoing the pairwise coupling (U = C + gamma C* for
   * paired vertices, virtual nodes zero) gives, in every layer, a codeword of the base
   * systematic Cauchy code over the grid positions.
   */
  @ParameterizedTest
  @MethodSource("smallCodes")
  void uncoupledLayersAreBaseCodewords(int n, int k, int d) {
    ClayCode code = new ClayCode(n, k, d, best);
    ClayGrid grid = code.grid();
    int s = 3;
    int len = code.alpha() * s;
    ByteBuffer[] units = encodeRandom(code, len, new Random(n + k + d), false);
    int np = grid.positions();
    int kp = k + code.virtualNodes();
    io.ecrepair.gf.GFMatrix gen = io.ecrepair.gf.GFMatrix.systematicCauchy(np, kp);
    for (int z = 0; z < code.alpha(); z++) {
      for (int b = 0; b < s; b++) {
        byte[] u = new byte[np];
        for (int p = 0; p < np; p++) {
          int zy = (z / (int) Math.pow(code.q(), p / code.q())) % code.q();
          int x = p % code.q();
          byte c = stored(grid, units, p, z, b, s);
          if (x == zy) {
            u[p] = c;
          } else {
            int partner = p - x + zy;
            int partnerLayer = z + (x - zy) * (int) Math.pow(code.q(), p / code.q());
            u[p] = (byte) (c ^ io.ecrepair.gf.GF256.mul(PairwiseTransform.GAMMA, stored(grid, units, partner, partnerLayer, b, s)));
          }
        }
        for (int r = kp; r < np; r++) {
          byte acc = 0;
          for (int j = 0; j < kp; j++) {
            acc ^= io.ecrepair.gf.GF256.mul(gen.get(r, j), u[j]);
          }
          assertEquals(acc, u[r], "layer " + z + " position " + r);
        }
      }
    }
  }

  private static byte stored(ClayGrid grid, ByteBuffer[] units, int position, int z, int b, int s) {
    int unit = grid.unitAt(position);
    return unit < 0 ? 0 : units[unit].get(z * s + b);
  }

  // ---------------------------------------------------------------- fallbacks

  @Test
  void repairWithoutAYSectionMateFallsBackToDecoding() {
    ClayCode code = new ClayCode(6, 3, 4, best); // q = 2: units 0,1 | 2,3 | 4,5
    int len = code.alpha() * 7 + 5;
    ByteBuffer[] units = encodeRandom(code, len, new Random(17), false);
    int[] available = {0, 1, 3, 5}; // 2's mate 3 is there: optimal with helpers {0,1,3,5}
    assertArrayEquals(new int[] {0, 1, 3, 5}, code.repairHelpers(2, available));
    available = new int[] {0, 1, 4, 5}; // mate 3 missing
    assertNull(code.repairHelpers(2, available));
    Ecdag g = code.repairGraph(new int[] {2}, available);
    assertEquals(code.dataUnits() * code.alpha(), g.leaves().size(), "fallback reads k units");
    int s = len / code.alpha();
    Map<CentralExecutor.Key, ByteBuffer> got = new CentralExecutor(best).run(g,
        (b, j) -> new CentralExecutor.Region(units[b], j * s), s);
    for (int j = 0; j < code.alpha(); j++) {
      assertArrayEquals(bytes(units[2], j * s, s), bytes(got.get(new CentralExecutor.Key(2, j)), 0, s));
    }
    ByteBuffer[] view = units.clone();
    view[2] = null;
    view[3] = null;
    ByteBuffer out = ByteBuffer.allocate(len);
    code.repair(2, view, new int[6], out, 0, len);
    assertArrayEquals(bytes(units[2], 0, len), bytes(out, 0, len));
    // d < n-1 with a non-mate missing: still optimal, another helper steps in
    assertArrayEquals(new int[] {0, 1, 3, 5}, code.repairHelpers(2, new int[] {0, 1, 3, 5}));
    assertArrayEquals(new int[] {0, 3, 4, 5}, code.repairHelpers(2, new int[] {0, 3, 4, 5}));
    ByteBuffer[] view2 = units.clone();
    view2[2] = null;
    view2[1] = null;
    checkDirectRepairFrom(code, units, view2, 2, len);
  }

  private static void checkDirectRepairFrom(ClayCode code, ByteBuffer[] units, ByteBuffer[] view, int lost, int len) {
    ByteBuffer out = ByteBuffer.allocate(len);
    code.repair(lost, view, new int[view.length], out, 0, len);
    assertArrayEquals(bytes(units[lost], 0, len), bytes(out, 0, len));
  }

  @Test
  void graphsRejectBadPatterns() {
    ClayCode code = new ClayCode(6, 4, 5, best);
    assertThrows(IllegalArgumentException.class, () -> code.repairGraph(new int[] {1}, new int[] {1, 2, 3, 4}));
    assertThrows(IllegalArgumentException.class, () -> code.repairGraph(new int[] {7}, new int[] {1, 2, 3, 4}));
    assertThrows(UndecodableException.class, () -> code.tailRepairGraph(new int[] {0}, new int[] {1, 2, 3}));
  }

  // ---------------------------------------------------------------- the Java coder

  @Test
  void javaCoderGivesTheSameCode() {
    ClayCode javaCode = new ClayCode(6, 4, 5, RegionCoders.java());
    ClayCode bestCode = new ClayCode(6, 4, 5, best);
    Random rnd = new Random(42);
    for (int len : lengths(javaCode.alpha())) {
      ByteBuffer[] units = encodeRandom(javaCode, len, rnd, len % 2 == 0);
      ByteBuffer[] again = new ByteBuffer[6];
      for (int i = 0; i < 6; i++) {
        again[i] = ByteBuffer.allocate(len);
        if (i < 4) {
          again[i].put(0, units[i], 0, len);
        }
      }
      bestCode.encode(Arrays.copyOf(again, 4), new int[4], Arrays.copyOfRange(again, 4, 6), new int[2], len);
      for (int i = 4; i < 6; i++) {
        assertArrayEquals(bytes(units[i], 0, len), bytes(again[i], 0, len), "parity " + i + " len " + len);
      }
      for (int[] lost : patternsUpTo(6, 2)) {
        ByteBuffer[] view = units.clone();
        for (int l : lost) {
          view[l] = null;
        }
        ByteBuffer[] out = new ByteBuffer[lost.length];
        for (int i = 0; i < out.length; i++) {
          out[i] = ByteBuffer.allocate(len);
        }
        javaCode.decode(view, new int[6], lost, out, new int[lost.length], len);
        for (int i = 0; i < lost.length; i++) {
          assertArrayEquals(bytes(units[lost[i]], 0, len), bytes(out[i], 0, len));
        }
      }
      for (int lost = 0; lost < 6; lost++) {
        checkDirectRepair(javaCode, units, lost, len, rnd);
      }
    }
  }

  // ---------------------------------------------------------------- offsets and threads

  @Test
  void encodeHonoursOffsets() {
    ClayCode code = new ClayCode(5, 3, 4, best);
    int len = code.alpha() * 6 + 3;
    ByteBuffer[] units = encodeRandom(code, len, new Random(8), false);
    ByteBuffer[] data = new ByteBuffer[3];
    ByteBuffer[] parity = new ByteBuffer[2];
    int[] dOff = {1, 17, 4};
    int[] pOff = {9, 2};
    for (int i = 0; i < 3; i++) {
      data[i] = ByteBuffer.allocateDirect(len + dOff[i]);
      data[i].put(dOff[i], units[i], 0, len);
    }
    for (int i = 0; i < 2; i++) {
      parity[i] = ByteBuffer.allocateDirect(len + pOff[i]);
    }
    code.encode(data, dOff, parity, pOff, len);
    for (int i = 0; i < 2; i++) {
      assertArrayEquals(bytes(units[3 + i], 0, len), bytes(parity[i], pOff[i], len));
    }
  }

  @Test
  void oneCodeServesManyThreads() throws Exception {
    ClayCode code = new ClayCode(14, 10, 13, best);
    int len = code.alpha() * 8 + 11;
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
    try {
      List<java.util.concurrent.Future<?>> jobs = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        final int seed = t;
        jobs.add(pool.submit(() -> {
          Random rnd = new Random(seed);
          for (int round = 0; round < 3; round++) {
            ByteBuffer[] units = encodeRandom(code, len, rnd, seed % 2 == 0);
            int lost = rnd.nextInt(14);
            ByteBuffer[] view = units.clone();
            view[lost] = null;
            ByteBuffer out = ByteBuffer.allocate(len);
            code.repair(lost, view, new int[14], out, 0, len);
            assertArrayEquals(bytes(units[lost], 0, len), bytes(out, 0, len));
            int[] lost2 = {rnd.nextInt(5), 5 + rnd.nextInt(5), 10 + rnd.nextInt(4)};
            ByteBuffer[] view2 = units.clone();
            ByteBuffer[] outs = new ByteBuffer[3];
            for (int i = 0; i < 3; i++) {
              view2[lost2[i]] = null;
              outs[i] = ByteBuffer.allocate(len);
            }
            code.decode(view2, new int[14], lost2, outs, new int[3], len);
            for (int i = 0; i < 3; i++) {
              assertArrayEquals(bytes(units[lost2[i]], 0, len), bytes(outs[i], 0, len));
            }
          }
          return null;
        }));
      }
      for (java.util.concurrent.Future<?> f : jobs) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
