package io.ecrepair.codes.lrc;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.codes.CodecFamily;
import io.ecrepair.codes.RepairableCode;
import io.ecrepair.gf.RegionCoder;

/**
 * Codecs {@code lrc-l<L>}: Azure-LRC with L local groups; Hadoop's (k, m) gives the global
 * parities g = m - L. A lost data block is repaired from its group (r = ceil(k/L) reads).
 */
public final class LrcFamily implements CodecFamily {

  @Override
  public boolean accepts(String codec) {
    return codec.startsWith(LrcCode.CODEC_PREFIX);
  }

  @Override
  public String namePattern() {
    return LrcCode.CODEC_PREFIX + "<L>";
  }

  @Override
  public void validate(String codec, int k, int m) {
    LrcCode.fromCodec(codec, k, m);
  }

  @Override
  public RepairableCode create(CodeSpec spec, RegionCoder coder) {
    return new LrcCode(params(spec), coder);
  }

  @Override
  public int subPacketization(CodeSpec spec) {
    return 1;
  }

  @Override
  public double repairBlocksPerLostBlock(CodeSpec spec) {
    return params(spec).groupSize();
  }

  @Override
  public int faultTolerance(CodeSpec spec) {
    return params(spec).g() + 1;
  }

  @Override
  public java.util.Map<String, Object> details(CodeSpec spec) {
    LrcCode.Params p = params(spec);
    java.util.Map<String, Object> d = new java.util.LinkedHashMap<>();
    d.put("localGroups", p.l());
    d.put("groupSize", p.groupSize());
    d.put("globalParities", p.g());
    return d;
  }

  /** (k, l, g) of the spec. */
  public static LrcCode.Params params(CodeSpec spec) {
    return LrcCode.fromCodec(spec.codec(), spec.k(), spec.m());
  }
}
