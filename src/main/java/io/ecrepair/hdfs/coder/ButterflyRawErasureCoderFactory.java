package io.ecrepair.hdfs.coder;

import io.ecrepair.codes.butterfly.ButterflyFamily;

/**
 * Raw coder {@value #CODER_NAME} for codec {@code butterfly} (m = 2). Its encoder serves
 * HDFS's write path; its plain decoder refuses, since HDFS's stock reader and
 * reconstructor decode partial cell ranges, which is wrong for a vector code.
 */
public class ButterflyRawErasureCoderFactory extends EcRepairRawCoderFactory {
  public static final String CODER_NAME = "butterfly_isal";

  public ButterflyRawErasureCoderFactory() {
    super(ButterflyFamily.CODEC, CODER_NAME);
  }
}
