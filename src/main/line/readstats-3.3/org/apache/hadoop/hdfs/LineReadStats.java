package org.apache.hadoop.hdfs;

/** The FileSystem's read statistics as Hadoop 3.3 counts them: bytes, and bytes by distance. */
final class LineReadStats {
  private LineReadStats() {}

  static void count(DFSClient client, int distance, int bytes) {
    client.updateFileSystemReadStats(distance, bytes);
  }
}
