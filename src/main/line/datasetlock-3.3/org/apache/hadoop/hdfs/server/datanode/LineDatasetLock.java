package org.apache.hadoop.hdfs.server.datanode;

import org.apache.hadoop.hdfs.server.datanode.fsdataset.FsDatasetSpi;
import org.apache.hadoop.util.AutoCloseableLock;

/** The DataNode's dataset read lock, as Hadoop 3.3 has it: one lock for the whole dataset. */
final class LineDatasetLock {
  private LineDatasetLock() {
  }

  /** Held, nothing changes a replica of {@code bpid} on the volume {@code storageUuid}. */
  static AutoCloseableLock read(FsDatasetSpi<?> dataset, String bpid, String storageUuid) {
    return dataset.acquireDatasetReadLock();
  }
}
