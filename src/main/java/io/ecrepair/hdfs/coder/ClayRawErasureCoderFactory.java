package io.ecrepair.hdfs.coder;

import io.ecrepair.codes.clay.ClayFamily;

/**
 * Raw coder {@value #CODER_NAME} for codec {@code clay} (d = n - 1). Its encoder serves
 * HDFS's write path; its plain decoder refuses, since HDFS's stock reader and
 * reconstructor decode partial cell ranges, which is wrong for a vector code.
 */
public class ClayRawErasureCoderFactory extends EcRepairRawCoderFactory {
  public static final String CODER_NAME = "clay_isal";

  public ClayRawErasureCoderFactory() {
    super(ClayFamily.CODEC, CODER_NAME);
  }
}
