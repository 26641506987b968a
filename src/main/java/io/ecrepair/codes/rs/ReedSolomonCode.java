package io.ecrepair.codes.rs;

import io.ecrepair.codes.RepairableCode;
import io.ecrepair.codes.UndecodableException;
import io.ecrepair.ecdag.Ecdag;
import io.ecrepair.gf.CodingTables;
import io.ecrepair.gf.GFMatrix;
import io.ecrepair.gf.RegionCoder;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Systematic Reed-Solomon with the Cauchy generator of ISA-L and Hadoop's {@code rs} codec,
 * so parity is byte-identical to Hadoop's {@code rs_java} and {@code rs_native}. Decoding
 * uses the first k available units in index order, as Hadoop does. Thread-safe.
 */
public final class ReedSolomonCode implements RepairableCode {
  private static final int MAX_CACHED_DECODERS = 1024;

  private final int k;
  private final int m;
  private final RegionCoder coder;
  private final GFMatrix generator;
  private final CodingTables encodeTables;
  private final Map<String, CodingTables> decodeTables = new ConcurrentHashMap<>();

  public ReedSolomonCode(int k, int m, RegionCoder coder) {
    if (k < 1 || m < 1 || k + m > 255) {
      throw new IllegalArgumentException("RS needs k >= 1, m >= 1, k+m <= 255; got k=" + k + " m=" + m);
    }
    this.k = k;
    this.m = m;
    this.coder = coder;
    this.generator = GFMatrix.systematicCauchy(k + m, k);
    this.encodeTables = coder.prepare(generator.selectRows(range(k, k + m)));
  }

  @Override
  public String name() {
    return "RS(" + (k + m) + "," + k + ")";
  }

  @Override
  public int dataUnits() {
    return k;
  }

  @Override
  public int parityUnits() {
    return m;
  }

  /** The n x k generator: identity on top, Cauchy rows below. */
  public GFMatrix generator() {
    return generator;
  }

  @Override
  public void encode(ByteBuffer[] data, int[] dataOff, ByteBuffer[] parity, int[] parityOff, int len) {
    coder.encode(encodeTables, data, dataOff, parity, parityOff, len, false);
  }

  @Override
  public void decode(ByteBuffer[] units, int[] unitOff, int[] wanted, ByteBuffer[] out, int[] outOff, int len) {
    if (units.length != k + m) {
      throw new IllegalArgumentException(name() + " takes " + (k + m) + " unit slots, got " + units.length);
    }
    if (wanted.length != out.length) {
      throw new IllegalArgumentException(wanted.length + " wanted units but " + out.length + " outputs");
    }
    int[] sources = firstAvailable(units);
    ByteBuffer[] in = new ByteBuffer[k];
    int[] inOff = new int[k];
    for (int i = 0; i < k; i++) {
      in[i] = units[sources[i]];
      inOff[i] = unitOff[sources[i]];
    }
    coder.encode(decodeTables(sources, wanted), in, inOff, out, outOff, len, false);
  }

  /** The rows that turn the units {@code sources} into the units {@code wanted}. */
  public GFMatrix decodeMatrix(int[] sources, int[] wanted) {
    for (int w : wanted) {
      if (w < 0 || w >= k + m) {
        throw new IllegalArgumentException("unit " + w + " is outside 0.." + (k + m - 1));
      }
    }
    GFMatrix inverse = generator.selectRows(sources).invert();
    return generator.selectRows(wanted).multiply(inverse);
  }

  /** Any k available units determine the rest: read the first k, combine. */
  @Override
  public Ecdag repairGraph(int[] lost, int[] available) {
    if (available.length < k) {
      throw new UndecodableException(name() + " needs " + k + " of its " + (k + m) + " units, only "
          + available.length + " available");
    }
    int[] sources = java.util.Arrays.copyOf(available, k);
    GFMatrix rows = decodeMatrix(sources, lost);
    Ecdag.Builder g = Ecdag.builder(1);
    int[] leaves = new int[k];
    for (int i = 0; i < k; i++) {
      leaves[i] = g.leaf(sources[i], 0);
    }
    for (int r = 0; r < lost.length; r++) {
      int[] coefs = new int[k];
      for (int i = 0; i < k; i++) {
        coefs[i] = rows.get(r, i) & 0xFF;
      }
      g.repaired(lost[r], 0, leaves, coefs);
    }
    return g.build();
  }

  /** RS has no sub-chunks: the whole cell is one, and its "tail" graph is the same. */
  @Override
  public Ecdag tailRepairGraph(int[] lost, int[] available) {
    return repairGraph(lost, available);
  }

  /** The last decode's pattern: HDFS decodes the same one chunk after chunk. */
  private record LastDecode(int[] sources, int[] wanted, CodingTables tables) {}

  private volatile LastDecode last;

  private CodingTables decodeTables(int[] sources, int[] wanted) {
    LastDecode l = last;
    if (l != null && Arrays.equals(l.sources(), sources) && Arrays.equals(l.wanted(), wanted)) {
      return l.tables();
    }
    CodingTables t = cachedDecodeTables(sources, wanted);
    last = new LastDecode(sources.clone(), wanted.clone(), t);
    return t;
  }

  private CodingTables cachedDecodeTables(int[] sources, int[] wanted) {
    String key = Arrays.toString(sources) + Arrays.toString(wanted);
    CodingTables t = decodeTables.get(key);
    if (t == null) {
      if (decodeTables.size() >= MAX_CACHED_DECODERS) {
        decodeTables.clear();
      }
      t = coder.prepare(decodeMatrix(sources, wanted));
      decodeTables.put(key, t);
    }
    return t;
  }

  private int[] firstAvailable(ByteBuffer[] units) {
    int[] sources = new int[k];
    int found = 0;
    for (int i = 0; i < units.length && found < k; i++) {
      if (units[i] != null) {
        sources[found++] = i;
      }
    }
    if (found < k) {
      throw new UndecodableException(name() + " needs " + k + " of its " + (k + m) + " units, only " + found + " available");
    }
    return sources;
  }

  private static int[] range(int from, int to) {
    int[] r = new int[to - from];
    for (int i = 0; i < r.length; i++) {
      r[i] = from + i;
    }
    return r;
  }
}
