package io.ecrepair.hdfs.client;

import io.ecrepair.hdfs.HadoopLine;
import io.ecrepair.hdfs.NodeCosts;
import java.io.IOException;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileChecksum;
import org.apache.hadoop.fs.Options.ChecksumCombineMode;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FileSystemLinkResolver;
import org.apache.hadoop.fs.GlobalStorageStatistics;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.PathHandle;
import org.apache.hadoop.hdfs.DFSInputStream;
import org.apache.hadoop.hdfs.DFSOpsCountStatistics.OpType;
import org.apache.hadoop.hdfs.DFSOpsCountStatistics;
import org.apache.hadoop.hdfs.DFSUtilClient;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.EcRepairFileSystemBase;
import org.apache.hadoop.hdfs.EcRepairDfsClient;
import org.apache.hadoop.hdfs.EcRepairStripedInputStream;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.HdfsPathHandle;

/**
 * HDFS's {@link DistributedFileSystem} with transparent degraded reads for hadoop-ec-repair's
 * policies (Clay, Butterfly, LRC): select it with {@code fs.hdfs.impl} (conf/core-site.ec-repair.xml).
 *
 * <p>Opening a file and its checksum change (the checksum stays right while blocks are lost,
 * {@link StripedFileChecksum}), and only for files whose erasure-coding policy is ours: they
 * get an {@link EcRepairStripedInputStream}, HDFS's striped stream whose reads of cells on an
 * unreadable internal block are rebuilt with the code's cheapest repair ({@link DegradedReader})
 * instead of HDFS's decoder: first by the helpers' repair agents with this client as the
 * requestor ({@link AgentReads}), else by fetching the repair's read set. Files under Hadoop's RS
 * policies are ours too while DataNodes' costs may differ ({@link NodeCosts}: measured, or set by
 * the operator) or the agents can be asked, since HDFS's reader always decodes from the first k
 * blocks it can open. Healthy reads, and every read of replicated files
 * and of other policies, are HDFS's own. {@code open(Path)},
 * {@code open(PathHandle)} and {@code openFile()} (which ends in {@code open}) all go through here.
 */
public class EcRepairDistributedFileSystem extends EcRepairFileSystemBase {
  private boolean verifyChecksum = true;
  private NodeCosts costs;
  private AgentReads agents;

  @Override
  public void initialize(java.net.URI uri, org.apache.hadoop.conf.Configuration conf) throws IOException {
    String otherLine = HadoopLine.mismatch();
    if (otherLine != null) {
      throw new IOException("ec-repair: " + otherLine);
    }
    super.initialize(uri, conf);
    costs = NodeCosts.from(conf, ClientCosts.measured(conf));
    agents = new AgentReads(getClient(), conf, costs);
    ClientMetrics.register(conf);
  }

  @Override
  protected EcRepairDfsClient.OutputGuard outputGuard() {
    return new DecodableWriteGuard();
  }

  @Override
  public void setVerifyChecksum(boolean verifyChecksum) {
    super.setVerifyChecksum(verifyChecksum);
    this.verifyChecksum = verifyChecksum;
  }

  @Override
  public FSDataInputStream open(Path f, int bufferSize) throws IOException {
    countOpen();
    Path absF = fixRelativePart(f);
    return new FileSystemLinkResolver<FSDataInputStream>() {
      @Override
      public FSDataInputStream doCall(Path p) throws IOException {
        return wrap(EcRepairStripedInputStream.open(getClient(), pathName(p), verifyChecksum,
            EcRepairDistributedFileSystem.this::owns, s -> new DegradedReader(s, costs, agents)));
      }

      @Override
      public FSDataInputStream next(FileSystem fs, Path p) throws IOException {
        return fs.open(p, bufferSize);
      }
    }.resolve(this, absF);
  }

  @Override
  public FSDataInputStream open(PathHandle fd, int bufferSize) throws IOException {
    countOpen();
    HdfsPathHandle id = fd instanceof HdfsPathHandle h ? h : new HdfsPathHandle(fd.bytes());
    return wrap(EcRepairStripedInputStream.open(getClient(), id, verifyChecksum, this::owns,
        s -> new DegradedReader(s, costs, agents)));
  }

  @Override
  public FileChecksum getFileChecksum(Path f) throws IOException {
    return getFileChecksum(f, Long.MAX_VALUE);
  }

  /**
   * HDFS's file checksum; for files under our policies computed so that it stays the healthy
   * file's while internal blocks are lost ({@link StripedFileChecksum}).
   */
  @Override
  public FileChecksum getFileChecksum(Path f, long length) throws IOException {
    statistics.incrementReadOps(1);
    opsCounter().incrementOpCounter(OpType.GET_FILE_CHECKSUM);
    Path absF = fixRelativePart(f);
    return new FileSystemLinkResolver<FileChecksum>() {
      @Override
      public FileChecksum doCall(Path p) throws IOException {
        String src = pathName(p);
        ChecksumCombineMode mode = getClient().getConf().getChecksumCombineMode();
        FileChecksum ours = new StripedFileChecksum(getClient()).compute(src, length, mode, () -> open(p));
        return ours != null ? ours : getClient().getFileChecksumWithCombineMode(src, length);
      }

      @Override
      public FileChecksum next(FileSystem fs, Path p) throws IOException {
        return fs.getFileChecksum(p, length);
      }
    }.resolve(this, absF);
  }

  /**
   * Our policies always; Hadoop's RS too when DataNodes' costs may differ (only our reader weighs
   * them) or the repair agents can send a lost block's cells (HDFS's reader fetches k cells per lost one).
   */
  private boolean owns(ErasureCodingPolicy policy) {
    return ClientPolicies.owns(policy, costs.active() || agents.enabled());
  }

  /** As DistributedFileSystem's package-private getPathName. */
  private String pathName(Path file) {
    checkPath(file);
    String result = file.toUri().getPath();
    if (!DFSUtilClient.isValidName(result)) {
      throw new IllegalArgumentException("Pathname " + result + " from " + file + " is not a valid DFS filename.");
    }
    return result;
  }

  private void countOpen() {
    statistics.incrementReadOps(1);
    opsCounter().incrementOpCounter(OpType.OPEN);
  }

  /** The instance DistributedFileSystem registered at initialize (its own field is private). */
  private static DFSOpsCountStatistics opsCounter() {
    return (DFSOpsCountStatistics) GlobalStorageStatistics.INSTANCE.get(DFSOpsCountStatistics.NAME);
  }

  /** HDFS's wrapper (decryption for encryption zones, HdfsDataInputStream's accessors). */
  private FSDataInputStream wrap(DFSInputStream in) throws IOException {
    try {
      return getClient().createWrappedInputStream(in);
    } catch (IOException e) {
      in.close();
      throw e;
    }
  }
}
