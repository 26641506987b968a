package io.ecrepair.hdfs.coder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.gf.RegionCoders;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.erasurecode.CodecUtil;
import org.apache.hadoop.io.erasurecode.ECSchema;
import org.apache.hadoop.io.erasurecode.ErasureCodecOptions;
import org.apache.hadoop.io.erasurecode.ErasureCoderOptions;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureDecoder;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureEncoder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/**
 * The vector codes through Hadoop's raw coder API: the encoder HDFS writes with gives our
 * code's parity; the plain decoder refuses without writing a byte (HDFS would hand it
 * partial cell ranges, docs/architecture.md#what-hdfs-offers-a-plugin).
 */
class VectorCoderTest {

  @ParameterizedTest(name = "{0}({1},{2})")
  @CsvSource({"clay,6,3", "clay,10,4", "butterfly,4,2", "butterfly,10,2"})
  void encoderMatchesTheCodeAndPlainDecodeRefuses(String codec, int k, int m) throws Exception {
    Configuration conf = new Configuration(false);
    RawErasureEncoder enc = CodecUtil.createRawEncoder(conf, codec, new ErasureCoderOptions(k, m));
    RawErasureDecoder dec = CodecUtil.createRawDecoder(conf, codec, new ErasureCoderOptions(k, m));
    int len = 64 * 1024 + 3;
    Random rnd = new Random(k);
    ByteBuffer[] data = new ByteBuffer[k];
    ByteBuffer[] ours = new ByteBuffer[k];
    for (int i = 0; i < k; i++) {
      byte[] b = new byte[len];
      rnd.nextBytes(b);
      data[i] = ByteBuffer.wrap(b.clone());
      ours[i] = ByteBuffer.wrap(b.clone());
    }
    ByteBuffer[] parity = {ByteBuffer.allocate(len), ByteBuffer.allocate(len), ByteBuffer.allocate(len),
        ByteBuffer.allocate(len)};
    parity = java.util.Arrays.copyOf(parity, m);
    enc.encode(data, parity);
    ByteBuffer[] expected = new ByteBuffer[m];
    for (int i = 0; i < m; i++) {
      expected[i] = ByteBuffer.allocate(len);
    }
    new CodeSpec(codec, k, m).create(RegionCoders.best()).encode(ours, new int[k], expected, new int[m], len);
    for (int i = 0; i < m; i++) {
      assertArrayEquals(expected[i].array(), parity[i].array(), "parity " + i);
    }

    ByteBuffer[] in = new ByteBuffer[k + m];
    for (int i = 1; i < k; i++) {
      in[i] = ByteBuffer.allocate(len);
    }
    for (int i = 0; i < m; i++) {
      in[k + i] = ByteBuffer.allocate(len);
    }
    ByteBuffer out = ByteBuffer.allocate(len);
    out.put(0, (byte) 7);
    IOException e = assertThrows(IOException.class, () -> dec.decode(in, new int[] {0}, new ByteBuffer[] {out}));
    assertTrue(e.getMessage().contains("hadoop-ec-repair") && e.getMessage().contains("vector code"), e.getMessage());
    assertEquals(7, out.get(0), "nothing written");
  }

  @Test
  void butterflyWithOtherThanTwoParitiesIsRefusedWhenTheCoderIsCreated() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new ButterflyRawErasureCoderFactory().createEncoder(new ErasureCoderOptions(10, 3)));
    assertTrue(e.getMessage().contains("exactly 2 parity units"), e.getMessage());
  }

  @Test
  void hadoopsCodecFrameworkServesClay() {
    Configuration conf = new Configuration(false);
    conf.set("io.erasurecode.codec.clay.coder", EcRepairErasureCodec.class.getName());
    ErasureCodecOptions opts = new ErasureCodecOptions(new ECSchema("clay", 10, 4));
    assertEquals(10, CodecUtil.createEncoder(conf, opts).getNumDataUnits());
    assertEquals(4, CodecUtil.createDecoder(conf, opts).getNumParityUnits());
  }
}
