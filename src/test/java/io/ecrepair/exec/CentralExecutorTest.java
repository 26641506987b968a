package io.ecrepair.exec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.UndecodableException;
import io.ecrepair.codes.rs.ReedSolomonCode;
import io.ecrepair.ecdag.Ecdag;
import io.ecrepair.gf.RegionCoders;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class CentralExecutorTest {

  @Test
  void rsRepairGraphsRebuildEveryPatternUpToM() {
    int k = 4;
    int m = 3;
    int len = 1000;
    ReedSolomonCode code = new ReedSolomonCode(k, m, RegionCoders.best());
    Random rnd = new Random(11);
    ByteBuffer[] units = new ByteBuffer[k + m];
    for (int i = 0; i < k + m; i++) {
      units[i] = ByteBuffer.allocate(len);
    }
    for (int i = 0; i < k; i++) {
      byte[] b = new byte[len];
      rnd.nextBytes(b);
      units[i].put(0, b);
    }
    code.encode(java.util.Arrays.copyOf(units, k), new int[k], java.util.Arrays.copyOfRange(units, k, k + m), new int[m], len);
    CentralExecutor exec = new CentralExecutor(RegionCoders.best());
    for (int mask = 1; mask < 1 << (k + m); mask++) {
      if (Integer.bitCount(mask) > m) {
        continue;
      }
      final int lostMask = mask;
      int[] lost = IntStream.range(0, k + m).filter(i -> (lostMask & 1 << i) != 0).toArray();
      int[] available = IntStream.range(0, k + m).filter(i -> (lostMask & 1 << i) == 0).toArray();
      Ecdag g = code.repairGraph(lost, available);
      assertEquals(k, g.leaves().size(), "RS reads exactly k units");
      List<Integer> read = new ArrayList<>();
      Map<CentralExecutor.Key, ByteBuffer> out = exec.run(g, (block, sub) -> {
        read.add(block);
        return new CentralExecutor.Region(units[block], 0);
      }, len);
      for (int l : lost) {
        byte[] expected = new byte[len];
        units[l].get(0, expected);
        byte[] got = new byte[len];
        out.get(new CentralExecutor.Key(l, 0)).get(0, got);
        assertArrayEquals(expected, got, "lost " + java.util.Arrays.toString(lost) + ", unit " + l);
      }
      read.forEach(b -> assertTrue(java.util.Arrays.binarySearch(lost, b) < 0, "read a lost unit"));
    }
    assertThrows(UndecodableException.class, () -> code.repairGraph(new int[] {0, 1, 2, 3}, new int[] {4, 5, 6}));
  }

  @Test
  void graphBuilderKeepsGraphsWellFormed() {
    Ecdag.Builder b = Ecdag.builder(2);
    int a = b.leaf(0, 0);
    assertEquals(a, b.leaf(0, 0), "a stored sub-chunk is one vertex");
    int c = b.leaf(1, 1);
    assertEquals(a, b.combine(new int[] {a}, new int[] {1}), "a copy is not a vertex");
    int x = b.combine(new int[] {a, c, a}, new int[] {3, 0, 4}); // a*(3^4) = a*7, c dropped
    assertThrows(IllegalArgumentException.class, () -> b.leaf(0, 2));
    assertThrows(IllegalArgumentException.class, () -> b.combine(new int[] {a}, new int[] {0}));
    assertThrows(IllegalArgumentException.class, () -> b.combine(new int[] {99}, new int[] {1}));
    b.repaired(2, 0, new int[] {x, c}, new int[] {1, 5});
    assertThrows(IllegalArgumentException.class, () -> b.repaired(2, 0, new int[] {x}, new int[] {1}));
    Ecdag g = b.build();
    assertEquals(1, g.inputs(x).size());
    assertEquals(7, g.inputs(x).get(0).coef());
    assertEquals(Ecdag.Kind.ROOT, g.root().kind());
    for (Ecdag.Edge e : g.edges()) {
      assertEquals(true, e.from() < e.to(), "ids are topological");
    }
  }
}
