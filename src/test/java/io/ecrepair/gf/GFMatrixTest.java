package io.ecrepair.gf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Random;
import org.apache.hadoop.io.erasurecode.rawcoder.util.GF256;
import org.apache.hadoop.io.erasurecode.rawcoder.util.RSUtil;
import org.junit.jupiter.api.Test;

class GFMatrixTest {

  @Test
  void fieldMatchesHadoopGf256() {
    for (int a = 0; a < 256; a++) {
      for (int b = 0; b < 256; b++) {
        assertEquals(GF256.gfMul((byte) a, (byte) b), io.ecrepair.gf.GF256.mul((byte) a, (byte) b));
      }
      if (a > 0) {
        assertEquals(GF256.gfInv((byte) a), io.ecrepair.gf.GF256.inv((byte) a));
        assertEquals(1, io.ecrepair.gf.GF256.mul(a, io.ecrepair.gf.GF256.inv((byte) a) & 0xFF));
      }
    }
  }

  @Test
  void cauchyGeneratorMatchesHadoop() {
    for (int[] km : new int[][] {{3, 2}, {6, 3}, {10, 4}, {12, 4}, {1, 1}}) {
      int n = km[0] + km[1];
      byte[] hadoop = new byte[n * km[0]];
      RSUtil.genCauchyMatrix(hadoop, n, km[0]);
      assertEquals(new GFMatrix(n, km[0], hadoop), GFMatrix.systematicCauchy(n, km[0]));
    }
  }

  @Test
  void inverseTimesMatrixIsIdentity() {
    Random rnd = new Random(1);
    int tested = 0;
    while (tested < 50) {
      int n = 1 + rnd.nextInt(12);
      byte[] e = new byte[n * n];
      rnd.nextBytes(e);
      GFMatrix m = new GFMatrix(n, n, e);
      if (m.rank() < n) {
        assertThrows(SingularMatrixException.class, m::invert);
        continue;
      }
      assertEquals(GFMatrix.identity(n), m.multiply(m.invert()));
      assertEquals(GFMatrix.identity(n), m.invert().multiply(m));
      tested++;
    }
  }

  @Test
  void singularMatrixIsRefused() {
    GFMatrix m = new GFMatrix(2, 2, new byte[] {1, 2, 2, 4});
    assertEquals(1, m.rank());
    assertThrows(SingularMatrixException.class, m::invert);
  }

  @Test
  void everyKRowsOfTheGeneratorsAreIndependent() {
    // MDS: for small (n, k) check every k-subset of rows.
    for (GFMatrix g : new GFMatrix[] {GFMatrix.systematicCauchy(9, 6), GFMatrix.systematicVandermonde(9, 6),
        GFMatrix.systematicCauchy(7, 4), GFMatrix.systematicVandermonde(7, 4)}) {
      int n = g.rows();
      int k = g.cols();
      for (int mask = 0; mask < 1 << n; mask++) {
        if (Integer.bitCount(mask) != k) {
          continue;
        }
        int[] rows = new int[k];
        int c = 0;
        for (int i = 0; i < n; i++) {
          if ((mask & 1 << i) != 0) {
            rows[c++] = i;
          }
        }
        assertEquals(k, g.selectRows(rows).rank(), "rows " + java.util.Arrays.toString(rows));
      }
      assertEquals(GFMatrix.identity(k), g.selectRows(GFMatrix.range(k)));
    }
  }
}
