package io.ecrepair.hdfs.coder;

/**
 * Raw coders {@value ClayRawErasureCoderFactory#CODER_NAME} for the codecs {@code clay-d<D>}
 * (Clay with D helpers, see {@link io.ecrepair.codes.clay.ClayFamily}): Hadoop registers a codec
 * name per factory class, so each D has its own; D from 3 to 15 covers every Clay code HDFS's
 * 16 internal blocks allow with d < n - 1. Like {@code clay}, their plain decoders refuse.
 */
public final class ClayRawCoderFactories {
  private ClayRawCoderFactories() {}

  /** The codec of D helpers. */
  private static String codec(int d) {
    return io.ecrepair.codes.clay.ClayFamily.D_PREFIX + d;
  }

  /** clay-d3. */
  public static class D3 extends EcRepairRawCoderFactory {
    public D3() {
      super(codec(3), ClayRawErasureCoderFactory.CODER_NAME);
    }
  }

  /** clay-d4. */
  public static class D4 extends EcRepairRawCoderFactory {
    public D4() {
      super(codec(4), ClayRawErasureCoderFactory.CODER_NAME);
    }
  }

  /** clay-d5. */
  public static class D5 extends EcRepairRawCoderFactory {
    public D5() {
      super(codec(5), ClayRawErasureCoderFactory.CODER_NAME);
    }
  }

  /** clay-d6. */
  public static class D6 extends EcRepairRawCoderFactory {
    public D6() {
      super(codec(6), ClayRawErasureCoderFactory.CODER_NAME);
    }
  }

  /** clay-d7. */
  public static class D7 extends EcRepairRawCoderFactory {
    public D7() {
      super(codec(7), ClayRawErasureCoderFactory.CODER_NAME);
    }
  }

  /** clay-d8. */
  public static class D8 extends EcRepairRawCoderFactory {
    public D8() {
      super(codec(8), ClayRawErasureCoderFactory.CODER_NAME);
    }
  }

  /** clay-d9. */
  public static class D9 extends EcRepairRawCoderFactory {
    public D9() {
      super(codec(9), ClayRawErasureCoderFactory.CODER_NAME);
    }
  }

  /** clay-d10. */
  public static class D10 extends EcRepairRawCoderFactory {
    public D10() {
      super(codec(10), ClayRawErasureCoderFactory.CODER_NAME);
    }
  }

  /** clay-d11. */
  public static class D11 extends EcRepairRawCoderFactory {
    public D11() {
      super(codec(11), ClayRawErasureCoderFactory.CODER_NAME);
    }
  }

  /** clay-d12. */
  public static class D12 extends EcRepairRawCoderFactory {
    public D12() {
      super(codec(12), ClayRawErasureCoderFactory.CODER_NAME);
    }
  }

  /** clay-d13. */
  public static class D13 extends EcRepairRawCoderFactory {
    public D13() {
      super(codec(13), ClayRawErasureCoderFactory.CODER_NAME);
    }
  }

  /** clay-d14. */
  public static class D14 extends EcRepairRawCoderFactory {
    public D14() {
      super(codec(14), ClayRawErasureCoderFactory.CODER_NAME);
    }
  }

  /** clay-d15. */
  public static class D15 extends EcRepairRawCoderFactory {
    public D15() {
      super(codec(15), ClayRawErasureCoderFactory.CODER_NAME);
    }
  }
}
