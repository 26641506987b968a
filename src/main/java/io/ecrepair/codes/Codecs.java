package io.ecrepair.codes;

import io.ecrepair.codes.butterfly.ButterflyFamily;
import io.ecrepair.codes.clay.ClayFamily;
import io.ecrepair.codes.lrc.LrcFamily;
import io.ecrepair.codes.rs.RsFamily;
import java.util.List;
import java.util.stream.Collectors;

/** The codecs this build knows. */
public final class Codecs {
  private static final List<CodecFamily> FAMILIES = List.of(new RsFamily(), new ClayFamily(), new ButterflyFamily(), new LrcFamily());

  private Codecs() {}

  public static CodecFamily family(String codec) {
    for (CodecFamily f : FAMILIES) {
      if (f.accepts(codec)) {
        return f;
      }
    }
    throw new IllegalArgumentException("unknown codec '" + codec + "' (known: " + knownNames() + ")");
  }

  public static String knownNames() {
    return FAMILIES.stream().map(CodecFamily::namePattern).collect(Collectors.joining(", "));
  }
}
