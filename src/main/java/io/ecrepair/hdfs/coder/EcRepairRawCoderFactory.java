package io.ecrepair.hdfs.coder;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.codes.RepairableCode;
import io.ecrepair.gf.RegionCoder;
import io.ecrepair.gf.RegionCoders;
import java.util.Locale;
import org.apache.hadoop.io.erasurecode.ErasureCoderOptions;
import org.apache.hadoop.io.erasurecode.rawcoder.EcRepairRawDecoder;
import org.apache.hadoop.io.erasurecode.rawcoder.EcRepairRawEncoder;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureCoderFactory;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureDecoder;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureEncoder;

/**
 * The raw coder factory of one of our codecs. Hadoop's ServiceLoader needs one class per
 * (codec, coder) name, so each codec has a two-line subclass listed in
 * META-INF/services. A vector code's decoder refuses to decode: HDFS's stock paths decode
 * partial cell ranges, which would give wrong bytes (docs/architecture.md#what-hdfs-offers-a-plugin).
 */
public abstract class EcRepairRawCoderFactory implements RawErasureCoderFactory {
  private final String codec;
  private final String coderName;

  protected EcRepairRawCoderFactory(String codec, String coderName) {
    this.codec = codec;
    this.coderName = coderName;
  }

  @Override
  public RawErasureEncoder createEncoder(ErasureCoderOptions options) {
    RegionCoder coder = RegionCoders.best();
    return new EcRepairRawEncoder(options, code(options, coder), isNative(coder));
  }

  @Override
  public RawErasureDecoder createDecoder(ErasureCoderOptions options) {
    RegionCoder coder = RegionCoders.best();
    CodeSpec spec = spec(options);
    String refusal = spec.needsWholeCells() ? refusal(spec) : null;
    return new EcRepairRawDecoder(options, spec.create(coder), isNative(coder), refusal);
  }

  @Override
  public String getCoderName() {
    return coderName;
  }

  @Override
  public String getCodecName() {
    return codec;
  }

  private RepairableCode code(ErasureCoderOptions o, RegionCoder coder) {
    return spec(o).create(coder);
  }

  private CodeSpec spec(ErasureCoderOptions o) {
    return new CodeSpec(codec, o.getNumDataUnits(), o.getNumParityUnits());
  }

  /** Why a stock HDFS decode of this code is refused, and what to install instead. */
  static String refusal(CodeSpec spec) {
    return "hadoop-ec-repair: " + spec.codec().toUpperCase(Locale.ROOT) + "(" + spec.k() + "," + spec.m()
        + ") is a vector code (" + spec.subPacketization() + " sub-chunks per cell); HDFS's stock striped reader and "
        + "reconstructor decode partial cell ranges, which would give wrong bytes, so this decode is refused. "
        + "Reading such files with a lost block needs hadoop-ec-repair's client FileSystem "
        + "(fs.hdfs.impl=io.ecrepair.hdfs.client.EcRepairDistributedFileSystem in core-site.xml, jar on the client "
        + "classpath; HttpFS takes it too); readers that use HDFS's own client inside a DataNode or gateway (WebHDFS, "
        + "the NFS gateway) fail until the block is rebuilt, which needs its DataNode plugin "
        + "(dfs.datanode.plugins=io.ecrepair.hdfs.datanode.EcRepairDataNodePlugin); see its README.";
  }

  private static boolean isNative(RegionCoder coder) {
    return "native".equals(coder.name());
  }
}
