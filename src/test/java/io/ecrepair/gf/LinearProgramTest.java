package io.ecrepair.gf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LinearProgramTest {

  /** A random program over 3 input buffers and 1 work buffer; later steps read earlier outputs. */
  private static LinearProgram randomProgram(Random rnd, int steps) {
    List<LinearProgram.Step> s = new ArrayList<>();
    List<LinearProgram.Ref> written = new ArrayList<>();
    for (int b = 0; b < 3; b++) {
      for (int u = 0; u < 4; u++) {
        written.add(new LinearProgram.Ref(b, u));
      }
    }
    int nextWork = 0;
    for (int i = 0; i < steps; i++) {
      int k = 1 + rnd.nextInt(5);
      int rows = 1 + rnd.nextInt(3);
      List<LinearProgram.Ref> in = new ArrayList<>();
      for (int j = 0; j < k; j++) {
        in.add(written.get(rnd.nextInt(written.size())));
      }
      int width = 1 + rnd.nextInt(3);
      for (int j = 0; j < in.size(); j++) {
        LinearProgram.Ref r = in.get(j);
        if (r.buffer() < 3 && r.unit() + width > 4) { // inputs stay inside the written units
          in.set(j, new LinearProgram.Ref(r.buffer(), 4 - width));
        } else if (r.buffer() == 3 && r.unit() + width > nextWork) {
          in.set(j, new LinearProgram.Ref(0, 0));
        }
      }
      List<LinearProgram.Ref> out = new ArrayList<>();
      for (int r = 0; r < rows; r++) {
        out.add(new LinearProgram.Ref(3, nextWork));
        nextWork += width;
      }
      byte[] m = new byte[rows * k];
      rnd.nextBytes(m);
      s.add(new LinearProgram.Step(new GFMatrix(rows, k, m), in, out, width));
      written.addAll(out);
    }
    return new LinearProgram(4, s);
  }

  /** The definition, byte by byte. */
  private static void reference(LinearProgram p, byte[][] buf, int[] base, int unit) {
    for (LinearProgram.Step s : p.steps()) {
      int len = s.width() * unit;
      byte[][] result = new byte[s.outputs().size()][len];
      for (int r = 0; r < result.length; r++) {
        for (int i = 0; i < len; i++) {
          int acc = 0;
          for (int j = 0; j < s.inputs().size(); j++) {
            LinearProgram.Ref in = s.inputs().get(j);
            acc ^= GF256.mul(s.matrix().get(r, j) & 0xFF, buf[in.buffer()][base[in.buffer()] + in.unit() * unit + i] & 0xFF);
          }
          result[r][i] = (byte) acc;
        }
      }
      for (int r = 0; r < result.length; r++) {
        LinearProgram.Ref o = s.outputs().get(r);
        System.arraycopy(result[r], 0, buf[o.buffer()], base[o.buffer()] + o.unit() * unit, len);
      }
    }
  }

  @Test
  void nativeAndJavaRunsMatchTheDefinition() {
    Random rnd = new Random(21);
    List<RegionCoder> coders = new ArrayList<>(List.of(RegionCoders.java()));
    if (RegionCoders.nativeAvailable()) {
      coders.add(RegionCoders.isal());
    }
    for (int trial = 0; trial < 30; trial++) {
      LinearProgram p = randomProgram(rnd, 1 + rnd.nextInt(20));
      int unit = rnd.nextInt(200);
      int[] base = {rnd.nextInt(10), rnd.nextInt(10), rnd.nextInt(10), rnd.nextInt(10)};
      byte[][] expected = new byte[4][];
      for (int b = 0; b < 4; b++) {
        expected[b] = new byte[base[b] + 300 * Math.max(unit, 1)];
        if (b < 3) {
          rnd.nextBytes(expected[b]);
        }
      }
      byte[][] initial = new byte[4][];
      for (int b = 0; b < 4; b++) {
        initial[b] = expected[b].clone();
      }
      reference(p, expected, base, unit);
      for (RegionCoder coder : coders) {
        for (boolean direct : new boolean[] {true, false}) {
          ByteBuffer[] bufs = new ByteBuffer[4];
          for (int b = 0; b < 4; b++) {
            bufs[b] = direct ? ByteBuffer.allocateDirect(initial[b].length) : ByteBuffer.allocate(initial[b].length);
            bufs[b].put(0, initial[b]);
          }
          coder.run(p, bufs, base, unit);
          for (int b = 0; b < 4; b++) {
            byte[] got = new byte[initial[b].length];
            bufs[b].get(0, got);
            assertArrayEquals(expected[b], got, coder.name() + (direct ? " direct" : " heap") + " buffer " + b);
          }
        }
      }
    }
  }

  @Test
  void regionsOutsideTheBuffersAreRefused() {
    LinearProgram p = new LinearProgram(2, List.of(new LinearProgram.Step(GFMatrix.identity(1),
        List.of(new LinearProgram.Ref(0, 3)), List.of(new LinearProgram.Ref(1, 0)))));
    ByteBuffer small = ByteBuffer.allocateDirect(30);
    ByteBuffer out = ByteBuffer.allocateDirect(10);
    for (RegionCoder coder : RegionCoders.nativeAvailable()
        ? List.of(RegionCoders.java(), RegionCoders.isal()) : List.of(RegionCoders.java())) {
      assertThrows(IndexOutOfBoundsException.class, () -> coder.run(p, new ByteBuffer[] {small, out}, new int[2], 10));
      assertThrows(IllegalArgumentException.class, () -> coder.run(p, new ByteBuffer[] {null, out}, new int[2], 5));
    }
    assertThrows(IllegalArgumentException.class, () -> new LinearProgram(1, p.steps()));
  }
}
