package io.ecrepair.hdfs.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.ecrepair.testing.ClusterTest;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileChecksum;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.client.HdfsClientConfigKeys;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.tools.DistCp;
import org.apache.hadoop.tools.DistCpOptions;
import org.apache.hadoop.tools.mapred.CopyMapper;
import org.apache.hadoop.util.CrcUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * File checksums of Clay, Butterfly and LRC files with two DataNodes down (the losses HDFS's
 * DataNode-side checksum cannot rebuild: any Clay or Butterfly data block, an LRC data block
 * outside the first local group, data block 0 itself) equal the healthy file's, computed by
 * HDFS's own client, in MD5MD5CRC and COMPOSITE_CRC modes, for the whole file and for ranges; and
 * DistCp copies such a file to a replicated directory and, copying back with -update, recognises
 * the files as equal.
 */
@ClusterTest
class DegradedFileChecksumTest {
  private static final int CELL = 64 * 1024;
  private static final String MD5 = "MD5MD5CRC";
  private static final String COMPOSITE = "COMPOSITE_CRC";

  @TempDir
  Path tmp;

  private record Case(String codec, int k, int m, int[] lost) {}

  @Test
  void checksumsOfDegradedGroupsEqualTheHealthyFiles() throws Exception {
    Configuration agents = new Configuration(false);
    agents.setBoolean(DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY, true);
    try (DegradedCluster c = new DegradedCluster(tmp.resolve("dfs").toFile(), 12, agents)) {
      List<Case> cases = List.of(new Case("clay", 6, 3, new int[] {0, 2}), new Case("butterfly", 4, 2, new int[] {1, 3}),
          new Case("lrc-l2", 6, 4, new int[] {4, 0}));
      long seed = 5;
      for (Case k : cases) {
        ErasureCodingPolicy policy = c.policy(k.codec(), k.k(), k.m(), CELL);
        org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/" + k.codec() + "/f");
        long group = 2L * k.k() * CELL;
        int length = (int) (2 * group + CELL + 777); // two groups of two rows, then one partial cell
        byte[] data = c.write(file, policy, length, 2L * CELL, seed++);
        long[] ranges = {length, k.k() * CELL + 100, group + 3 * CELL / 2, 2 * group - 5};

        Map<String, FileChecksum> stock = checksums(c, DistributedFileSystem.class, file, ranges);
        Map<String, FileChecksum> healthy = checksums(c, EcRepairDistributedFileSystem.class, file, ranges);
        for (Map.Entry<String, FileChecksum> e : healthy.entrySet()) {
          String what = k.codec() + ": our client's " + e.getKey() + " of the healthy file";
          if (e.getKey().startsWith(COMPOSITE)) {
            // A composite CRC is the CRC32C of the bytes it covers. Hadoop 3.3's client composes a
            // wrong one for a range that ends before the file's last group, so it is no reference.
            String range = e.getKey().substring(COMPOSITE.length() + 1);
            int covered = range.equals("whole") ? length : Integer.parseInt(range);
            assertEquals(crc32c(data, covered), CrcUtil.readInt(e.getValue().getBytes(), 0), what);
          } else {
            assertEquals(stock.get(e.getKey()), e.getValue(), what);
          }
        }
        assertEquals(stock.get(COMPOSITE + " whole"), healthy.get(COMPOSITE + " whole"),
            k.codec() + ": HDFS's and our client's composite CRC of the whole file");

        List<DatanodeInfo> victims = new ArrayList<>();
        for (int idx : k.lost()) {
          victims.add(c.holder(file, 0, idx));
        }
        List<MiniDFSCluster.DataNodeProperties> stopped = c.hdfs.stop(victims.toArray(new DatanodeInfo[0]));
        try {
          assertEquals(healthy, checksums(c, EcRepairDistributedFileSystem.class, file, ranges),
              k.codec() + ": checksums with data blocks " + java.util.Arrays.toString(k.lost()) + " of group 0 lost");
        } finally {
          c.hdfs.restart(stopped);
          c.hdfs.awaitReported(file, 60_000);
        }
      }
    }
  }

  @Test
  void distcpCopiesADegradedFileAndRecognisesTheCopyAsEqual() throws Exception {
    Configuration agents = new Configuration(false);
    agents.setBoolean(DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY, true);
    try (DegradedCluster c = new DegradedCluster(tmp.resolve("dfs").toFile(), 10, agents)) {
      ErasureCodingPolicy policy = c.policy("clay", 6, 3, CELL);
      org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/ec/f");
      byte[] data = c.write(file, policy, 2 * 6 * CELL * 2 + 12345, 2L * CELL, 21);
      c.fs.mkdirs(new org.apache.hadoop.fs.Path("/copy"));
      c.stopAndForget(c.holder(file, 0, 0));

      // COMPOSITE_CRC: the mode in which a striped file and its replicated copy have one checksum.
      Configuration conf = clientConf(c, EcRepairDistributedFileSystem.class, COMPOSITE);
      Job there = distcp(conf, "/ec", "/copy");
      org.apache.hadoop.fs.Path copy = new org.apache.hadoop.fs.Path("/copy/f");
      assertArrayEquals(data, readAll(c.fs, copy), "the replicated copy");
      assertEquals(data.length, counter(there, CopyMapper.Counter.BYTESCOPIED), "bytes copied there");

      Job back = distcp(conf, "/copy", "/ec");
      assertEquals(0, counter(back, CopyMapper.Counter.BYTESCOPIED), "bytes copied back");
      assertEquals(data.length, counter(back, CopyMapper.Counter.BYTESSKIPPED),
          "the degraded original recognised as equal to its copy");
    }
  }

  private static Job distcp(Configuration conf, String from, String to) throws Exception {
    DistCpOptions options = new DistCpOptions.Builder(
        List.of(new org.apache.hadoop.fs.Path(from + "/f")), new org.apache.hadoop.fs.Path(to))
        .withSyncFolder(true)
        .build();
    Job job = new DistCp(conf, options).execute();
    assertNotNull(job);
    return job;
  }

  private static long counter(Job job, CopyMapper.Counter which) throws IOException {
    return job.getCounters().findCounter(which).getValue();
  }

  /** Each mode's checksum of the whole file and of each range, through a client of {@code impl}. */
  private static Map<String, FileChecksum> checksums(DegradedCluster c, Class<?> impl, org.apache.hadoop.fs.Path file,
      long[] ranges) throws IOException {
    Map<String, FileChecksum> out = new LinkedHashMap<>();
    for (String mode : List.of(MD5, COMPOSITE)) {
      try (FileSystem fs = FileSystem.newInstance(c.uri(), clientConf(c, impl, mode))) {
        out.put(mode + " whole", fs.getFileChecksum(file));
        for (long r : ranges) {
          out.put(mode + " " + r, fs.getFileChecksum(file, r));
        }
      }
    }
    return out;
  }

  private static int crc32c(byte[] data, int length) {
    CRC32C crc = new CRC32C();
    crc.update(data, 0, length);
    return (int) crc.getValue();
  }

  private static Configuration clientConf(DegradedCluster c, Class<?> impl, String mode) {
    Configuration conf = new Configuration(c.conf);
    conf.set("fs.hdfs.impl", impl.getName());
    conf.set(HdfsClientConfigKeys.DFS_CHECKSUM_COMBINE_MODE_KEY, mode);
    return conf;
  }

  static byte[] readAll(FileSystem fs, org.apache.hadoop.fs.Path file) throws IOException {
    try (FSDataInputStream in = fs.open(file)) {
      return in.readAllBytes();
    }
  }
}
