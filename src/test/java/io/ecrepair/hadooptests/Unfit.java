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

  private Unfit() {}

  static void skip(String why) {
    assumeTrue(why, false);
  }
}
