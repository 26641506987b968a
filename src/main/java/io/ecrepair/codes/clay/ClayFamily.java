package io.ecrepair.codes.clay;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.codes.CodecFamily;
import io.ecrepair.codes.RepairableCode;
import io.ecrepair.gf.RegionCoder;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Codecs {@code clay} and {@code clay-d<D>}: the Clay code with d = n - 1 helpers (q = m), or
 * with D helpers (k <= D <= n - 1, q = D - k + 1), since a Hadoop raw coder only sees (k, m)
 * and the codec name must carry any other parameter (as {@code lrc-l<L>} carries L). Repairing
 * a lost block reads d/q blocks from d helpers instead of k blocks. A smaller d reads more, but
 * needs fewer helpers (a block is still rebuilt cheaply while others are down too) and has a
 * smaller sub-packetization: CLAY-D11-10-4 reads 5.5 blocks from 11 helpers with alpha 128
 * (8 KiB sub-chunks in a 1 MiB cell), where d = 13 reads 3.25 blocks from all 13 with alpha 256.
 */
public final class ClayFamily implements CodecFamily {
  public static final String CODEC = "clay";
  /** The codec of Clay with D helpers: {@code clay-d<D>}. */
  public static final String D_PREFIX = "clay-d";

  @Override
  public boolean accepts(String codec) {
    return codec.equals(CODEC) || codec.startsWith(D_PREFIX);
  }

  @Override
  public String namePattern() {
    return CODEC + ", " + D_PREFIX + "<D>";
  }

  @Override
  public void validate(String codec, int k, int m) {
    parameters(codec, k, m);
  }

  @Override
  public RepairableCode create(CodeSpec spec, RegionCoder coder) {
    return new ClayCode(spec.n(), spec.k(), helpers(spec.codec(), spec.n()), coder);
  }

  @Override
  public int subPacketization(CodeSpec spec) {
    return parameters(spec).alpha();
  }

  @Override
  public double repairBlocksPerLostBlock(CodeSpec spec) {
    return parameters(spec).repairUnitsPerLostUnit();
  }

  @Override
  public int faultTolerance(CodeSpec spec) {
    return spec.m();
  }

  @Override
  public Map<String, Object> details(CodeSpec spec) {
    ClayParameters p = parameters(spec);
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("d", p.d());
    d.put("q", p.q());
    d.put("t", p.t());
    d.put("virtualNodes", p.virtualNodes());
    d.put("beta", p.beta());
    return d;
  }

  /** d of a codec name: n - 1 for {@code clay}, D for {@code clay-d<D>}. */
  static int helpers(String codec, int n) {
    if (codec.equals(CODEC)) {
      return n - 1;
    }
    String digits = codec.substring(D_PREFIX.length());
    if (digits.isEmpty() || !digits.chars().allMatch(Character::isDigit) || digits.length() > 3) {
      throw new IllegalArgumentException("codec '" + codec + "' is not " + D_PREFIX + "<D> with D a number of helpers");
    }
    return Integer.parseInt(digits);
  }

  private static ClayParameters parameters(CodeSpec spec) {
    return parameters(spec.codec(), spec.k(), spec.m());
  }

  private static ClayParameters parameters(String codec, int k, int m) {
    return ClayCode.parameters(k + m, k, helpers(codec, k + m));
  }
}
