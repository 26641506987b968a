package io.ecrepair.codes;

import io.ecrepair.gf.RegionCoder;

/**
 * One codec as Hadoop names it ({@code rs}, {@code clay}, {@code lrc-l2}, ...): how its
 * parameters follow from the codec name and (k, m) alone (docs/architecture.md#codes: that is all a
 * Hadoop raw coder is given), and how to build it.
 */
public interface CodecFamily {

  /** Whether this family owns the (lower-case) codec name. */
  boolean accepts(String codec);

  /** How the names look, for error messages: e.g. "rs", "lrc-l<L>". */
  String namePattern();

  /** Throws IllegalArgumentException, with a reason an operator understands, for bad parameters. */
  void validate(String codec, int k, int m);

  RepairableCode create(CodeSpec spec, RegionCoder coder);

  /** Sub-chunks per cell (alpha); 1 for scalar codes. */
  int subPacketization(CodeSpec spec);

  /** Bytes read to repair one lost data block, in blocks. */
  double repairBlocksPerLostBlock(CodeSpec spec);

  /** How many lost blocks of a group any pattern survives. */
  int faultTolerance(CodeSpec spec);

  /** Parameters particular to this codec, for `ec-repair info` (name to value, in order). */
  default java.util.Map<String, Object> details(CodeSpec spec) {
    return java.util.Map.of();
  }

  /**
   * Whether HDFS's stock decoders, which decode arbitrary partial cell ranges, would give
   * wrong bytes (true for vector codes, docs/architecture.md#what-hdfs-offers-a-plugin).
   */
  default boolean needsWholeCells(CodeSpec spec) {
    return subPacketization(spec) > 1;
  }
}
