package io.ecrepair.hdfs.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.hdfs.coder.StockDecodeFailures;
import io.ecrepair.testing.ClusterTest;
import java.io.IOException;
import java.nio.file.Path;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.web.WebHdfsConstants;
import org.apache.hadoop.hdfs.web.WebHdfsTestUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * WebHDFS reads run on a DataNode through HDFS's own {@code DFSClient}, which our FileSystem does
 * not replace. A healthy Clay file reads right over WebHDFS, and so does an LRC file whose lost
 * data block the first k blocks HDFS's reader picks can rebuild. With a Clay data block lost the
 * read fails: never wrong bytes. WebHDFS has sent its response header before the first decode,
 * so its client sees the stream cut; the serving DataNode logs why, with the fix (counted by
 * {@link StockDecodeFailures}). Our FileSystem reads the same file right.
 */
@ClusterTest
class WebHdfsDegradedReadTest {
  private static final int CELL = 64 * 1024;

  static {
    // The NameNode's WebHDFS (Jersey 1, JAXB) would define accessor classes by reflection into
    // java.lang, which Java 17 forbids without --add-opens; JAXB's plain reflection works.
    System.setProperty("com.sun.xml.bind.v2.bytecode.ClassTailor.noOptimize", "true");
  }

  @TempDir
  Path tmp;

  @Test
  void webHdfsReadsRightBytesOrNone() throws Exception {
    try (DegradedCluster c = new DegradedCluster(tmp.resolve("dfs").toFile(), 11)) {
      ErasureCodingPolicy clay = c.policy("clay", 6, 3, CELL);
      ErasureCodingPolicy lrc = c.policy("lrc-l2", 6, 4, CELL);
      org.apache.hadoop.fs.Path clayFile = new org.apache.hadoop.fs.Path("/clay/f");
      org.apache.hadoop.fs.Path lrcFile = new org.apache.hadoop.fs.Path("/lrc/f");
      int length = 2 * 6 * CELL + 1234;
      byte[] clayData = c.write(clayFile, clay, length, 2L * CELL, 1);
      byte[] lrcData = c.write(lrcFile, lrc, length, 2L * CELL, 2);
      FileSystem web = WebHdfsTestUtil.getWebHdfsFileSystem(c.conf, WebHdfsConstants.WEBHDFS_SCHEME);
      assertArrayEquals(clayData, readAll(web, clayFile), "a healthy Clay file over WebHDFS");

      // LRC data block 0 alone: the first k blocks HDFS's reader reaches hold its local parity.
      c.stopAndForget(c.holder(lrcFile, 0, 0));
      assertArrayEquals(lrcData, readAll(web, lrcFile), "an LRC file with data block 0 lost, over WebHDFS");
      if (c.located(clayFile, 0).contains(1)) { // unless that DataNode held it too
        c.stopAndForget(c.holder(clayFile, 0, 1));
      }

      long failuresBefore = StockDecodeFailures.count();
      assertThrows(IOException.class, () -> readAll(web, clayFile), "a Clay read with a lost block over WebHDFS");
      assertTrue(StockDecodeFailures.count() > failuresBefore, "the serving DataNode recorded why it cut the read");
      assertArrayEquals(clayData, readAll(c.fs, clayFile), "the same Clay file through our FileSystem");
    }
  }

  private static byte[] readAll(FileSystem fs, org.apache.hadoop.fs.Path file) throws IOException {
    try (FSDataInputStream in = fs.open(file)) {
      return in.readAllBytes();
    }
  }
}
