package io.ecrepair.codes.butterfly;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.codes.SingleCodecFamily;
import io.ecrepair.codes.RepairableCode;
import io.ecrepair.gf.RegionCoder;

/** The {@code butterfly} codec: m must be 2, 2 <= k <= 14, alpha = 2^(k-1). */
public final class ButterflyFamily extends SingleCodecFamily {
  public static final String CODEC = "butterfly";

  public ButterflyFamily() {
    super(CODEC);
  }



  @Override
  public void validate(String codec, int k, int m) {
    if (m != 2) {
      throw new IllegalArgumentException("Butterfly has exactly 2 parity units, got m=" + m);
    }
    if (k < ButterflyCode.MIN_K || k > ButterflyCode.MAX_K) {
      throw new IllegalArgumentException("Butterfly needs " + ButterflyCode.MIN_K + " <= k <= "
          + ButterflyCode.MAX_K + " (alpha = 2^(k-1)), got k=" + k);
    }
  }

  @Override
  public RepairableCode create(CodeSpec spec, RegionCoder coder) {
    return new ButterflyCode(spec.k(), coder);
  }

  @Override
  public int subPacketization(CodeSpec spec) {
    return 1 << (spec.k() - 1);
  }

  /** A lost data block: alpha/2 sub-chunks from each of k+1 helpers. */
  @Override
  public double repairBlocksPerLostBlock(CodeSpec spec) {
    return (spec.k() + 1) / 2.0;
  }

  @Override
  public int faultTolerance(CodeSpec spec) {
    return 2;
  }
}
