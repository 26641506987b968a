package io.ecrepair.hdfs.client;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.DelegateToFileSystem;
import org.apache.hadoop.hdfs.protocol.HdfsConstants;

/**
 * The {@code FileContext} side of {@link EcRepairDistributedFileSystem}: select it with
 * {@code fs.AbstractFileSystem.hdfs.impl} and FileContext reads get the same transparent degraded
 * reads. It delegates every operation to an {@link EcRepairDistributedFileSystem}, the way
 * Hadoop's own {@code DelegateToFileSystem} bindings do, instead of HDFS's {@code Hdfs}.
 */
public class EcRepairHdfs extends DelegateToFileSystem {
  public EcRepairHdfs(URI uri, Configuration conf) throws IOException, URISyntaxException {
    super(uri, new EcRepairDistributedFileSystem(), conf, HdfsConstants.HDFS_URI_SCHEME, true);
  }
}
