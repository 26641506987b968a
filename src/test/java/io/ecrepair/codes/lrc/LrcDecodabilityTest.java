package io.ecrepair.codes.lrc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.gf.RegionCoders;
import java.util.Arrays;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every erasure pattern of small LRCs against the generator the encoder really applies: the
 * code says "decodable" exactly when the survivors have rank k (by {@code GFMatrix.rank}) and
 * exactly when the topology allows it (maximal recoverability); its read sets rebuild the lost
 * units and are as small as possible.
 */
class LrcDecodabilityTest {

  @ParameterizedTest(name = "LRC({0},{1},{2})")
  @CsvSource({"6,2,2", "12,2,2"})
  void everyErasurePatternAgreesWithRankAndTopology(int k, int l, int g) {
    LrcCode code = new LrcCode(k, l, g, RegionCoders.java());
    LrcOracle o = new LrcOracle(code, k, l, g);
    int decodable = 0;
    int[] decodableBySize = new int[o.n + 1];
    for (int lost = 0; lost < 1 << o.n; lost++) {
      boolean byRank = o.decodableByRank(lost);
      boolean byTopology = o.decodableByMatching(lost);
      int[] lostUnits = LrcOracle.units(lost);
      String what = "lost " + Arrays.toString(lostUnits);
      assertEquals(byTopology, byRank, what + ": not maximally recoverable");
      assertEquals(byRank, code.decodable(lostUnits), what);
      Optional<int[]> reads = code.cheapestReadSet(lostUnits);
      assertEquals(byRank, reads.isPresent(), what);
      if (byRank) {
        decodable++;
        decodableBySize[lostUnits.length]++;
        int[] s = reads.get();
        assertEquals(0, LrcOracle.mask(s) & lost, what + ": reads a lost unit");
        assertTrue(o.determines(s, lostUnits), what + ": read set " + Arrays.toString(s) + " does not rebuild it");
        assertEquals(s.length, o.rank(s), what + ": read set has a redundant unit");
      }
    }
    // any g+1 failures decode, and no pattern with more than l+g failures does
    for (int f = 0; f <= o.n; f++) {
      long patterns = binomial(o.n, f);
      if (f <= g + 1) {
        assertEquals(patterns, decodableBySize[f], f + " failures");
      }
      if (f > l + g) {
        assertEquals(0, decodableBySize[f], f + " failures");
      }
    }
    assertTrue(decodable > 0);
  }

  @Test
  void lrc622ReadSetsAreMinimalForEveryPattern() {
    LrcCode code = new LrcCode(6, 2, 2, RegionCoders.java());
    LrcOracle o = new LrcOracle(code, 6, 2, 2);
    for (int lost = 1; lost < 1 << o.n; lost++) {
      int[] lostUnits = LrcOracle.units(lost);
      Optional<int[]> reads = code.cheapestReadSet(lostUnits);
      if (reads.isPresent()) {
        assertNoSmallerReadSet(o, lostUnits, o.complement(lost), reads.get().length);
      }
    }
  }

