package io.ecrepair.bench.cluster;

import io.ecrepair.harness.PatternData;
import io.ecrepair.hdfs.ListedUnits;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;

/** Writing a benchmark file under a policy and waiting until the NameNode knows all its internal blocks. */
final class BenchFiles {
  private BenchFiles() {}

  /** Writes {@code length} bytes of {@code data} to {@code file} in a new directory under {@code policy}. */
  static void write(DistributedFileSystem fs, Path file, ErasureCodingPolicy policy, long blockSize, long length,
                    PatternData data, LongConsumer written) throws IOException {
    fs.mkdirs(file.getParent());
    fs.setErasureCodingPolicy(file.getParent(), policy.getName());
    byte[] buf = new byte[1 << 20];
    try (FSDataOutputStream out = fs.create(file, FsPermission.getFileDefault(), true, 1 << 20, (short) 1, blockSize,
        null)) {
      for (long pos = 0; pos < length; ) {
        int n = (int) Math.min(buf.length, length - pos);
        data.fill(pos, buf, 0, n);
        out.write(buf, 0, n);
        pos += n;
        written.accept(pos);
      }
    }
  }

  /** The file's block groups once each lists all its internal blocks. */
  static List<LocatedStripedBlock> awaitAllBlocks(DistributedFileSystem fs, Path file, long timeoutMs)
      throws IOException {
    return ListedUnits.await(fs.getClient(), file.toString(), timeoutMs)
        .orElseThrow(() -> new IOException("the NameNode did not learn every internal block of " + file + " in "
            + timeoutMs / 1000 + " s"))
        .stream().map(b -> (LocatedStripedBlock) b).toList();
  }

  /**
   * The DataNodes that hold replicas of two internal blocks of one group of {@code groups}, as
   * "node: group g indices [i, j]"; empty when none does. It happens when the NameNode schedules
   * a reconstruction of a just-written group before every incremental block report came in, and
   * the rebuilt block lands on a node that holds another block of the group: Hadoop 3.3.6 tracks
   * one internal block of a group per DataNode (HDFS-17047), so a later loss of the untracked one
   * is scheduled onto that node again and fails there until the pending timeout (300 s).
   */
  static List<String> nodesHoldingTwo(ClusterHandle cluster, List<LocatedStripedBlock> groups, int n)
      throws IOException {
    java.util.Map<Long, List<String>> holders = new java.util.HashMap<>();
    for (ClusterHandle.Node node : cluster.dataNodes()) {
      java.nio.file.Path dir = cluster.dataDir(node.name());
      if (!java.nio.file.Files.isDirectory(dir)) {
        continue;
      }
      try (java.util.stream.Stream<java.nio.file.Path> walk = java.nio.file.Files.walk(dir)) {
        walk.filter(f -> f.toString().contains("/finalized/")).map(f -> f.getFileName().toString())
            .filter(name -> name.startsWith("blk_") && !name.endsWith(".meta"))
            .forEach(name -> holders.computeIfAbsent(Long.parseLong(name.substring(4)), id -> new ArrayList<>())
                .add(node.name()));
      }
    }
    List<String> out = new ArrayList<>();
    for (int g = 0; g < groups.size(); g++) {
      long id = groups.get(g).getBlock().getBlockId();
      java.util.Map<String, List<Integer>> byNode = new java.util.TreeMap<>();
      for (int i = 0; i < n; i++) {
        for (String node : holders.getOrDefault(id + i, List.of())) {
          byNode.computeIfAbsent(node, x -> new ArrayList<>()).add(i);
        }
      }
      final int group = g;
      byNode.forEach((node, indices) -> {
        if (indices.size() > 1) {
          out.add(node + ": group " + group + " indices " + indices);
        }
      });
    }
    return out;
  }
}
