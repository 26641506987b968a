package io.ecrepair.bench.cluster;

import io.ecrepair.harness.PatternData;
import java.io.IOException;
import java.util.List;
import java.util.function.LongConsumer;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
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

  /** The file's block groups once every one lists all n internal blocks (full groups). */
  static List<LocatedStripedBlock> awaitAllBlocks(DistributedFileSystem fs, Path file, ErasureCodingPolicy policy,
                                                  long timeoutMs) throws IOException, InterruptedException {
    int n = policy.getNumDataUnits() + policy.getNumParityUnits();
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (true) {
      List<LocatedBlock> groups = fs.getClient().getLocatedBlocks(file.toString(), 0, Long.MAX_VALUE)
          .getLocatedBlocks();
      if (groups.stream().allMatch(b -> ((LocatedStripedBlock) b).getBlockIndices().length >= n)) {
        return groups.stream().map(b -> (LocatedStripedBlock) b).toList();
      }
      if (System.currentTimeMillis() > deadline) {
        throw new IOException("the NameNode did not learn every internal block of " + file + " in "
            + timeoutMs / 1000 + " s");
      }
      Thread.sleep(100);
    }
  }
}
