package io.ecrepair.codes.lrc;

import io.ecrepair.gf.GFMatrix;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.stream.IntStream;

/**
 * What the tests compare the code with, built without the code's own tables: the generator as
 * the encoder actually applies it (read off by encoding unit vectors), ranks by
 * {@link GFMatrix#rank}, and the topology condition by a textbook bipartite matching.
 */
final class LrcOracle {
  final int k;
  final int l;
  final int g;
  final int n;
  final int r;
  /** n x k rows as the encoder produces them. */
  final GFMatrix generator;

  LrcOracle(LrcCode code, int k, int l, int g) {
    this.k = k;
    this.l = l;
    this.g = g;
    this.n = k + l + g;
    this.r = (k + l - 1) / l;
    this.generator = encodedGenerator(code, k, l + g);
  }

  /** Column i of the parity rows = parity bytes when data i is the byte 1 and the rest 0. */
  static GFMatrix encodedGenerator(LrcCode code, int k, int m) {
    byte[] e = new byte[(k + m) * k];
    for (int i = 0; i < k; i++) {
      e[i * k + i] = 1;
      ByteBuffer[] data = new ByteBuffer[k];
      for (int d = 0; d < k; d++) {
        data[d] = ByteBuffer.wrap(new byte[] {(byte) (d == i ? 1 : 0)});
      }
      ByteBuffer[] parity = new ByteBuffer[m];
      for (int p = 0; p < m; p++) {
        parity[p] = ByteBuffer.allocate(1);
      }
      code.encode(data, new int[k], parity, new int[m], 1);
      for (int p = 0; p < m; p++) {
        e[(k + p) * k + i] = parity[p].get(0);
      }
    }
    return new GFMatrix(k + m, k, e);
  }

  /** Group of data unit i: consecutive runs of ceil(k/l). */
  int group(int dataUnit) {
    return dataUnit / r;
  }

  int groupSize(int j) {
    return Math.min(k, (j + 1) * r) - j * r;
  }

  int rank(int[] units) {
    return units.length == 0 ? 0 : generator.selectRows(units).rank();
  }

  /** The rows of {@code read} span the rows of {@code wanted}. */
  boolean determines(int[] read, int[] wanted) {
    int[] both = IntStream.concat(Arrays.stream(read), Arrays.stream(wanted)).distinct().toArray();
    return rank(both) == rank(read);
  }

  /** Every unit is recoverable iff the survivors have rank k. */
  boolean decodableByRank(int lostMask) {
    return rank(complement(lostMask)) == k;
  }

  /**
   * The topology condition: lost data units can be matched to distinct surviving parities,
   * local parity j taking only data of group j, a global parity any (Kuhn's augmenting paths).
   */
  boolean decodableByMatching(int lostMask) {
    int[] lostData = IntStream.range(0, k).filter(i -> (lostMask >> i & 1) != 0).toArray();
    int[] parities = IntStream.range(k, n).filter(p -> (lostMask >> p & 1) == 0).toArray();
    int[] matchOfParity = new int[parities.length];
    Arrays.fill(matchOfParity, -1);
    for (int d = 0; d < lostData.length; d++) {
      if (!augment(d, lostData, parities, matchOfParity, new boolean[parities.length])) {
        return false;
      }
    }
    return true;
  }

  private boolean covers(int parityUnit, int dataUnit) {
    return parityUnit >= k + l || parityUnit - k == group(dataUnit);
  }

  private boolean augment(int d, int[] lostData, int[] parities, int[] matchOfParity, boolean[] seen) {
    for (int p = 0; p < parities.length; p++) {
      if (!seen[p] && covers(parities[p], lostData[d])) {
        seen[p] = true;
        if (matchOfParity[p] < 0 || augment(matchOfParity[p], lostData, parities, matchOfParity, seen)) {
          matchOfParity[p] = d;
          return true;
        }
      }
    }
    return false;
  }

  int[] complement(int mask) {
    return IntStream.range(0, n).filter(u -> (mask >> u & 1) == 0).toArray();
  }

  static int[] units(int mask) {
    return IntStream.range(0, 32).filter(u -> (mask >> u & 1) != 0).toArray();
  }

  static int mask(int[] units) {
    int m = 0;
    for (int u : units) {
      m |= 1 << u;
    }
    return m;
  }
}
