package io.ecrepair.hdfs;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.hdfs.DFSClient;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlocks;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.util.StripedBlockUtil;

/**
 * Which internal blocks of a striped group the NameNode lists. A striped file closes once each
 * group's minimum is reported; the other DataNodes' block reports trail, so whatever reads a
 * group's layout right after a write waits here first.
 */
public final class ListedUnits {
  private ListedUnits() {
  }

  /**
   * The internal blocks the group should have (its data blocks holding bytes, and every parity)
   * with no location off the DataNodes whose transfer ports are {@code gonePorts}. Counted by
   * index: a block listed twice (a stale replica beside a rebuilt one) does not stand in for
   * another.
   */
  public static Set<Integer> unlisted(LocatedStripedBlock group, ErasureCodingPolicy policy, Set<Integer> gonePorts) {
    int k = policy.getNumDataUnits();
    Set<Integer> missing = new TreeSet<>();
    for (int u = 0; u < k + policy.getNumParityUnits(); u++) {
      if (u >= k || StripedBlockUtil.getInternalBlockLength(group.getBlockSize(), policy.getCellSize(), k, u) > 0) {
        missing.add(u);
      }
    }
    for (int j = 0; j < group.getBlockIndices().length; j++) {
      if (!gonePorts.contains(group.getLocations()[j].getXferPort())) {
        missing.remove((int) group.getBlockIndices()[j]);
      }
    }
    return missing;
  }

  /** The file's groups once the NameNode lists every internal block of each; empty after {@code timeoutMs}. */
  public static Optional<List<LocatedBlock>> await(DFSClient client, String path, long timeoutMs) throws IOException {
    long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
    while (true) {
      LocatedBlocks blocks = client.getLocatedBlocks(path, 0, Long.MAX_VALUE);
      ErasureCodingPolicy policy = blocks.getErasureCodingPolicy();
      List<LocatedBlock> groups = blocks.getLocatedBlocks();
      if (policy == null) {
        throw new IllegalArgumentException(path + " is not erasure-coded");
      }
      if (groups.stream().allMatch(g -> unlisted((LocatedStripedBlock) g, policy, Set.of()).isEmpty())) {
        return Optional.of(groups);
      }
      if (System.nanoTime() > deadline) {
        return Optional.empty();
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while waiting for the block reports of " + path);
      }
    }
  }
}
