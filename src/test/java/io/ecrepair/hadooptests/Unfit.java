package io.ecrepair.hadooptests;

import static org.junit.Assume.assumeTrue;

/** Why a Hadoop test method does not apply to our path or code: the one line it is skipped with. */
final class Unfit {
  /** Hadoop's StripedBlockReader hooks (delayBlockReader, its buffer pool): the plugin reads helpers its own way. */
  static final String STOCK_READER_HOOKS = "stalls HDFS's StripedBlockReader through its fault hooks and inspects "
      + "its buffer pool; the plugin reads helpers its own way, and HelperStallTest stalls those reads";
  /** HDFS's own striped stream decodes partial cells, which a vector code refuses. */
  static final String STOCK_STREAM_VECTOR = "reads a lost block through HDFS's own DFSStripedInputStream, which "
      + "decodes partial cells; a vector code refuses that, and our client's stream is DegradedReadTest's";

  /** LRC is not MDS, and HDFS's striped stream decodes from the first k blocks it reaches. */
  static final String LRC_FIRST_K = "reads a lost block through HDFS's own DFSStripedInputStream, which decodes from "
      + "the first k blocks it reaches; LRC is not MDS and those cannot rebuild this loss (our client's stream can)";
  /** SimulatedFSDataset keeps no checksums, and our degraded reads refuse bytes they cannot verify. */
  static final String SIMULATED_NO_CHECKSUMS = "reads degraded from SimulatedFSDataset, which stores no checksums; "
      + "our client refuses helper bytes it cannot verify";
  /** Hadoop's parity oracle encodes whole blocks in one call; Clay's parity is defined per cell row. */
  static final String WHOLE_BLOCK_PARITY = "checks parity with Hadoop's oracle, which encodes whole internal blocks "
      + "in one call; Clay's parity is defined per cell row (ec-repair verify checks it so)";

  /** Hadoop's multi-loss cases corrupt replicas on disk and count on the repair reading them whole. */
  static final String CORRUPTION_FOUND_BY_READING = "stops one DataNode and corrupts the other lost replicas on "
      + "disk, counting on the first repair to read them whole and report them; our codes' repairs read a fraction "
      + "of fewer blocks (a Clay sub-chunk, an LRC local group), so the scanner finds those later";

  /** LRC is not MDS: it survives any g+1 losses, and only some patterns of more. */
  static final String LRC_BEYOND_GUARANTEE = "loses more blocks, chosen at random, than LRC survives in every pattern "
      + "(g+1); some such patterns leave a lost data block without a parity that covers it";

  /** TestDecommissionWithStriped copies blocks of a six-cell file as one cell long, which they are only when k = 6. */
  static final String SIX_CELLS_ONE_EACH = "writes six cells and has a DataNode copy one of its internal blocks as one "
      + "cell long, as each is on RS-6-3; with k = 4 blocks 0 and 1 hold two cells, the NameNode marks the copy corrupt "
      + "for its length and the wait for it times out (RS-6-3's live counts follow)";
  /** TestDecommissionWithStriped's assertions on RS-6-3's nine internal blocks, in the method body. */
  static final String RS_NINE_LIVE = "asserts RS-6-3's group in its body: 9 live internal blocks once 4 are "
      + "decommissioned and a fifth stopped; a group of this code has k + m";
  /** TestDecommissionWithStriped's busy and decommissioned RS-6-3 parity blocks 6 and 8. */
  static final String RS_PARITY_INDICES = "makes internal blocks 6 and 8 (RS-6-3's parity) busy and "
      + "decommissioning; a group of this code has k + m blocks and no block 8";

  private Unfit() {}

  static void skip(String why) {
    assumeTrue(why, false);
  }
}
