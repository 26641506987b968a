package io.ecrepair.hdfs.coder;

import io.ecrepair.codes.rs.ReedSolomonCode;
import io.ecrepair.gf.RegionCoder;
import io.ecrepair.gf.RegionCoders;
import org.apache.hadoop.io.erasurecode.ErasureCodeConstants;
import org.apache.hadoop.io.erasurecode.ErasureCoderOptions;
import org.apache.hadoop.io.erasurecode.rawcoder.EcRepairRawDecoder;
import org.apache.hadoop.io.erasurecode.rawcoder.EcRepairRawEncoder;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureCoderFactory;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureDecoder;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureEncoder;

/**
 * Raw coder {@value #CODER_NAME} for Hadoop's {@code rs} codec: byte-identical to
 * {@code rs_java}, through ISA-L without libhadoop. Enable it by listing it first:
 * {@code io.erasurecode.codec.rs.rawcoders=rs_isal,rs_native,rs_java}.
 */
public class RsIsalRawErasureCoderFactory implements RawErasureCoderFactory {
  public static final String CODER_NAME = "rs_isal";

  @Override
  public RawErasureEncoder createEncoder(ErasureCoderOptions options) {
    RegionCoder coder = RegionCoders.best();
    return new EcRepairRawEncoder(options, code(options, coder), isNative(coder));
  }

  @Override
  public RawErasureDecoder createDecoder(ErasureCoderOptions options) {
    RegionCoder coder = RegionCoders.best();
    return new EcRepairRawDecoder(options, code(options, coder), isNative(coder));
  }

  @Override
  public String getCoderName() {
    return CODER_NAME;
  }

  @Override
  public String getCodecName() {
    return ErasureCodeConstants.RS_CODEC_NAME;
  }

  private static ReedSolomonCode code(ErasureCoderOptions o, RegionCoder coder) {
    return new ReedSolomonCode(o.getNumDataUnits(), o.getNumParityUnits(), coder);
  }

  private static boolean isNative(RegionCoder coder) {
    return "native".equals(coder.name());
  }
}
