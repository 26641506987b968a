package io.ecrepair.codes.clay;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.codes.SingleCodecFamily;
import io.ecrepair.codes.RepairableCode;
import io.ecrepair.gf.RegionCoder;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Codec {@code clay}: the Clay code with d = n - 1 helpers (q = m), the only d a Hadoop raw
 * coder can derive from (k, m). Repairing a lost block reads d/q blocks instead of k.
 */
public final class ClayFamily extends SingleCodecFamily {
  public static final String CODEC = "clay";

  public ClayFamily() {
    super(CODEC);
  }



  @Override
  public void validate(String codec, int k, int m) {
    parameters(k, m);
  }

  @Override
  public RepairableCode create(CodeSpec spec, RegionCoder coder) {
    return new ClayCode(spec.n(), spec.k(), spec.n() - 1, coder);
  }

  @Override
  public int subPacketization(CodeSpec spec) {
    return parameters(spec.k(), spec.m()).alpha();
  }

  @Override
  public double repairBlocksPerLostBlock(CodeSpec spec) {
    return parameters(spec.k(), spec.m()).repairUnitsPerLostUnit();
  }

  @Override
  public int faultTolerance(CodeSpec spec) {
    return spec.m();
  }

  @Override
  public Map<String, Object> details(CodeSpec spec) {
    ClayParameters p = parameters(spec.k(), spec.m());
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("d", p.d());
    d.put("q", p.q());
    d.put("t", p.t());
    d.put("virtualNodes", p.virtualNodes());
    d.put("beta", p.beta());
    return d;
  }

  private static ClayParameters parameters(int k, int m) {
    return ClayCode.parameters(k + m, k, k + m - 1);
  }
}
