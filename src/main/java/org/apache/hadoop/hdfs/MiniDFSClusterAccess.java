package org.apache.hadoop.hdfs;

import org.apache.hadoop.conf.Configuration;

/** What a MiniDFSCluster keeps package-private that restarting a DataNode on new ports needs. */
public final class MiniDFSClusterAccess {
  private MiniDFSClusterAccess() {
  }

  /** The configuration a stopped DataNode restarts with (restartDataNode writes its old ports into it). */
  public static Configuration conf(MiniDFSCluster.DataNodeProperties stopped) {
    return stopped.conf;
  }
}
