package io.ecrepair.codes;

import io.ecrepair.codes.rs.ReedSolomonCode;
import io.ecrepair.gf.RegionCoder;
import java.util.List;
import java.util.Locale;

/**
 * A codec name with its (k, m): everything a Hadoop raw coder is given, so everything a
 * code's parameters must follow from (DESIGN.md section 4).
 */
public record CodeSpec(String codec, int k, int m) {

  /** Codec names this build knows, lower case as Hadoop registers them. */
  public static final List<String> CODECS = List.of("rs");

  public CodeSpec {
    codec = codec.toLowerCase(Locale.ROOT);
    if (!CODECS.contains(codec)) {
      throw new IllegalArgumentException("unknown codec '" + codec + "' (known: " + String.join(", ", CODECS) + ")");
    }
    if (k < 1 || m < 1) {
      throw new IllegalArgumentException("k and m must be at least 1, got k=" + k + " m=" + m);
    }
  }

  public int n() {
    return k + m;
  }

  /** Builds the code with the given region coder for its GF(2^8) work. */
  public ErasureCode create(RegionCoder coder) {
    return switch (codec) {
      case "rs" -> new ReedSolomonCode(k, m, coder);
      default -> throw new IllegalStateException("no implementation for codec " + codec);
    };
  }

  /** Blocks read to repair one lost block, as a multiple of the block size. */
  public double repairBlocksPerLostBlock() {
    return k;
  }

  /** How many lost units any stripe survives. */
  public int faultTolerance() {
    return m;
  }

  public int subPacketization() {
    return 1;
  }
}
