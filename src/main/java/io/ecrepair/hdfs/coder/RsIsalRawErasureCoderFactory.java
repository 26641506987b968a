package io.ecrepair.hdfs.coder;

import org.apache.hadoop.io.erasurecode.ErasureCodeConstants;

/**
 * Raw coder {@value #CODER_NAME} for Hadoop's {@code rs} codec: byte-identical to
 * {@code rs_java}, through ISA-L without libhadoop. Enable it by listing it first:
 * {@code io.erasurecode.codec.rs.rawcoders=rs_isal,rs_native,rs_java}.
 */
public class RsIsalRawErasureCoderFactory extends EcRepairRawCoderFactory {
  public static final String CODER_NAME = "rs_isal";

  public RsIsalRawErasureCoderFactory() {
    super(ErasureCodeConstants.RS_CODEC_NAME, CODER_NAME);
  }
}
