package io.ecrepair.bench;

import io.ecrepair.codes.rs.ReedSolomonCode;
import io.ecrepair.gf.Buffers;
import io.ecrepair.gf.RegionCoder;
import io.ecrepair.gf.RegionCoders;
import java.nio.ByteBuffer;
import java.util.Random;
import org.apache.hadoop.io.erasurecode.ErasureCoderOptions;
import org.apache.hadoop.io.erasurecode.rawcoder.EcRepairRawDecoder;
import org.apache.hadoop.io.erasurecode.rawcoder.EcRepairRawEncoder;
import org.apache.hadoop.io.erasurecode.rawcoder.RSRawDecoder;
import org.apache.hadoop.io.erasurecode.rawcoder.RSRawEncoder;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureDecoder;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureEncoder;

/**
 * The in-JVM coders the benchmark compares, each called the way HDFS calls it: through
 * Hadoop's RawErasureEncoder/Decoder API, with the buffer kind the coder prefers.
 */
enum CoderImpl {
  /** Our rs_isal coder on ISA-L (direct buffers). */
  NATIVE("native"),
  /** Our rs_isal coder on the pure-Java GF path (heap buffers). */
  JAVA("java"),
  /** Hadoop's own rs_java (heap buffers). */
  HADOOP_RS_JAVA("hadoop-rs_java");

  final String label;

  CoderImpl(String label) {
    this.label = label;
  }

  boolean available() {
    return this != NATIVE || RegionCoders.nativeAvailable();
  }

  private boolean direct() {
    return this == NATIVE;
  }

  private RawErasureEncoder encoder(int k, int m) {
    ErasureCoderOptions o = new ErasureCoderOptions(k, m);
    return switch (this) {
      case NATIVE -> new EcRepairRawEncoder(o, new ReedSolomonCode(k, m, RegionCoders.isal()), true);
      case JAVA -> new EcRepairRawEncoder(o, new ReedSolomonCode(k, m, javaCoder()), false);
      case HADOOP_RS_JAVA -> new RSRawEncoder(o);
    };
  }

  private RawErasureDecoder decoder(int k, int m) {
    ErasureCoderOptions o = new ErasureCoderOptions(k, m);
    return switch (this) {
      case NATIVE -> new EcRepairRawDecoder(o, new ReedSolomonCode(k, m, RegionCoders.isal()), true);
      case JAVA -> new EcRepairRawDecoder(o, new ReedSolomonCode(k, m, javaCoder()), false);
      case HADOOP_RS_JAVA -> new RSRawDecoder(o);
    };
  }

  private static RegionCoder javaCoder() {
    return RegionCoders.java();
  }

  /** A stripe encode: k data cells in, m parity cells out. */
  StripeOperation encode(int k, int m, int cell, long seed) {
    RawErasureEncoder enc = encoder(k, m);
    ByteBuffer[] data = cells(k, cell, seed);
    ByteBuffer[] parity = cells(m, cell, -1);
    return () -> {
      rewind(data);
      rewind(parity);
      enc.encode(data, parity);
    };
  }

  /** A stripe decode of data units 0..e-1 from the next k units. */
  StripeOperation decode(int k, int m, int cell, int erasures, long seed) {
    RawErasureDecoder dec = decoder(k, m);
    ByteBuffer[] units = cells(k + m, cell, seed);
    int[] erased = new int[erasures];
    for (int i = 0; i < erasures; i++) {
      erased[i] = i;
      units[i] = null;
    }
    ByteBuffer[] out = cells(erasures, cell, -1);
    return () -> {
      rewind(units);
      rewind(out);
      dec.decode(units, erased, out);
    };
  }

  private ByteBuffer[] cells(int count, int cell, long seed) {
    ByteBuffer[] b = new ByteBuffer[count];
    Random rnd = new Random(seed);
    byte[] content = new byte[cell];
    for (int i = 0; i < count; i++) {
      b[i] = direct() ? Buffers.alignedDirect(cell) : ByteBuffer.allocate(cell);
      if (seed >= 0) {
        rnd.nextBytes(content);
        b[i].put(0, content);
      }
    }
    return b;
  }

  private static void rewind(ByteBuffer[] bs) {
    for (ByteBuffer b : bs) {
      if (b != null) {
        b.clear();
      }
    }
  }
}
