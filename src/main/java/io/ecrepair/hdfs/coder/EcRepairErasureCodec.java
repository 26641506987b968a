package io.ecrepair.hdfs.coder;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.erasurecode.CodecUtil;
import org.apache.hadoop.io.erasurecode.ECBlock;
import org.apache.hadoop.io.erasurecode.ECBlockGroup;
import org.apache.hadoop.io.erasurecode.ErasureCodecOptions;
import org.apache.hadoop.io.erasurecode.ErasureCoderOptions;
import org.apache.hadoop.io.erasurecode.codec.ErasureCodec;
import org.apache.hadoop.io.erasurecode.coder.ErasureCodingStep;
import org.apache.hadoop.io.erasurecode.coder.ErasureDecoder;
import org.apache.hadoop.io.erasurecode.coder.ErasureDecodingStep;
import org.apache.hadoop.io.erasurecode.coder.ErasureEncoder;
import org.apache.hadoop.io.erasurecode.coder.ErasureEncodingStep;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureDecoder;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureEncoder;

/**
 * Hadoop's block-level codec framework for any of our codecs: configure
 * {@code io.erasurecode.codec.<codec>.coder=io.ecrepair.hdfs.coder.EcRepairErasureCodec}
 * (e.g. for {@code clay}). Its coders use the raw coders registered for the codec.
 */
public class EcRepairErasureCodec extends ErasureCodec {
  private final Configuration conf;

  public EcRepairErasureCodec(Configuration conf, ErasureCodecOptions options) {
    super(conf, options);
    this.conf = conf;
  }

  @Override
  public ErasureEncoder createEncoder() {
    Encoder e = new Encoder(getCoderOptions(), getName());
    e.setConf(conf); // Hadoop's own codecs leave this null, which CodecUtil rejects
    return e;
  }

  @Override
  public ErasureDecoder createDecoder() {
    Decoder d = new Decoder(getCoderOptions(), getName());
    d.setConf(conf);
    return d;
  }

  private static final class Encoder extends ErasureEncoder {
    private final String codec;
    private RawErasureEncoder raw;

    Encoder(ErasureCoderOptions options, String codec) {
      super(options);
      this.codec = codec;
    }

    @Override
    protected ErasureCodingStep prepareEncodingStep(ECBlockGroup group) {
      if (raw == null) {
        raw = CodecUtil.createRawEncoder(getConf(), codec, getOptions());
      }
      return new ErasureEncodingStep(getInputBlocks(group), getOutputBlocks(group), raw);
    }

    @Override
    public void release() {
      if (raw != null) {
        raw.release();
      }
    }
  }

  private static final class Decoder extends ErasureDecoder {
    private final String codec;
    private RawErasureDecoder raw;

    Decoder(ErasureCoderOptions options, String codec) {
      super(options);
      this.codec = codec;
    }

    @Override
    protected ErasureCodingStep prepareDecodingStep(ECBlockGroup group) {
      if (raw == null) {
        raw = CodecUtil.createRawDecoder(getConf(), codec, getOptions());
      }
      ECBlock[] inputs = getInputBlocks(group);
      return new ErasureDecodingStep(inputs, getErasedIndexes(inputs), getOutputBlocks(group), raw);
    }

    @Override
    public void release() {
      if (raw != null) {
        raw.release();
      }
    }
  }
}
