package io.ecrepair.codes.lrc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.gf.RegionCoders;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Maximal recoverability beyond the exhaustive small cases: every (k, l, g) HDFS can hold gets
 * coefficients, and sampled erasure patterns (mostly at the edge: l + g failures) decode by rank
 * exactly when the topology allows; the two seeded parameter sets are checked exhaustively.
 */
class LrcCoefficientsTest {

  @Test
  void everyParameterSetUpToSixteenUnitsIsMaximallyRecoverable() {
    int sets = 0;
    Random rnd = new Random(5);
    for (int k = 1; k < LrcCode.MAX_UNITS; k++) {
      for (int l = 1; l <= k; l++) {
        for (int g = 1; k + l + g <= LrcCode.MAX_UNITS; g++) {
          int r = (k + l - 1) / l;
          if ((l - 1) * r >= k) {
            continue; // an empty group: rejected, see LrcParamsTest
          }
          sets++;
          LrcCode code = new LrcCode(k, l, g, RegionCoders.java());
          LrcOracle o = new LrcOracle(code, k, l, g);
          for (int t = 0; t < 40; t++) {
            int lost = randomPattern(rnd, o.n, t % 2 == 0 ? l + g : 1 + rnd.nextInt(l + g + 1));
            String what = code.name() + " lost " + java.util.Arrays.toString(LrcOracle.units(lost));
            boolean byTopology = o.decodableByMatching(lost);
            assertEquals(byTopology, o.decodableByRank(lost), what);
            assertEquals(byTopology, code.decodable(LrcOracle.units(lost)), what);
          }
        }
      }
    }
    assertEquals(264, sets);
  }

  @Test
  void seededParameterSetsAreMaximallyRecoverableForEveryPattern() {
    for (LrcCode.Params p : LrcCoefficients.SEEDS.keySet()) {
      LrcCode code = new LrcCode(p, RegionCoders.java());
      LrcOracle o = new LrcOracle(code, p.k(), p.l(), p.g());
      int decodable = 0;
      for (int lost = 0; lost < 1 << o.n; lost++) {
        boolean byTopology = o.decodableByMatching(lost);
        assertEquals(byTopology, o.decodableByRank(lost), p + " lost " + lost);
        decodable += byTopology ? 1 : 0;
      }
      assertTrue(decodable > 0);
    }
  }

  @Test
  void oneLocalGroupIsAnMdsCode() {
    // LRC(k,1,g) is [1; Cauchy]: any k of the k+1+g units decode
    LrcCode code = new LrcCode(8, 1, 7, RegionCoders.java());
    LrcOracle o = new LrcOracle(code, 8, 1, 7);
    for (int lost = 0; lost < 1 << o.n; lost++) {
      assertEquals(Integer.bitCount(lost) <= 8, o.decodableByRank(lost));
    }
  }

  private static int randomPattern(Random rnd, int n, int size) {
    int mask = 0;
    while (Integer.bitCount(mask) < Math.min(size, n)) {
      mask |= 1 << rnd.nextInt(n);
    }
    return mask;
  }
}
