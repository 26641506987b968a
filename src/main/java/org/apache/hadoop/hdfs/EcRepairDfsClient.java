package org.apache.hadoop.hdfs;

import java.io.IOException;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.client.HdfsDataOutputStream;

/**
 * HDFS's client with one change: every output stream it hands to the FileSystem (create,
 * append, builders, all of which end in {@link #createWrappedOutputStream}) passes through an
 * {@link OutputGuard} first.
 */
public class EcRepairDfsClient extends DFSClient {

  /** Puts a stream of its own in place of HDFS's where it needs to, else returns HDFS's. */
  public interface OutputGuard {
    HdfsDataOutputStream wrap(DFSOutputStream dfsos, HdfsDataOutputStream hdfs, FileSystem.Statistics statistics,
                              long startPosition, DFSClient client) throws IOException;
  }

  private final OutputGuard guard;

  public EcRepairDfsClient(URI nameNodeUri, Configuration conf, FileSystem.Statistics stats, OutputGuard guard)
      throws IOException {
    super(nameNodeUri, conf, stats);
    this.guard = guard;
  }

  @Override
  public HdfsDataOutputStream createWrappedOutputStream(DFSOutputStream dfsos, FileSystem.Statistics statistics,
                                                        long startPos) throws IOException {
    return guard.wrap(dfsos, super.createWrappedOutputStream(dfsos, statistics, startPos), statistics, startPos, this);
  }
}