  @Test
  void lrc1222ReadSetsForOneAndTwoFailures() {
    LrcCode code = new LrcCode(12, 2, 2, RegionCoders.java());
    LrcOracle o = new LrcOracle(code, 12, 2, 2);
    for (int a = 0; a < o.n; a++) {
      for (int b = a; b < o.n; b++) {
        int[] lost = a == b ? new int[] {a} : new int[] {a, b};
        int[] reads = code.cheapestReadSet(lost).orElseThrow();
        assertTrue(o.determines(reads, lost));
        assertNoSmallerReadSet(o, lost, o.complement(LrcOracle.mask(lost)), reads.length);
      }
    }
    // single failures: a group member or local parity reads its group, a global parity the data
    assertArrayEquals(new int[] {1, 2, 3, 4, 5, 12}, code.cheapestReadSet(new int[] {0}).orElseThrow());
    assertArrayEquals(new int[] {6, 7, 8, 9, 10, 11}, code.cheapestReadSet(new int[] {13}).orElseThrow());
    assertArrayEquals(IntStream.range(0, 12).toArray(), code.cheapestReadSet(new int[] {15}).orElseThrow());
    // a data unit and its local parity: the local group cannot help, a global parity must
    int[] reads = code.cheapestReadSet(new int[] {0, 12}).orElseThrow();
    assertEquals(12, reads.length);
    assertTrue(Arrays.stream(reads).anyMatch(u -> u >= 14));
    // one failure in each group: two local repairs
    assertArrayEquals(new int[] {1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13},
        code.cheapestReadSet(new int[] {0, 6}).orElseThrow());
    // restricted availability: unit 1 is also gone, so unit 0 needs a global parity
    int[] restricted = code.cheapestReadSet(new int[] {0}, new int[] {2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
        .orElseThrow();
    assertEquals(12, restricted.length);
    assertTrue(o.determines(restricted, new int[] {0}));
    assertFalse(code.decodable(new int[] {0}, new int[] {2, 3, 4, 5, 6, 12, 13}));
    assertTrue(code.decodable(new int[] {0}, new int[] {2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14}));
  }

  @Test
  void lrc1222FourFailures() {
    LrcCode code = new LrcCode(12, 2, 2, RegionCoders.best());
    LrcOracle o = new LrcOracle(code, 12, 2, 2);
    // two lost data units per group: each local parity takes one, each global parity one
    int[] decodable = {0, 1, 6, 7};
    assertTrue(code.decodable(decodable));
    assertTrue(o.decodableByRank(LrcOracle.mask(decodable)));
    // both local parities and two data units: the two global parities take the data
    assertTrue(code.decodable(new int[] {3, 9, 12, 13}));
    // four lost data units in one group: one local plus two global parities are not enough
    int[] undecodable = {0, 1, 2, 3};
    assertFalse(code.decodable(undecodable));
    assertFalse(o.decodableByRank(LrcOracle.mask(undecodable)));
    assertTrue(code.cheapestReadSet(undecodable).isEmpty());
    // three data units of a group and its local parity: three lost data, two global parities
    assertFalse(code.decodable(new int[] {0, 1, 2, 12}));
  }

  /** Azure's paper: LRC(12,2,2) and LRC(6,2,2) decode about 86% of all four-failure patterns. */
  @ParameterizedTest(name = "LRC({0},2,2): {1} of {2}")
  @CsvSource({"12,1568,1820", "6,180,210"})
  void fourFailureCoverageMatchesTheAzurePaper(int k, int expected, int patterns) {
    LrcCode code = new LrcCode(k, 2, 2, RegionCoders.java());
    int n = k + 4;
    int count = 0;
    int total = 0;
    for (int lost = 0; lost < 1 << n; lost++) {
      if (Integer.bitCount(lost) == 4) {
        total++;
        if (code.decodable(LrcOracle.units(lost))) {
          count++;
        }
      }
    }
    assertEquals(patterns, total);
    assertEquals(expected, count);
    assertEquals(0.86, (double) count / total, 0.005);
  }

  /** No subset of {@code available} one smaller than {@code size} rebuilds {@code lost}. */
  private static void assertNoSmallerReadSet(LrcOracle o, int[] lost, int[] available, int size) {
    if (size == 0) {
      return;
    }
    int[] pick = new int[size - 1];
    assertFalse(anySubsetDetermines(o, lost, available, pick, 0, 0),
        "a read set smaller than " + size + " rebuilds " + Arrays.toString(lost));
  }

  private static boolean anySubsetDetermines(LrcOracle o, int[] lost, int[] avail, int[] pick, int depth, int from) {
    if (depth == pick.length) {
      return o.determines(pick, lost);
    }
    for (int i = from; i <= avail.length - (pick.length - depth); i++) {
      pick[depth] = avail[i];
      if (anySubsetDetermines(o, lost, avail, pick, depth + 1, i + 1)) {
        return true;
      }
    }
    return false;
  }

  private static long binomial(int n, int r) {
    long b = 1;
    for (int i = 0; i < r; i++) {
      b = b * (n - i) / (i + 1);
    }
    return b;
  }
}
