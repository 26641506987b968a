package io.ecrepair.gf;

import java.nio.ByteBuffer;

/** The ISA-L path: every region operation is one JNI call into ISA-L's SIMD kernels. */
final class NativeRegionCoder implements RegionCoder {
  private final CodingTables[] scalars = new CodingTables[256];

  @Override
  public String name() {
    return "native";
  }

  @Override
  public CodingTables prepare(GFMatrix matrix) {
    ByteBuffer tables = ByteBuffer.allocateDirect(32 * Math.max(1, matrix.rows() * matrix.cols()));
    if (matrix.rows() > 0 && matrix.cols() > 0) {
      IsalNative.initTables(matrix.cols(), matrix.rows(), matrix.toArray(), tables);
    }
    return new CodingTables(matrix, tables);
  }

  @Override
  public void encode(CodingTables t, ByteBuffer[] in, int[] inOff,
                     ByteBuffer[] out, int[] outOff, int len, boolean accumulate) {
    Regions.check(t, in, inOff, out, outOff, len);
    if (len == 0 || out.length == 0) {
      return;
    }
    if (in.length == 0) {
      if (!accumulate) {
        for (int r = 0; r < out.length; r++) {
          Buffers.zero(out[r], outOff[r], outOff[r] + len);
        }
      }
      return;
    }
    ByteBuffer tables = t.isalTables();
    if (tables == null) {
      tables = prepare(t.matrix()).isalTables();
    }
    if (Regions.allDirect(in) && Regions.allDirect(out)) {
      IsalNative.encodeDirect(tables, in.length, out.length, len, in, inOff, out, outOff, accumulate);
    } else if (Regions.allHeap(in) && Regions.allHeap(out)) {
      IsalNative.encodeArrays(tables, in.length, out.length, len,
          arrays(in), arrayOffsets(in, inOff), arrays(out), arrayOffsets(out, outOff), accumulate);
    } else {
      encodeMixed(tables, in, inOff, out, outOff, len, accumulate);
    }
  }

  /** Rare: some buffers heap, some direct. Stage the heap ones in direct copies. */
  private static void encodeMixed(ByteBuffer tables, ByteBuffer[] in, int[] inOff,
                                  ByteBuffer[] out, int[] outOff, int len, boolean accumulate) {
    ByteBuffer[] din = new ByteBuffer[in.length];
    int[] dinOff = new int[in.length];
    for (int j = 0; j < in.length; j++) {
      if (in[j].isDirect()) {
        din[j] = in[j];
        dinOff[j] = inOff[j];
      } else {
        din[j] = ByteBuffer.allocateDirect(len);
        din[j].put(0, in[j], inOff[j], len);
      }
    }
    ByteBuffer[] dout = new ByteBuffer[out.length];
    int[] doutOff = new int[out.length];
    for (int r = 0; r < out.length; r++) {
      if (out[r].isDirect()) {
        dout[r] = out[r];
        doutOff[r] = outOff[r];
      } else {
        dout[r] = ByteBuffer.allocateDirect(len);
        if (accumulate) {
          dout[r].put(0, out[r], outOff[r], len);
        }
      }
    }
    IsalNative.encodeDirect(tables, in.length, out.length, len, din, dinOff, dout, doutOff, accumulate);
    for (int r = 0; r < out.length; r++) {
      if (dout[r] != out[r]) {
        out[r].put(outOff[r], dout[r], 0, len);
      }
    }
  }

  @Override
  public void run(LinearProgram program, ByteBuffer[] buffers, int[] bases, int unitBytes) {
    program.checkBuffers(buffers, bases, unitBytes);
    if (unitBytes == 0 || program.steps().isEmpty()) {
      return;
    }
    for (ByteBuffer b : buffers) {
      if (b != null && !b.isDirect()) {
        // Heap buffers: one call per step through the general path.
        ProgramSteps.run(this, program, program.javaTables(this), buffers, bases, unitBytes);
        return;
      }
    }
    LinearProgram.NativeForm f = program.nativeForm(this);
    IsalNative.runProgram(f.tables(), f.code(), buffers, bases, unitBytes);
  }

  @Override
  public void multiply(byte c, ByteBuffer src, int srcOff, ByteBuffer dst, int dstOff, int len) {
    CodingTables t = scalars[c & 0xFF];
    if (t == null) {
      t = prepare(new GFMatrix(1, 1, new byte[] {c}));
      scalars[c & 0xFF] = t;
    }
    encode(t, new ByteBuffer[] {src}, new int[] {srcOff}, new ByteBuffer[] {dst}, new int[] {dstOff}, len, false);
  }

  @Override
  public void xor(ByteBuffer src, int srcOff, ByteBuffer dst, int dstOff, int len) {
    Regions.checkRegion(src, srcOff, len, "source");
    Regions.checkRegion(dst, dstOff, len, "destination");
    if (src.isDirect() && dst.isDirect()) {
      IsalNative.xorDirect(src, srcOff, dst, dstOff, len);
    } else if (src.hasArray() && dst.hasArray()) {
      IsalNative.xorArrays(src.array(), src.arrayOffset() + srcOff, dst.array(), dst.arrayOffset() + dstOff, len);
    } else {
      multiplyAccumulateOne(src, srcOff, dst, dstOff, len);
    }
  }

  private void multiplyAccumulateOne(ByteBuffer src, int srcOff, ByteBuffer dst, int dstOff, int len) {
    CodingTables one = prepare(new GFMatrix(1, 1, new byte[] {1}));
    encode(one, new ByteBuffer[] {src}, new int[] {srcOff}, new ByteBuffer[] {dst}, new int[] {dstOff}, len, true);
  }

  private static byte[][] arrays(ByteBuffer[] bs) {
    byte[][] a = new byte[bs.length][];
    for (int i = 0; i < bs.length; i++) {
      a[i] = bs[i].array();
    }
    return a;
  }

  private static int[] arrayOffsets(ByteBuffer[] bs, int[] off) {
    int[] o = new int[bs.length];
    for (int i = 0; i < bs.length; i++) {
      o[i] = bs[i].arrayOffset() + off[i];
    }
    return o;
  }
}
