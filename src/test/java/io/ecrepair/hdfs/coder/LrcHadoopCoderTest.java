package io.ecrepair.hdfs.coder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.lrc.LrcCode;
import io.ecrepair.gf.RegionCoders;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import java.util.stream.IntStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.erasurecode.CodecUtil;
import org.apache.hadoop.io.erasurecode.ErasureCoderOptions;
import org.apache.hadoop.io.erasurecode.rawcoder.EcRepairRawDecoder;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureDecoder;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureEncoder;
import org.junit.jupiter.api.Test;

/** LRC through Hadoop's raw coder API, as HDFS's stock reader and reconstructor call it. */
class LrcHadoopCoderTest {

  @Test
  void plainDecodeIsRightForDecodablePatternsAndRefusesTheRest() throws Exception {
    Configuration conf = new Configuration(false);
    int k = 12;
    int m = 4;
    RawErasureEncoder enc = CodecUtil.createRawEncoder(conf, "lrc-l2", new ErasureCoderOptions(k, m));
    RawErasureDecoder dec = CodecUtil.createRawDecoder(conf, "lrc-l2", new ErasureCoderOptions(k, m));
    assertInstanceOf(EcRepairRawDecoder.class, dec, "ServiceLoader finds lrc-l2");
    LrcCode oracle = new LrcCode(12, 2, 2, RegionCoders.java()); // only for decodability
    int len = 777;
    Random rnd = new Random(12);
    byte[][] stripe = new byte[k + m][len];
    ByteBuffer[] data = new ByteBuffer[k];
    for (int i = 0; i < k; i++) {
      rnd.nextBytes(stripe[i]);
      data[i] = ByteBuffer.wrap(stripe[i].clone());
    }
    ByteBuffer[] parity = new ByteBuffer[m];
    for (int i = 0; i < m; i++) {
      parity[i] = ByteBuffer.allocate(len);
    }
    enc.encode(data, parity);
    for (int i = 0; i < m; i++) {
      stripe[k + i] = parity[i].array();
    }
    // Local parity 0 is the XOR of data 0..5 (checked independently of the coder).
    byte[] xor = new byte[len];
    for (int i = 0; i < 6; i++) {
      for (int b = 0; b < len; b++) {
        xor[b] ^= stripe[i][b];
      }
    }
    assertArrayEquals(xor, stripe[k]);

    int decoded = 0;
    int refused = 0;
    for (int mask = 1; mask < 1 << (k + m); mask++) {
      if (Integer.bitCount(mask) > m) {
        continue;
      }
      final int lostMask = mask;
      int[] erased = IntStream.range(0, k + m).filter(i -> (lostMask & 1 << i) != 0).toArray();
      ByteBuffer[] in = new ByteBuffer[k + m];
      for (int i = 0; i < k + m; i++) {
        in[i] = (mask & 1 << i) != 0 ? null : ByteBuffer.wrap(stripe[i].clone());
      }
      ByteBuffer[] out = new ByteBuffer[erased.length];
      for (int i = 0; i < out.length; i++) {
        out[i] = ByteBuffer.allocate(len);
      }
      if (oracle.decodable(erased)) {
        dec.decode(in, erased, out);
        for (int i = 0; i < erased.length; i++) {
          assertArrayEquals(stripe[erased[i]], out[i].array(), "erased " + Arrays.toString(erased));
        }
        decoded++;
      } else {
        IOException e = assertThrows(IOException.class, () -> dec.decode(in, erased, out));
        assertTrue(e.getMessage().contains("LRC"), e.getMessage());
        for (ByteBuffer o : out) {
          assertArrayEquals(new byte[len], o.array(), "nothing written on refusal");
        }
        refused++;
      }
    }
    // Every pattern of up to g+1 = 3 failures decodes (16+120+560 = 696); of the 1820
    // four-failure patterns 1568 decode (Azure's ~86%) and 252 are refused.
    assertEquals(252, refused);
    assertEquals(696 + 1568, decoded);
  }

  @Test
  void hadoopsCodecFrameworkFindsLrcThroughOurCodec() {
    Configuration conf = new Configuration(false);
    conf.set("io.erasurecode.codec.lrc-l2.coder", EcRepairErasureCodec.class.getName());
    org.apache.hadoop.io.erasurecode.ErasureCodecOptions opts = new org.apache.hadoop.io.erasurecode.ErasureCodecOptions(
        new org.apache.hadoop.io.erasurecode.ECSchema("lrc-l2", 12, 4));
    assertEquals(12, CodecUtil.createEncoder(conf, opts).getNumDataUnits());
    assertEquals(4, CodecUtil.createDecoder(conf, opts).getNumParityUnits());
  }

  @Test
  void badLrcParametersAreClearErrors() {
    Configuration conf = new Configuration(false);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new LrcRawCoderFactories.L5().createEncoder(new ErasureCoderOptions(12, 4)));
    assertTrue(e.getMessage().contains("m"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new io.ecrepair.codes.CodeSpec("lrc-l0", 12, 4));
    assertThrows(IllegalArgumentException.class, () -> new io.ecrepair.codes.CodeSpec("lrc-l13", 12, 14));
  }
}
