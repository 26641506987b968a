package io.ecrepair.gf;

import java.nio.ByteBuffer;

/** Argument checks and buffer-kind tests shared by the region coders. */
final class Regions {
  private Regions() {}

  static void check(CodingTables t, ByteBuffer[] in, int[] inOff, ByteBuffer[] out, int[] outOff, int len) {
    if (in.length != t.inputs() || inOff.length < in.length) {
      throw new IllegalArgumentException("matrix takes " + t.inputs() + " inputs, got " + in.length);
    }
    if (out.length != t.outputs() || outOff.length < out.length) {
      throw new IllegalArgumentException("matrix makes " + t.outputs() + " outputs, got " + out.length);
    }
    if (len < 0) {
      throw new IllegalArgumentException("negative length " + len);
    }
    for (int j = 0; j < in.length; j++) {
      checkRegion(in[j], inOff[j], len, "input " + j);
    }
    for (int r = 0; r < out.length; r++) {
      checkRegion(out[r], outOff[r], len, "output " + r);
      if (out[r].isReadOnly()) {
        throw new IllegalArgumentException("output " + r + " is read-only");
      }
    }
  }

  static void checkRegion(ByteBuffer b, int off, int len, String what) {
    if (b == null) {
      throw new IllegalArgumentException(what + " is null");
    }
    if (off < 0 || (long) off + len > b.capacity()) {
      throw new IndexOutOfBoundsException(
          what + ": region [" + off + ", " + ((long) off + len) + ") outside buffer of " + b.capacity());
    }
  }

  static boolean allHeap(ByteBuffer[] bs) {
    for (ByteBuffer b : bs) {
      if (!b.hasArray()) {
        return false;
      }
    }
    return true;
  }

  static boolean allDirect(ByteBuffer[] bs) {
    for (ByteBuffer b : bs) {
      if (!b.isDirect()) {
        return false;
      }
    }
    return true;
  }
}
