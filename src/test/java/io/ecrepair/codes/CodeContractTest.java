package io.ecrepair.codes;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.lrc.LrcCode;
import io.ecrepair.exec.CellRowRepair;
import io.ecrepair.gf.RegionCoder;
import io.ecrepair.gf.RegionCoders;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.IntToDoubleFunction;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What every shipped code promises, checked the same way for each family at small parameters
 * (after Hadoop's TestRawCoderBase): on random data, encode gives the same parity with the Java
 * and the ISA-L coder, in heap (sliced) and direct buffers at non-zero offsets, never moving a
 * buffer's position or limit; every erasure pattern of up to m+1 units is either rebuilt exactly
 * (by decode and by the repair plan HDFS runs, both coders) or refused with
 * UndecodableException, never answered with wrong bytes, and the patterns a code must survive
 * are not refused; a single lost unit's repair plan reads at most the code's repair bandwidth
 * and nothing outside the ranges it names.
 */
class CodeContractTest {
  private static final List<RegionCoder> CODERS = new ArrayList<>();

  /**
   * One code and the most a single lost unit's repair may read, in units (cells), by unit
   * index: the construction's bound, written out here rather than asked of the code.
   */
  record Case(CodeSpec spec, IntToDoubleFunction repairBound) {
    @Override
    public String toString() {
      return spec.codec() + "(k=" + spec.k() + ",m=" + spec.m() + ")";
    }
  }

  static Stream<Case> codes() {
    return Stream.of(
        rs(4, 2), rs(6, 3),
        clay("clay", 4, 2, 5), // q = 2, alpha = 8
        clay("clay", 3, 2, 4), // one virtual node
        clay("clay", 4, 3, 6), // q = 3, two virtual nodes, alpha = 27
        clay("clay-d4", 3, 3, 4), // d < n-1
        clay("clay-d5", 4, 3, 5), // d < n-1 with a virtual node, alpha = 16
        butterfly(3), butterfly(4),
        lrc(4, 2, 1), lrc(6, 2, 2), lrc(7, 3, 1)); // the last: a smaller last group
  }

  /** RS: any unit from k whole units. */
  static Case rs(int k, int m) {
    return new Case(new CodeSpec("rs", k, m), u -> k);
  }

  /** Clay (MSR): any unit from d helpers sending 1/q of a unit each, q = d - k + 1. */
  static Case clay(String codec, int k, int m, int d) {
    return new Case(new CodeSpec(codec, k, m), u -> (double) d / (d - k + 1));
  }

  /** Butterfly: a data unit or H from k+1 helpers sending half a unit each; B is re-encoded from the k data units. */
  static Case butterfly(int k) {
    return new Case(new CodeSpec("butterfly", k, 2), u -> u == k + 1 ? k : (k + 1) / 2.0);
  }

  /** Azure-LRC: a data unit or a local parity from its group; a global parity from the k data units. */
  static Case lrc(int k, int l, int g) {
    int r = (k + l - 1) / l;
    IntToDoubleFunction groupSize = j -> Math.min(k, (j + 1) * r) - j * r;
    return new Case(new CodeSpec(LrcCode.CODEC_PREFIX + l, k, l + g),
        u -> u < k ? groupSize.applyAsDouble(u / r) : u < k + l ? groupSize.applyAsDouble(u - k) : k);
  }

  @BeforeAll
  static void coders() {
    RegionCoders.requireNativeIfConfigured();
    CODERS.clear();
    CODERS.add(RegionCoders.java());
    if (RegionCoders.nativeAvailable()) {
      CODERS.add(RegionCoders.isal());
    }
  }

  /** Cell lengths: whole sub-chunks; sub-chunks and a tail; for a vector code, a tail only. */
  static int[] lengths(int alpha) {
    return alpha == 1 ? new int[] {1, 257} : new int[] {3 * alpha, 2 * alpha + alpha / 2 + 1, alpha - 1};
  }

  // ------------------------------------------------------------------ encode

  @ParameterizedTest(name = "{0}")
  @MethodSource("codes")
  void encodeGivesTheSameParityWithEveryCoderAndBuffer(Case c) {
    CodeSpec spec = c.spec();
    int k = spec.k();
    int n = spec.n();
    Random rnd = new Random(c.toString().hashCode());
    for (int len : lengths(spec.subPacketization())) {
      byte[][] data = randomUnits(k, len, rnd);
      // plain heap buffers, offsets 0, the Java coder
      byte[][] reference = Arrays.copyOfRange(withParity(spec.create(RegionCoders.java()), data), k, n);
      for (RegionCoder coder : CODERS) {
        ErasureCode code = spec.create(coder);
        for (boolean direct : new boolean[] {false, true}) {
          Placed[] in = new Placed[k];
          for (int i = 0; i < k; i++) {
            in[i] = Placed.of(data[i], direct, rnd);
          }
          Placed[] out = new Placed[n - k];
          for (int i = 0; i < out.length; i++) {
            out[i] = Placed.junk(len, direct, rnd); // parity must be overwritten, not accumulated
          }
          code.encode(Placed.buffers(in), Placed.offsets(in), Placed.buffers(out), Placed.offsets(out), len);
          String where = code.name() + " " + coder.name() + (direct ? " direct" : " heap") + " len " + len;
          for (int i = 0; i < k; i++) {
            in[i].assertHolds(data[i], where + " data unit " + i + " unchanged");
          }
          byte[][] parity = new byte[n - k][];
          for (int i = 0; i < out.length; i++) {
            out[i].assertUnmoved(where);
            parity[i] = out[i].bytes(len);
          }
          for (int i = 0; i < parity.length; i++) {
            assertArrayEquals(reference[i], parity[i], where + ": parity " + (k + i) + " differs");
          }
        }
      }
    }
  }

  // ------------------------------------------------------------------ decode and repair plans

  @ParameterizedTest(name = "{0}")
  @MethodSource("codes")
  void everyPatternUpToMPlusOneIsRebuiltExactlyOrRefused(Case c) {
    CodeSpec spec = c.spec();
    int n = spec.n();
    int m = spec.m();
    boolean mds = spec.faultTolerance() == m;
    RepairableCode[] codes = CODERS.stream().map(spec::create).toArray(RepairableCode[]::new);
    Random rnd = new Random(c.toString().hashCode() * 31L);
    int[] lens = lengths(spec.subPacketization());
    byte[][][] stripes = new byte[lens.length][][];
    for (int i = 0; i < lens.length; i++) {
      stripes[i] = encoded(codes[0], lens[i], rnd);
    }
    int decodable = 0;
    int refused = 0;
    int index = 0;
    for (int[] lost : patterns(n, m + 1)) {
      index++;
      int[] available = complement(n, lost);
      boolean can = codes[0].decodable(lost);
      String what = codes[0].name() + " lost " + Arrays.toString(lost);
      if (lost.length <= spec.faultTolerance()) {
        assertTrue(can, what + ": within the fault tolerance " + spec.faultTolerance());
      }
      if (lost.length > m) {
        assertFalse(can, what + ": fewer than k units left");
      } else if (mds) {
        assertTrue(can, what + ": an MDS code decodes every pattern of up to m");
      }
      if (!can) {
        refused++;
        for (int ci = 0; ci < codes.length; ci++) {
          RepairableCode code = codes[ci];
          byte[][] units = stripes[0];
          boolean direct = (index + ci) % 2 == 0;
          assertThrows(UndecodableException.class, () -> decode(code, units, lost, lost, direct, rnd), what);
        }
        assertThrows(UndecodableException.class, () -> CellRowRepair.plan(codes[0], lost, available), what);
        continue;
      }
      decodable++;
      CellRowRepair plan = CellRowRepair.plan(codes[0], lost, available);
      assertArrayEquals(lost, plan.lost(), what);
      for (int h : plan.helpers()) {
        assertTrue(Arrays.binarySearch(lost, h) < 0, what + ": the plan reads lost unit " + h);
      }
      int[] last = {lost[lost.length - 1]};
      for (int li = 0; li < lens.length; li++) {
        byte[][] units = stripes[li];
        for (int ci = 0; ci < codes.length; ci++) {
          RegionCoder coder = CODERS.get(ci);
          boolean direct = (index + li + ci) % 2 == 0;
          String where = what + " " + coder.name() + (direct ? " direct" : " heap") + " len " + lens[li];
          assertRebuilt(units, lost, decode(codes[ci], units, lost, lost, direct, rnd), where + " decode");
          assertRebuilt(units, last, decode(codes[ci], units, lost, last, direct, rnd), where + " decode of the last only");
          assertRebuilt(units, lost, runMasked(plan, coder, units, lost, rnd), where + " repair plan");
        }
      }
    }
    assertTrue(decodable > n && (refused > 0), "patterns decoded " + decodable + ", refused " + refused);
  }

  // ------------------------------------------------------------------ single-unit repair bandwidth

  @ParameterizedTest(name = "{0}")
  @MethodSource("codes")
  void aLostUnitIsRepairedWithinTheCodesBandwidth(Case c) {
    CodeSpec spec = c.spec();
    int n = spec.n();
    int alpha = spec.subPacketization();
    RepairableCode code = spec.create(CODERS.get(0));
    Random rnd = new Random(c.toString().hashCode() * 17L);
    int whole = alpha * 64; // whole sub-chunks: the tail, read from k units byte-wise, is not the code's bound
    byte[][] units = encoded(code, whole, rnd);
    byte[][] withTail = encoded(code, alpha * 5 + 3, rnd);
    double worstData = 0;
    for (int u = 0; u < n; u++) {
      int[] lost = {u};
      CellRowRepair plan = CellRowRepair.plan(code, lost, complement(n, lost));
      double bound = c.repairBound().applyAsDouble(u);
      long read = plan.bytesPerRow(whole);
      String what = code.name() + " unit " + u;
      assertTrue(read <= bound * whole + 1e-9, what + " reads " + read + " bytes of cells of " + whole
          + ", more than " + bound + " cells");
      assertTrue(read <= (long) spec.k() * whole, what + ": a repair never reads more than a decode");
      if (u < spec.k()) {
        worstData = Math.max(worstData, bound);
      }
      for (RegionCoder coder : CODERS) {
        assertRebuilt(units, lost, runMasked(plan, coder, units, lost, rnd), what + " " + coder.name());
        assertRebuilt(withTail, lost, runMasked(plan, coder, withTail, lost, rnd), what + " with a tail, " + coder.name());
      }
    }
    // what the codec advertises (ec-repair info, the planner) is this bound for a lost data unit
    assertEquals(worstData, spec.repairBlocksPerLostBlock(), 1e-9, code.name());
  }

  // ------------------------------------------------------------------ stripes

  private static byte[][] randomUnits(int count, int len, Random rnd) {
    byte[][] u = new byte[count][len];
    for (byte[] b : u) {
      rnd.nextBytes(b);
    }
    return u;
  }

  /** n units of len bytes: random data, parity from the code. */
  private static byte[][] encoded(ErasureCode code, int len, Random rnd) {
    return withParity(code, randomUnits(code.dataUnits(), len, rnd));
  }

  /** The k data units followed by the parity the code computes from them. */
  private static byte[][] withParity(ErasureCode code, byte[][] data) {
    int k = code.dataUnits();
    int n = code.totalUnits();
    int len = data[0].length;
    byte[][] units = Arrays.copyOf(data, n);
    ByteBuffer[] in = new ByteBuffer[k];
    for (int i = 0; i < k; i++) {
      in[i] = ByteBuffer.wrap(units[i]);
    }
    ByteBuffer[] parity = new ByteBuffer[n - k];
    for (int i = 0; i < parity.length; i++) {
      units[k + i] = new byte[len];
      parity[i] = ByteBuffer.wrap(units[k + i]);
    }
    code.encode(in, new int[k], parity, new int[n - k], len);
    return units;
  }

  /** Decodes {@code wanted} with the units of {@code lost} missing; returns the rebuilt bytes. */
  private static byte[][] decode(ErasureCode code, byte[][] units, int[] lost, int[] wanted, boolean direct,
                                 Random rnd) {
    int n = units.length;
    int len = units[0].length;
    Placed[] in = new Placed[n];
    ByteBuffer[] view = new ByteBuffer[n];
    int[] off = new int[n];
    for (int u = 0; u < n; u++) {
      if (Arrays.binarySearch(lost, u) < 0) {
        in[u] = Placed.of(units[u], direct, rnd);
        view[u] = in[u].buffer;
        off[u] = in[u].offset;
      }
    }
    Placed[] out = new Placed[wanted.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = Placed.junk(len, direct, rnd);
    }
    code.decode(view, off, wanted, Placed.buffers(out), Placed.offsets(out), len);
    for (int u = 0; u < n; u++) {
      if (in[u] != null) {
        in[u].assertHolds(units[u], code.name() + ": available unit " + u + " unchanged by decode");
      }
    }
    byte[][] got = new byte[out.length][];
    for (int i = 0; i < out.length; i++) {
      out[i].assertUnmoved(code.name() + " decode output");
      got[i] = out[i].bytes(len);
    }
    return got;
  }

  /**
   * Runs a repair plan over cells that hold random bytes everywhere but in the ranges the plan
   * names (lost units' cells too): a plan that reads anything else gives wrong bytes.
   */
  private static byte[][] runMasked(CellRowRepair plan, RegionCoder coder, byte[][] units, int[] lost, Random rnd) {
    int len = units[0].length;
    ByteBuffer[] cells = new ByteBuffer[units.length];
    for (int u = 0; u < units.length; u++) {
      byte[] cell = new byte[len];
      rnd.nextBytes(cell);
      if (Arrays.binarySearch(lost, u) < 0) {
        for (int[] r : plan.ranges(u, len)) {
          System.arraycopy(units[u], r[0], cell, r[0], r[1]);
        }
      }
      cells[u] = ByteBuffer.wrap(cell);
    }
    ByteBuffer[] out = new ByteBuffer[lost.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = ByteBuffer.allocateDirect(len);
    }
    plan.run(coder, cells, out, len);
    byte[][] got = new byte[lost.length][len];
    for (int i = 0; i < out.length; i++) {
      out[i].get(0, got[i]);
    }
    return got;
  }

  private static void assertRebuilt(byte[][] units, int[] wanted, byte[][] got, String what) {
    assertEquals(wanted.length, got.length, what);
    for (int i = 0; i < wanted.length; i++) {
      assertArrayEquals(units[wanted[i]], got[i], what + ": unit " + wanted[i]);
    }
  }

  /** Every set of 1..max of the n units, each sorted. */
  static List<int[]> patterns(int n, int max) {
    List<int[]> out = new ArrayList<>();
    for (int mask = 1; mask < 1 << n; mask++) {
      if (Integer.bitCount(mask) <= max) {
        int mm = mask;
        out.add(IntStream.range(0, n).filter(i -> (mm >> i & 1) != 0).toArray());
      }
    }
    return out;
  }

  static int[] complement(int n, int[] lost) {
    return IntStream.range(0, n).filter(u -> Arrays.binarySearch(lost, u) < 0).toArray();
  }

  /**
   * A unit's bytes at a random non-zero offset of a heap buffer that is itself a slice of a
   * larger array (a non-zero array offset) or of a direct buffer, with a non-zero position the
   * code must neither use nor move.
   */
  static final class Placed {
    final ByteBuffer buffer;
    final int offset;
    final int position;
    final int limit;

    private Placed(ByteBuffer buffer, int offset, Random rnd) {
      this.buffer = buffer;
      this.offset = offset;
      this.position = 1 + rnd.nextInt(buffer.capacity());
      this.limit = buffer.capacity();
      buffer.limit(limit).position(position);
    }

    static Placed of(byte[] content, boolean direct, Random rnd) {
      Placed p = junk(content.length, direct, rnd);
      p.buffer.put(p.offset, content);
      return p;
    }

    static Placed junk(int len, boolean direct, Random rnd) {
      int offset = 1 + rnd.nextInt(13);
      int capacity = offset + len + 1 + rnd.nextInt(5);
      ByteBuffer b;
      if (direct) {
        b = ByteBuffer.allocateDirect(capacity);
      } else {
        int lead = 1 + rnd.nextInt(7);
        b = ByteBuffer.wrap(new byte[lead + capacity], lead, capacity).slice();
        assertTrue(b.arrayOffset() > 0);
      }
      byte[] junk = new byte[capacity];
      rnd.nextBytes(junk);
      b.put(0, junk);
      return new Placed(b, offset, rnd);
    }

    byte[] bytes(int len) {
      byte[] x = new byte[len];
      buffer.get(offset, x);
      return x;
    }

    void assertUnmoved(String what) {
      assertEquals(position, buffer.position(), what + ": position moved");
      assertEquals(limit, buffer.limit(), what + ": limit moved");
    }

    void assertHolds(byte[] content, String what) {
      assertUnmoved(what);
      assertArrayEquals(content, bytes(content.length), what);
    }

    static ByteBuffer[] buffers(Placed[] p) {
      return Arrays.stream(p).map(x -> x.buffer).toArray(ByteBuffer[]::new);
    }

    static int[] offsets(Placed[] p) {
      return Arrays.stream(p).mapToInt(x -> x.offset).toArray();
    }
  }

  /** A codec added to {@link Codecs} without a case here fails this. */
  @Test
  void everyFamilyHasACase() {
    String covered = codes().map(c -> c.spec().family().namePattern()).distinct()
        .collect(java.util.stream.Collectors.joining(", "));
    assertEquals(Codecs.knownNames(), covered);
  }
}
