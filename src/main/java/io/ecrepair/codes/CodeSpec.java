package io.ecrepair.codes;

import io.ecrepair.gf.RegionCoder;
import java.util.Locale;

/**
 * A codec name with its (k, m): everything a Hadoop raw coder is given, so everything a
 * code's parameters must follow from (docs/architecture.md#codes). Constructing one validates it.
 */
public record CodeSpec(String codec, int k, int m) {

  public CodeSpec {
    codec = codec.toLowerCase(Locale.ROOT);
    if (k < 1 || m < 1) {
      throw new IllegalArgumentException("k and m must be at least 1, got k=" + k + " m=" + m);
    }
    Codecs.family(codec).validate(codec, k, m);
  }

  public int n() {
    return k + m;
  }

  public CodecFamily family() {
    return Codecs.family(codec);
  }

  /** Builds the code with the given region coder for its GF(2^8) work. */
  public RepairableCode create(RegionCoder coder) {
    return family().create(this, coder);
  }

  public int subPacketization() {
    return family().subPacketization(this);
  }

  /** Blocks read to repair one lost data block, as a multiple of the block size. */
  public double repairBlocksPerLostBlock() {
    return family().repairBlocksPerLostBlock(this);
  }

  /** How many lost units any stripe survives. */
  public int faultTolerance() {
    return family().faultTolerance(this);
  }

  /** Whether stock HDFS decoding of partial cells would be wrong for this code. */
  public boolean needsWholeCells() {
    return family().needsWholeCells(this);
  }
}
