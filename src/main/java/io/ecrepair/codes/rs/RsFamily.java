package io.ecrepair.codes.rs;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.codes.SingleCodecFamily;
import io.ecrepair.codes.RepairableCode;
import io.ecrepair.gf.RegionCoder;

/** Hadoop's {@code rs} codec: Reed-Solomon, repair reads any k blocks. */
public final class RsFamily extends SingleCodecFamily {
  public static final String CODEC = "rs";

  public RsFamily() {
    super(CODEC);
  }



  @Override
  public void validate(String codec, int k, int m) {
    if (k + m > 255) {
      throw new IllegalArgumentException("RS needs k+m <= 255, got " + (k + m));
    }
  }

  @Override
  public RepairableCode create(CodeSpec spec, RegionCoder coder) {
    return new ReedSolomonCode(spec.k(), spec.m(), coder);
  }

  @Override
  public int subPacketization(CodeSpec spec) {
    return 1;
  }

  @Override
  public double repairBlocksPerLostBlock(CodeSpec spec) {
    return spec.k();
  }

  @Override
  public int faultTolerance(CodeSpec spec) {
    return spec.m();
  }
}
