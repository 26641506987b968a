package org.apache.hadoop.hdfs;

import java.io.IOException;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;

/**
 * {@link DistributedFileSystem} whose client is an {@link EcRepairDfsClient}: the client is
 * made in a package-private method, so the subclass that replaces it lives in HDFS's package.
 */
public abstract class EcRepairFileSystemBase extends DistributedFileSystem {

  /** The guard every output stream passes; called while the FileSystem initializes. */
  protected abstract EcRepairDfsClient.OutputGuard outputGuard();

  @Override
  void initDFSClient(URI theUri, Configuration conf) throws IOException {
    this.dfs = new EcRepairDfsClient(theUri, conf, statistics, outputGuard());
  }
}
