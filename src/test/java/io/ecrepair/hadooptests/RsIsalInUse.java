package io.ecrepair.hadooptests;

import static org.junit.Assert.assertTrue;

import io.ecrepair.hdfs.coder.RsIsalRawErasureCoderFactory;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.erasurecode.CodecUtil;
import org.apache.hadoop.io.erasurecode.ErasureCoderOptions;
import org.apache.hadoop.io.erasurecode.rawcoder.EcRepairRawDecoder;
import org.apache.hadoop.io.erasurecode.rawcoder.EcRepairRawEncoder;

/**
 * Hadoop 3.3.6's striped-file tests always use the system policy RS-6-3-1024k; run with this
 * execution's core-site.xml, every RS encode and decode in them, on clients and DataNodes alike,
 * goes through our {@value RsIsalRawErasureCoderFactory#CODER_NAME} coder. This checks that it does.
 */
final class RsIsalInUse {
  private RsIsalInUse() {}

  static void check() {
    Configuration conf = new Configuration(); // what the tests' own Configurations load
    ErasureCoderOptions rs63 = new ErasureCoderOptions(6, 3);
    assertTrue("RS decodes through " + RsIsalRawErasureCoderFactory.CODER_NAME,
        CodecUtil.createRawDecoder(conf, "rs", rs63) instanceof EcRepairRawDecoder);
    assertTrue("RS encodes through " + RsIsalRawErasureCoderFactory.CODER_NAME,
        CodecUtil.createRawEncoder(conf, "rs", rs63) instanceof EcRepairRawEncoder);
  }
}
