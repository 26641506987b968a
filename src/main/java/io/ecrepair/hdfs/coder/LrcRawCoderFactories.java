package io.ecrepair.hdfs.coder;

/**
 * Raw coders {@value #CODER_NAME} for the codecs {@code lrc-l1} .. {@code lrc-l6}: Hadoop
 * registers a codec name per factory class, so each number of local groups has its own.
 * LRC is a scalar code, so HDFS's stock decoders may use it; they give it at least k
 * surviving blocks and it decodes every pattern that is decodable from them.
 */
public final class LrcRawCoderFactories {
  public static final String CODER_NAME = "lrc_isal";

  private LrcRawCoderFactories() {}

  /** lrc-l1. */
  public static class L1 extends EcRepairRawCoderFactory {
    public L1() {
      super("lrc-l1", CODER_NAME);
    }
  }

  /** lrc-l2: Azure's LRC(12,2,2) as k=12, m=4. */
  public static class L2 extends EcRepairRawCoderFactory {
    public L2() {
      super("lrc-l2", CODER_NAME);
    }
  }

  /** lrc-l3. */
  public static class L3 extends EcRepairRawCoderFactory {
    public L3() {
      super("lrc-l3", CODER_NAME);
    }
  }

  /** lrc-l4. */
  public static class L4 extends EcRepairRawCoderFactory {
    public L4() {
      super("lrc-l4", CODER_NAME);
    }
  }

  /** lrc-l5. */
  public static class L5 extends EcRepairRawCoderFactory {
    public L5() {
      super("lrc-l5", CODER_NAME);
    }
  }

  /** lrc-l6. */
  public static class L6 extends EcRepairRawCoderFactory {
    public L6() {
      super("lrc-l6", CODER_NAME);
    }
  }
}
