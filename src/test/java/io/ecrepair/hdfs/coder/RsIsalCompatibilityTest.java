package io.ecrepair.hdfs.coder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.HadoopIllegalArgumentException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.erasurecode.CodecUtil;
import org.apache.hadoop.io.erasurecode.ErasureCoderOptions;
import org.apache.hadoop.io.erasurecode.rawcoder.EcRepairRawDecoder;
import org.apache.hadoop.io.erasurecode.rawcoder.EcRepairRawEncoder;
import org.apache.hadoop.io.erasurecode.rawcoder.RSRawDecoder;
import org.apache.hadoop.io.erasurecode.rawcoder.RSRawEncoder;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureDecoder;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureEncoder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * rs_isal is byte-identical with Hadoop's rs_java: encode with one and decode with the other,
 * in both directions, for every erasure pattern up to m, with heap and direct buffers.
 * Erased indexes are given ascending, as HDFS's readers and reconstructor give them
 * (Hadoop's RSRawDecoder relies on that order; ours does not).
 */
class RsIsalCompatibilityTest {

  private static RawErasureEncoder ourEncoder(int k, int m) {
    Configuration conf = new Configuration(false);
    conf.set("io.erasurecode.codec.rs.rawcoders", "rs_isal");
    RawErasureEncoder e = CodecUtil.createRawEncoder(conf, "rs", new ErasureCoderOptions(k, m));
    assertInstanceOf(EcRepairRawEncoder.class, e, "ServiceLoader must find rs_isal");
    return e;
  }

  private static RawErasureDecoder ourDecoder(int k, int m) {
    Configuration conf = new Configuration(false);
    conf.set("io.erasurecode.codec.rs.rawcoders", "rs_isal");
    RawErasureDecoder d = CodecUtil.createRawDecoder(conf, "rs", new ErasureCoderOptions(k, m));
    assertInstanceOf(EcRepairRawDecoder.class, d);
    return d;
  }

  private static ByteBuffer buffer(byte[] content, boolean direct) {
    // A non-zero position: Hadoop passes buffers mid-way through larger ones.
    ByteBuffer b = direct ? ByteBuffer.allocateDirect(content.length + 9) : ByteBuffer.allocate(content.length + 9);
    b.position(9);
    b.put(content);
    b.position(9);
    return b;
  }

  private static byte[] content(ByteBuffer b, int len) {
    byte[] out = new byte[len];
    b.duplicate().get(out);
    return out;
  }

  private static byte[][] encode(RawErasureEncoder enc, byte[][] data, int m, boolean direct) throws Exception {
    int len = data[0].length;
    ByteBuffer[] in = new ByteBuffer[data.length];
    for (int i = 0; i < data.length; i++) {
      in[i] = buffer(data[i], direct);
    }
    ByteBuffer[] out = new ByteBuffer[m];
    for (int i = 0; i < m; i++) {
      out[i] = buffer(new byte[len], direct);
    }
    enc.encode(in, out);
    byte[][] parity = new byte[m][];
    for (int i = 0; i < m; i++) {
      parity[i] = content(out[i], len);
    }
    return parity;
  }

  private static byte[][] decode(RawErasureDecoder dec, byte[][] units, int[] erased, boolean direct) throws Exception {
    int len = units[0].length;
    ByteBuffer[] in = new ByteBuffer[units.length];
    List<Integer> gone = new ArrayList<>();
    for (int e : erased) {
      gone.add(e);
    }
    for (int i = 0; i < units.length; i++) {
      in[i] = gone.contains(i) ? null : buffer(units[i], direct);
    }
    ByteBuffer[] out = new ByteBuffer[erased.length];
    for (int i = 0; i < erased.length; i++) {
      out[i] = buffer(new byte[len], direct);
    }
    dec.decode(in, erased, out);
    byte[][] result = new byte[erased.length][];
    for (int i = 0; i < erased.length; i++) {
      result[i] = content(out[i], len);
    }
    return result;
  }

  private static List<int[]> erasurePatterns(int n, int maxErasures) {
    List<int[]> patterns = new ArrayList<>();
    for (int mask = 1; mask < 1 << n; mask++) {
      int c = Integer.bitCount(mask);
      if (c > maxErasures) {
        continue;
      }
      int[] p = new int[c];
      int j = 0;
      for (int i = 0; i < n; i++) {
        if ((mask & 1 << i) != 0) {
          p[j++] = i;
        }
      }
      patterns.add(p);
    }
    return patterns;
  }

  @ParameterizedTest(name = "RS-{0}-{1}")
  @CsvSource({"3,2", "6,3", "10,4"})
  void encodeAndDecodeAgreeWithRsJavaInBothDirections(int k, int m) throws Exception {
    ErasureCoderOptions opts = new ErasureCoderOptions(k, m);
    RawErasureEncoder ours = ourEncoder(k, m);
    RawErasureEncoder theirs = new RSRawEncoder(opts);
    RawErasureDecoder ourDec = ourDecoder(k, m);
    RawErasureDecoder theirDec = new RSRawDecoder(opts);
    Random rnd = new Random(k * 100 + m);
    for (boolean direct : new boolean[] {false, true}) {
      int len = 1021 + rnd.nextInt(64);
      byte[][] data = new byte[k][len];
      for (byte[] d : data) {
        rnd.nextBytes(d);
      }
      byte[][] ourParity = encode(ours, data, m, direct);
      byte[][] theirParity = encode(theirs, data, m, direct);
      for (int i = 0; i < m; i++) {
        assertArrayEquals(theirParity[i], ourParity[i], "parity " + i + (direct ? " direct" : " heap"));
      }
      byte[][] stripe = new byte[k + m][];
      System.arraycopy(data, 0, stripe, 0, k);
      System.arraycopy(ourParity, 0, stripe, k, m);
      for (int[] erased : erasurePatterns(k + m, m)) {
        byte[][] byUs = decode(ourDec, stripe, erased, direct);
        byte[][] byThem = decode(theirDec, stripe, erased, direct);
        for (int i = 0; i < erased.length; i++) {
          assertArrayEquals(stripe[erased[i]], byUs[i], "ours, erased " + java.util.Arrays.toString(erased));
          assertArrayEquals(stripe[erased[i]], byThem[i], "rs_java, erased " + java.util.Arrays.toString(erased));
        }
      }
    }
  }

  @Test
  void decodesAnyErasureOrderAndPartialRequests() throws Exception {
    RawErasureDecoder dec = ourDecoder(6, 3);
    Random rnd = new Random(5);
    byte[][] data = new byte[6][333];
    for (byte[] d : data) {
      rnd.nextBytes(d);
    }
    byte[][] parity = encode(ourEncoder(6, 3), data, 3, true);
    byte[][] stripe = new byte[9][];
    System.arraycopy(data, 0, stripe, 0, 6);
    System.arraycopy(parity, 0, stripe, 6, 3);
    // Descending order (parity before data): Hadoop's RSRawDecoder assumes ascending.
    int[] erased = {8, 4, 1};
    byte[][] out = decode(dec, stripe, erased, false);
    for (int i = 0; i < erased.length; i++) {
      assertArrayEquals(stripe[erased[i]], out[i]);
    }
  }

  @Test
  void tooFewInputsAreRefusedNotGuessed() {
    RawErasureDecoder dec = ourDecoder(3, 2);
    ByteBuffer[] in = {ByteBuffer.allocate(8), null, null, null, ByteBuffer.allocate(8)};
    assertThrows(HadoopIllegalArgumentException.class,
        () -> dec.decode(in, new int[] {1, 2}, new ByteBuffer[] {ByteBuffer.allocate(8), ByteBuffer.allocate(8)}));
  }

  @Test
  void hadoopsCodecFrameworkRunsOurCodec() throws Exception {
    Configuration conf = new Configuration(false);
    conf.set("io.erasurecode.codec.rs", EcRepairErasureCodec.class.getName());
    conf.set("io.erasurecode.codec.rs.rawcoders", "rs_isal");
    org.apache.hadoop.io.erasurecode.ErasureCodecOptions opts =
        new org.apache.hadoop.io.erasurecode.ErasureCodecOptions(new org.apache.hadoop.io.erasurecode.ECSchema("rs", 6, 3));
    org.apache.hadoop.io.erasurecode.coder.ErasureEncoder encoder = CodecUtil.createEncoder(conf, opts);
    org.apache.hadoop.io.erasurecode.ECBlock[] data = new org.apache.hadoop.io.erasurecode.ECBlock[6];
    org.apache.hadoop.io.erasurecode.ECBlock[] parity = new org.apache.hadoop.io.erasurecode.ECBlock[3];
    for (int i = 0; i < 6; i++) {
      data[i] = new org.apache.hadoop.io.erasurecode.ECBlock(false, false);
    }
    for (int i = 0; i < 3; i++) {
      parity[i] = new org.apache.hadoop.io.erasurecode.ECBlock(true, false);
    }
    org.apache.hadoop.io.erasurecode.coder.ErasureCodingStep step =
        encoder.calculateCoding(new org.apache.hadoop.io.erasurecode.ECBlockGroup(data, parity));
    Random rnd = new Random(8);
    byte[][] cells = new byte[6][512];
    org.apache.hadoop.io.erasurecode.ECChunk[] in = new org.apache.hadoop.io.erasurecode.ECChunk[6];
    for (int i = 0; i < 6; i++) {
      rnd.nextBytes(cells[i]);
      in[i] = new org.apache.hadoop.io.erasurecode.ECChunk(ByteBuffer.wrap(cells[i].clone()));
    }
    org.apache.hadoop.io.erasurecode.ECChunk[] out = new org.apache.hadoop.io.erasurecode.ECChunk[3];
    for (int i = 0; i < 3; i++) {
      out[i] = new org.apache.hadoop.io.erasurecode.ECChunk(ByteBuffer.allocate(512));
    }
    step.performCoding(in, out);
    byte[][] expected = encode(new RSRawEncoder(new ErasureCoderOptions(6, 3)), cells, 3, false);
    for (int i = 0; i < 3; i++) {
      assertArrayEquals(expected[i], out[i].getBuffer().array(), "parity " + i);
    }
  }

  @Test
  void factoryNamesMatchHadoopConventions() {
    RsIsalRawErasureCoderFactory f = new RsIsalRawErasureCoderFactory();
    assertEquals("rs_isal", f.getCoderName());
    assertEquals("rs", f.getCodecName());
  }
}
