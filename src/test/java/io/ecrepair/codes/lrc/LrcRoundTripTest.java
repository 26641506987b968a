package io.ecrepair.codes.lrc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.util.TreeSet;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random data through encode, erasure, decode and repair graphs, compared byte for byte with
 * the original units. Local parities are also checked against a XOR computed here.
 */
class LrcRoundTripTest {

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    int[][] params = {{12, 2, 2}, {10, 2, 2}, {12, 3, 1}, {6, 3, 1}, {7, 2, 2}, {6, 2, 2}};
    int i = 0;
    for (int[] p : params) {
      for (String coder : new String[] {"best", "java"}) {
        for (boolean direct : new boolean[] {false, true}) {
          int len = new int[] {1, 333, 4099, 1025}[i++ % 4];
          out.add(Arguments.of(p[0], p[1], p[2], coder, direct, len));
        }
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "LRC({0},{1},{2}) {3} direct={4} len={5}")
  @MethodSource("cases")
  void encodeLoseDecodeAndRepair(int k, int l, int g, String coderName, boolean direct, int len) {
    RegionCoder coder = coderName.equals("java") ? RegionCoders.java() : RegionCoders.best();
    LrcCode code = new LrcCode(k, l, g, coder);
    int n = k + l + g;
    int r = (k + l - 1) / l;
    Random rnd = new Random(31L * k + 7L * l + g + len);
    Stripe s = Stripe.encoded(code, n, k, len, direct, rnd);

    // local parity j is the XOR of its group, byte for byte
    for (int j = 0; j < l; j++) {
      byte[] x = new byte[len];
      for (int i = j * r; i < Math.min(k, (j + 1) * r); i++) {
        for (int b = 0; b < len; b++) {
          x[b] ^= s.original[i][b];
        }
      }
      assertArrayEquals(x, s.original[k + j], "local parity " + j);
    }

    CentralExecutor exec = new CentralExecutor(coder);
    int checked = 0;
    for (int lost = 1; lost < 1 << n; lost++) {
      int f = Integer.bitCount(lost);
      boolean sample = f <= 2 || (f <= l + g && Integer.remainderUnsigned(lost * 0x9E3779B1, 7) == 0);
      if (!sample) {
        continue;
      }
      int[] lostUnits = LrcOracle.units(lost);
      if (!code.decodable(lostUnits)) {
        assertTrue(f > g + 1, "LRC decodes any g+1 failures: " + Arrays.toString(lostUnits));
        assertThrows(UndecodableException.class, () -> s.decode(code, lostUnits, s.available(lostUnits)));
        continue;
      }
      int[] reads = code.cheapestReadSet(lostUnits).orElseThrow();
      if (f == 1) {
        int u = lostUnits[0];
        int expected = u < k ? groupSize(k, r, u / r) : u < k + l ? groupSize(k, r, u - k) : k;
        assertEquals(expected, reads.length, "read set for unit " + u + ": " + Arrays.toString(reads));
      }
      // decode sees every surviving unit but must read only the cheapest set: corrupt the rest
      s.assertRebuilt(lostUnits, s.decode(code, lostUnits, s.availableCorruptingAllBut(lostUnits, reads, rnd)));
      // decode with nothing but the read set (fewer than k units for local repairs)
      s.assertRebuilt(lostUnits, s.decode(code, lostUnits, s.only(reads)));

      Ecdag graph = code.repairGraph(lostUnits, s.survivors(lostUnits));
      TreeSet<Integer> leafBlocks = new TreeSet<>();
      graph.leaves().forEach(v -> {
        assertEquals(0, v.subchunk());
        leafBlocks.add(v.block());
      });
      assertArrayEquals(reads, leafBlocks.stream().mapToInt(Integer::intValue).toArray(), "graph leaves");
      assertEquals(f, graph.repaired().size());
      Map<CentralExecutor.Key, ByteBuffer> out = exec.run(graph,
          (block, sub) -> new CentralExecutor.Region(s.units[block], s.offsets[block]), len);
      ByteBuffer[] rebuilt = new ByteBuffer[f];
      for (int i = 0; i < f; i++) {
        rebuilt[i] = out.get(new CentralExecutor.Key(lostUnits[i], 0));
      }
      s.assertRebuilt(lostUnits, new Rebuilt(rebuilt, new int[f]));
      assertEquals(graph.repaired().size(), graph.inputs(graph.root().id()).size());
      checked++;
    }
    assertTrue(checked > n);
  }

  @Test
  void tailGraphIsTheRepairGraphAndUndecodableGraphsFail() {
    LrcCode code = new LrcCode(12, 2, 2, RegionCoders.best());
    int[] lost = {3};
    int[] available = IntStream.range(0, 16).filter(u -> u != 3).toArray();
    assertEquals(code.repairGraph(lost, available).edges(), code.tailRepairGraph(lost, available).edges());
    assertEquals(1, code.subPacketization());
    UndecodableException e = assertThrows(UndecodableException.class,
        () -> code.repairGraph(new int[] {0, 1, 2, 3}, IntStream.range(4, 16).toArray()));
    assertTrue(e.getMessage().contains("LRC(12,2,2)"), e.getMessage());
    // one data unit, but only part of its group and no global parity available
    assertThrows(UndecodableException.class, () -> code.repairGraph(new int[] {0}, new int[] {1, 2, 3, 4, 12, 13}));
    assertThrows(IllegalArgumentException.class, () -> code.repairGraph(new int[] {0}, new int[] {0, 1}));
    assertThrows(IllegalArgumentException.class, () -> code.repairGraph(new int[] {16}, new int[] {0}));
    assertThrows(IllegalArgumentException.class, () -> code.repairGraph(new int[0], new int[] {0}));
  }

  private static int groupSize(int k, int r, int j) {
    return Math.min(k, (j + 1) * r) - j * r;
  }

  /** Rebuilt units: buffer and offset. */
  record Rebuilt(ByteBuffer[] buffers, int[] offsets) {}

  /** One stripe: n units at random offsets inside heap or direct buffers, and their bytes. */
  static final class Stripe {
    final int len;
    final boolean direct;
    final ByteBuffer[] units;
    final int[] offsets;
    final byte[][] original;

    private Stripe(int n, int len, boolean direct, Random rnd) {
      this.len = len;
      this.direct = direct;
      this.units = new ByteBuffer[n];
      this.offsets = new int[n];
      this.original = new byte[n][];
      for (int u = 0; u < n; u++) {
        offsets[u] = rnd.nextInt(17);
        units[u] = allocate(offsets[u] + len + rnd.nextInt(5), direct);
      }
    }

    static Stripe encoded(LrcCode code, int n, int k, int len, boolean direct, Random rnd) {
      Stripe s = new Stripe(n, len, direct, rnd);
      for (int u = 0; u < n; u++) {
        byte[] junk = new byte[s.units[u].capacity()];
        rnd.nextBytes(junk);
        s.units[u].put(0, junk); // parity must be overwritten, not accumulated
      }
      code.encode(Arrays.copyOf(s.units, k), Arrays.copyOf(s.offsets, k),
          Arrays.copyOfRange(s.units, k, n), Arrays.copyOfRange(s.offsets, k, n), len);
      for (int u = 0; u < n; u++) {
        s.original[u] = new byte[len];
        s.units[u].get(s.offsets[u], s.original[u]);
      }
      return s;
    }

    ByteBuffer allocate(int size, boolean direct) {
      return direct ? ByteBuffer.allocateDirect(size) : ByteBuffer.allocate(size);
    }

    int[] survivors(int[] lost) {
      int mask = LrcOracle.mask(lost);
      return IntStream.range(0, units.length).filter(u -> (mask >> u & 1) == 0).toArray();
    }

    ByteBuffer[] available(int[] lost) {
      ByteBuffer[] a = units.clone();
      for (int u : lost) {
        a[u] = null;
      }
      return a;
    }

    /** Survivors outside {@code reads} replaced by random bytes of the same layout. */
    ByteBuffer[] availableCorruptingAllBut(int[] lost, int[] reads, Random rnd) {
      ByteBuffer[] a = available(lost);
      int keep = LrcOracle.mask(reads);
      for (int u = 0; u < a.length; u++) {
        if (a[u] != null && (keep >> u & 1) == 0) {
          byte[] junk = new byte[a[u].capacity()];
          rnd.nextBytes(junk);
          a[u] = allocate(junk.length, direct).put(0, junk);
        }
      }
      return a;
    }

    ByteBuffer[] only(int[] reads) {
      ByteBuffer[] a = new ByteBuffer[units.length];
      for (int u : reads) {
        a[u] = units[u];
      }
      return a;
    }

    Rebuilt decode(LrcCode code, int[] lost, ByteBuffer[] from) {
      ByteBuffer[] out = new ByteBuffer[lost.length];
      int[] outOff = new int[lost.length];
      for (int i = 0; i < lost.length; i++) {
        outOff[i] = 3 + i;
        out[i] = allocate(outOff[i] + len, direct);
      }
      code.decode(from, offsets, lost, out, outOff, len);
      return new Rebuilt(out, outOff);
    }

    void assertRebuilt(int[] lost, Rebuilt got) {
      for (int i = 0; i < lost.length; i++) {
        byte[] b = new byte[len];
        got.buffers()[i].get(got.offsets()[i], b);
        assertArrayEquals(original[lost[i]], b, "unit " + lost[i] + " of lost " + Arrays.toString(lost));
      }
    }
  }
}
