package io.ecrepair.gf;

import java.nio.ByteBuffer;

/**
 * The pure-Java fallback: table lookups on heap arrays. Direct buffers are processed through
 * a small heap window so the inner loop always runs on arrays.
 */
public final class JavaRegionCoder implements RegionCoder {
  private static final int WINDOW = 16 * 1024;

  @Override
  public String name() {
    return "java";
  }

  @Override
  public CodingTables prepare(GFMatrix matrix) {
    return new CodingTables(matrix, null);
  }

  @Override
  public void encode(CodingTables tables, ByteBuffer[] in, int[] inOff,
                     ByteBuffer[] out, int[] outOff, int len, boolean accumulate) {
    Regions.check(tables, in, inOff, out, outOff, len);
    GFMatrix m = tables.matrix();
    if (Regions.allHeap(in) && Regions.allHeap(out)) {
      encodeArrays(m, in, inOff, out, outOff, 0, len, accumulate);
      return;
    }
    // Stage through heap windows.
    ByteBuffer[] hin = new ByteBuffer[in.length];
    ByteBuffer[] hout = new ByteBuffer[out.length];
    for (int j = 0; j < in.length; j++) {
      hin[j] = ByteBuffer.allocate(Math.min(WINDOW, len));
    }
    for (int r = 0; r < out.length; r++) {
      hout[r] = ByteBuffer.allocate(Math.min(WINDOW, len));
    }
    int[] zero = new int[Math.max(in.length, out.length)];
    for (int done = 0; done < len; done += WINDOW) {
      int n = Math.min(WINDOW, len - done);
      for (int j = 0; j < in.length; j++) {
        in[j].get(inOff[j] + done, hin[j].array(), 0, n);
      }
      if (accumulate) {
        for (int r = 0; r < out.length; r++) {
          out[r].get(outOff[r] + done, hout[r].array(), 0, n);
        }
      }
      encodeArrays(m, hin, zero, hout, zero, 0, n, accumulate);
      for (int r = 0; r < out.length; r++) {
        out[r].put(outOff[r] + done, hout[r].array(), 0, n);
      }
    }
  }

  private static void encodeArrays(GFMatrix m, ByteBuffer[] in, int[] inOff, ByteBuffer[] out,
                                   int[] outOff, int from, int len, boolean accumulate) {
    for (int r = 0; r < out.length; r++) {
      byte[] dst = out[r].array();
      int d0 = out[r].arrayOffset() + outOff[r] + from;
      boolean first = !accumulate;
      for (int j = 0; j < in.length; j++) {
        byte c = m.get(r, j);
        if (c == 0) {
          continue;
        }
        byte[] src = in[j].array();
        int s0 = in[j].arrayOffset() + inOff[j] + from;
        if (first) {
          mulInto(GF256.mulRow(c), src, s0, dst, d0, len);
          first = false;
        } else {
          mulAddInto(GF256.mulRow(c), src, s0, dst, d0, len);
        }
      }
      if (first) {
        java.util.Arrays.fill(dst, d0, d0 + len, (byte) 0);
      }
    }
  }

  private static void mulInto(byte[] row, byte[] src, int s, byte[] dst, int d, int len) {
    for (int i = 0; i < len; i++) {
      dst[d + i] = row[src[s + i] & 0xFF];
    }
  }

  private static void mulAddInto(byte[] row, byte[] src, int s, byte[] dst, int d, int len) {
    for (int i = 0; i < len; i++) {
      dst[d + i] ^= row[src[s + i] & 0xFF];
    }
  }

  @Override
  public void run(LinearProgram program, ByteBuffer[] buffers, int[] bases, int unitBytes) {
    ProgramSteps.run(this, program, program.javaTables(this), buffers, bases, unitBytes);
  }

  @Override
  public void multiply(byte c, ByteBuffer src, int srcOff, ByteBuffer dst, int dstOff, int len) {
    encode(prepare(new GFMatrix(1, 1, new byte[] {c})), new ByteBuffer[] {src}, new int[] {srcOff},
        new ByteBuffer[] {dst}, new int[] {dstOff}, len, false);
  }

  @Override
  public void xor(ByteBuffer src, int srcOff, ByteBuffer dst, int dstOff, int len) {
    encode(prepare(new GFMatrix(1, 1, new byte[] {1})), new ByteBuffer[] {src}, new int[] {srcOff},
        new ByteBuffer[] {dst}, new int[] {dstOff}, len, true);
  }
}
