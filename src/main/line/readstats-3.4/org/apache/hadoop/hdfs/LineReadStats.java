package org.apache.hadoop.hdfs;

/**
 * The FileSystem's read statistics as Hadoop 3.4 and later count them: bytes, bytes by
 * distance, and remote read time, which the degraded path does not measure per read (its
 * fetches overlap), so it adds none.
 */
final class LineReadStats {
  private LineReadStats() {}

  static void count(DFSClient client, int distance, int bytes) {
    client.updateFileSystemReadStats(distance, bytes, 0);
  }
}
