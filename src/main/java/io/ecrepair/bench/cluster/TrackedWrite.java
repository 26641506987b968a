package io.ecrepair.bench.cluster;

import io.ecrepair.harness.PatternData;
import java.io.IOException;
import java.util.BitSet;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.ECBlockGroupStats;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;

/**
 * Writes a benchmark file until the NameNode tracks every replica of it. A striped file closes
 * once each group's minimum is reported, and with the bench's one-second redundancy monitor the
 * NameNode may rebuild a block whose report was merely late: the rebuilt copy is excess and
 * deleted a moment later, or, landing on a node that holds another block of the group, leaves a
 * replica the NameNode does not track ({@link BenchFiles#nodesHoldingTwo}). Such a file is
 * written again (three tries).
 */
final class TrackedWrite {
  private final ClusterHandle cluster;
  private final DistributedFileSystem fs;
  private final long timeoutMs;
  private final Consumer<String> progress;

  TrackedWrite(ClusterHandle cluster, DistributedFileSystem fs, long timeoutMs, Consumer<String> progress) {
    this.cluster = cluster;
    this.fs = fs;
    this.timeoutMs = timeoutMs;
    this.progress = progress;
  }

  /** Writes {@code file} and returns its groups once every internal block is listed and none is being rebuilt. */
  List<LocatedStripedBlock> write(String label, Path file, ErasureCodingPolicy policy, long blockSize, long length,
      long seed, LongConsumer written) throws IOException, InterruptedException {
    int n = policy.getNumDataUnits() + policy.getNumParityUnits();
    for (int attempt = 1; ; attempt++) {
      BenchFiles.write(fs, file, policy, blockSize, length, new PatternData(seed), written);
      BenchFiles.awaitAllBlocks(fs, file, timeoutMs);
      awaitNoRepairs();
      List<LocatedStripedBlock> groups = awaitListedOnce(file);
      List<String> twice = BenchFiles.nodesHoldingTwo(cluster, groups, n);
      if (twice.isEmpty()) {
        return groups;
      }
      if (attempt == 3) {
        throw new IOException(label + ": every write left a DataNode with two blocks of a group: " + twice);
      }
      progress.accept(label + ": HDFS rebuilt blocks of the file it had not yet heard of, leaving " + twice
          + "; writing it again");
      fs.delete(file, false);
    }
  }

  /** Whether the NameNode counts no erasure-coded group low on redundancy or missing. */
  static boolean healthy(DistributedFileSystem fs) throws IOException {
    ECBlockGroupStats s = fs.getClient().getNamenode().getECBlockGroupStats();
    return s.getLowRedundancyBlockGroups() == 0 && s.getMissingBlockGroups() == 0;
  }

  /**
   * The file's groups once each lists every internal block on one DataNode only: an excess copy
   * rebuilt too early stays listed until its DataNode reports it deleted.
   */
  private List<LocatedStripedBlock> awaitListedOnce(Path file) throws IOException, InterruptedException {
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (true) {
      List<LocatedStripedBlock> groups = BenchFiles.awaitAllBlocks(fs, file, timeoutMs);
      if (groups.stream().allMatch(TrackedWrite::listsEachIndexOnce)) {
        return groups;
      }
      if (System.currentTimeMillis() > deadline) {
        throw new IOException("the NameNode still lists an internal block of " + file + " twice after "
            + timeoutMs / 1000 + " s");
      }
      Thread.sleep(200);
    }
  }

  private static boolean listsEachIndexOnce(LocatedStripedBlock group) {
    BitSet seen = new BitSet();
    for (byte index : group.getBlockIndices()) {
      if (seen.get(index)) {
        return false;
      }
      seen.set(index);
    }
    return true;
  }

  private void awaitNoRepairs() throws IOException, InterruptedException {
    long deadline = System.currentTimeMillis() + timeoutMs;
    // The redundancy monitor's next round (1 s) sees what the reports left out, and a block it
    // then rebuilds (a 16 MiB block at 100 Mbit/s: 1.3 s) is in place within 3 s.
    Thread.sleep(3000);
    while (!healthy(fs)) {
      if (System.currentTimeMillis() > deadline) {
        throw new IOException("the NameNode still rebuilds blocks of a file just written after " + timeoutMs / 1000
            + " s");
      }
      Thread.sleep(100);
    }
  }
}
