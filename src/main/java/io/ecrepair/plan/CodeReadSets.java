package io.ecrepair.plan;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.codes.UndecodableException;
import io.ecrepair.exec.CellRowRepair;
import java.util.BitSet;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A code's read sets for the cost-aware search ({@link CostAwareReads}): what the code's
 * cheapest repair of one unit from some units reads, in sub-chunks, from the repairs
 * {@link CodeRepairs} compiles. Kept per (lost unit, units) once computed, so a search on
 * later reads costs lookups only.
 */
public final class CodeReadSets implements CostAwareReads.ReadSets {
  private static final Map<CodeSpec, CodeReadSets> SHARED = new ConcurrentHashMap<>();
  private static final long[][] UNDECODABLE = new long[0][];

  private final CodeSpec spec;
  private final Map<Long, long[][]> reads = new ConcurrentHashMap<>();

  private CodeReadSets(CodeSpec spec) {
    this.spec = spec;
  }

  /** The read sets of {@code spec}, shared by every reader of that code in this JVM. */
  public static CodeReadSets of(CodeSpec spec) {
    return SHARED.computeIfAbsent(spec, CodeReadSets::new);
  }

  @Override
  public int subchunks() {
    return spec.subPacketization();
  }

  @Override
  public int units() {
    return spec.n();
  }

  @Override
  public int dataUnits() {
    return spec.k();
  }

  @Override
  public long[][] reads(int lost, int[] available) {
    long key = lost;
    for (int u : available) {
      key |= 1L << (8 + u);
    }
    long[][] r = reads.computeIfAbsent(key, x -> compute(lost, available));
    return r == UNDECODABLE ? null : r;
  }

  private long[][] compute(int lost, int[] available) {
    int alpha = spec.subPacketization();
    if (available.length == spec.k() && spec.faultTolerance() == spec.m()) {
      // An MDS code (RS, Clay, Butterfly) decodes from any k units, reading them whole: no
      // repair to compile, which for a vector code takes milliseconds per read set.
      long[][] whole = new long[spec.n()][];
      BitSet all = new BitSet(alpha);
      all.set(0, alpha);
      for (int u : available) {
        whole[u] = all.toLongArray();
      }
      return whole;
    }
    CellRowRepair repair;
    try {
      repair = CodeRepairs.plan(spec, new int[] {lost}, available);
    } catch (UndecodableException e) {
      return UNDECODABLE;
    }
    long[][] out = new long[spec.n()][];
    for (int h : repair.helpers()) {
      BitSet b = new BitSet(alpha);
      for (int[] range : repair.ranges(h, alpha)) { // a coding length of alpha: one byte per sub-chunk
        b.set(range[0], range[0] + range[1]);
      }
      out[h] = b.toLongArray();
    }
    return out;
  }
}
