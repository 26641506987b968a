package io.ecrepair.codes;

import java.nio.ByteBuffer;

/**
 * A linear erasure code over GF(2^8), independent of any storage system. A "unit" is one
 * of the n = k + m coded pieces of a stripe (in HDFS: one cell of one internal block).
 *
 * <p>Buffers follow {@link io.ecrepair.gf.RegionCoder}: offsets are absolute indices, positions
 * and limits are not touched, heap and direct buffers both work.
 */
public interface ErasureCode {

  /** A short name such as "RS(10,4)". */
  String name();

  int dataUnits();

  int parityUnits();

  default int totalUnits() {
    return dataUnits() + parityUnits();
  }

  /** Sub-chunks per unit (alpha); 1 for a scalar code such as RS. */
  default int subPacketization() {
    return 1;
  }

  /** Computes the m parity units from the k data units, each region {@code len} bytes. */
  void encode(ByteBuffer[] data, int[] dataOff, ByteBuffer[] parity, int[] parityOff, int len);

  /**
   * Rebuilds the units listed in {@code wanted} into {@code out}.
   *
   * @param units one entry per unit index 0..n-1, null where the unit is unavailable
   * @throws UndecodableException when the available units do not determine the wanted ones
   */
  void decode(ByteBuffer[] units, int[] unitOff, int[] wanted, ByteBuffer[] out, int[] outOff, int len);
}
