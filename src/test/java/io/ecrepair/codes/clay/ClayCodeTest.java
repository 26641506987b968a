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
      if (lost.length > 1) {
        assertEquals(k * code.alpha(), g.leaves().size(), "a decode graph reads k whole units");
      }
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
}
