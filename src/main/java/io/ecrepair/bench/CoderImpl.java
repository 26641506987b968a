package io.ecrepair.bench;

import io.ecrepair.codes.CellLayout;
import io.ecrepair.codes.CodeSpec;
import io.ecrepair.codes.RepairableCode;
import io.ecrepair.exec.CompiledGraph;
import io.ecrepair.gf.Buffers;
import io.ecrepair.gf.RegionCoder;
import io.ecrepair.gf.RegionCoders;
import io.ecrepair.codes.rs.RsFamily;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.stream.IntStream;
import org.apache.hadoop.io.erasurecode.ErasureCoderOptions;
import org.apache.hadoop.io.erasurecode.rawcoder.EcRepairRawDecoder;
import org.apache.hadoop.io.erasurecode.rawcoder.EcRepairRawEncoder;
import org.apache.hadoop.io.erasurecode.rawcoder.RSRawDecoder;
import org.apache.hadoop.io.erasurecode.rawcoder.RSRawEncoder;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureDecoder;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureEncoder;

/**
 * The in-JVM coders the benchmark compares. Encode and decode go through Hadoop's
 * RawErasureEncoder/Decoder API, the way HDFS calls a coder, with the buffer kind the coder
 * prefers; repair runs the code's compiled repair graph for one lost block, the way our
 * repair path does.
 */
enum CoderImpl {
  /** Our coders on ISA-L (direct buffers). */
  NATIVE("native"),
  /** Our coders on the pure-Java GF path (heap buffers). */
  JAVA("java"),
  /** Hadoop's own rs_java (heap buffers); RS only. */
  HADOOP_RS_JAVA("hadoop-rs_java");

  final String label;

  CoderImpl(String label) {
    this.label = label;
  }

  boolean supports(CodeSpec spec, String op) {
    return switch (this) {
      case NATIVE -> RegionCoders.nativeAvailable();
      case JAVA -> true;
      case HADOOP_RS_JAVA -> spec.codec().equals(RsFamily.CODEC) && !op.equals("repair");
    };
  }

  private boolean direct() {
    return this == NATIVE;
  }

  private RegionCoder coder() {
    return this == NATIVE ? RegionCoders.isal() : RegionCoders.java();
  }

  private RepairableCode code(CodeSpec spec) {
    return spec.create(coder());
  }

  private RawErasureEncoder encoder(CodeSpec spec) {
    ErasureCoderOptions o = new ErasureCoderOptions(spec.k(), spec.m());
    return this == HADOOP_RS_JAVA ? new RSRawEncoder(o) : new EcRepairRawEncoder(o, code(spec), direct());
  }

  private RawErasureDecoder decoder(CodeSpec spec) {
    ErasureCoderOptions o = new ErasureCoderOptions(spec.k(), spec.m());
    // Our decoder of whole cells (never the refusing one HDFS gets for vector codes).
    return this == HADOOP_RS_JAVA ? new RSRawDecoder(o) : new EcRepairRawDecoder(o, code(spec), direct());
  }

  /** A stripe encode: k data cells in, m parity cells out. */
  StripeOperation encode(CodeSpec spec, int cell, long seed) {
    RawErasureEncoder enc = encoder(spec);
    ByteBuffer[] data = cells(spec.k(), cell, seed);
    ByteBuffer[] parity = cells(spec.m(), cell, -1);
    return () -> {
      rewind(data);
      rewind(parity);
      enc.encode(data, parity);
    };
  }

  /** A stripe decode of data units 0..e-1 from the others. */
  StripeOperation decode(CodeSpec spec, int cell, int erasures, long seed) {
    RawErasureDecoder dec = decoder(spec);
    ByteBuffer[] units = encodedStripe(spec, cell, seed);
    int[] erased = IntStream.range(0, erasures).toArray();
    for (int i : erased) {
      units[i] = null;
    }
    ByteBuffer[] out = cells(erasures, cell, -1);
    return () -> {
      rewind(units);
      rewind(out);
      dec.decode(units, erased, out);
    };
  }

  /** Rebuilds data unit 0 from the others with the code's cheapest repair graph. */
  StripeOperation repair(CodeSpec spec, int cell, long seed) {
    RepairableCode code = code(spec);
    ByteBuffer[] units = encodedStripe(spec, cell, seed);
    int[] available = IntStream.range(1, spec.n()).toArray();
    CellLayout layout = new CellLayout(code.subPacketization(), cell);
    CompiledGraph vector = CompiledGraph.compile(code.repairGraph(new int[] {0}, available));
    CompiledGraph tail = layout.tailBytes() > 0 ? CompiledGraph.compile(code.tailRepairGraph(new int[] {0}, available)) : null;
    ByteBuffer[] out = {Buffers.alignedDirect(cell)};
    RegionCoder coder = coder();
    return () -> {
      if (layout.subchunkBytes() > 0) {
        vector.run(coder, units, 0, out, 0, layout.subchunkBytes());
      }
      if (tail != null) {
        tail.run(coder, units, layout.tailOffset(), out, layout.tailOffset(), layout.tailBytes());
      }
    };
  }

  private ByteBuffer[] encodedStripe(CodeSpec spec, int cell, long seed) {
    ByteBuffer[] units = cells(spec.n(), cell, seed);
    RepairableCode code = code(spec);
    code.encode(java.util.Arrays.copyOf(units, spec.k()), new int[spec.k()],
        java.util.Arrays.copyOfRange(units, spec.k(), spec.n()), new int[spec.m()], cell);
    return units;
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
