package org.apache.hadoop.io.erasurecode.rawcoder;

import java.nio.ByteBuffer;

/** Wraps Hadoop's byte-array coding state for our buffer-based codes (no copies). */
final class EcRepairBuffers {
  private EcRepairBuffers() {}

  static ByteBuffer[] wrap(byte[][] arrays) {
    ByteBuffer[] b = new ByteBuffer[arrays.length];
    for (int i = 0; i < arrays.length; i++) {
      b[i] = arrays[i] == null ? null : ByteBuffer.wrap(arrays[i]);
    }
    return b;
  }
}
