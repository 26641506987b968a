package org.apache.hadoop.hdfs;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.hadoop.hdfs.StripeReader.BlockReaderInfo;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.HdfsLocatedFileStatus;
import org.apache.hadoop.hdfs.protocol.HdfsPathHandle;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlocks;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.util.IOUtilsClient;
import org.apache.hadoop.tracing.TraceScope;

/**
 * hadoop-ec-repair's striped input stream: HDFS's own {@link DFSStripedInputStream} (so seek,
 * skip, ByteBuffer reads, statistics, unbuffer and the {@code HdfsDataInputStream} wrapper are
 * stock), except that a read touching an internal block the stream cannot read goes to a
 * {@link DegradedPath} (hadoop-ec-repair's cell-aligned repair) instead of HDFS's decoder, which
 * decodes partial cell ranges (wrong for vector codes) and always reads k blocks.
 *
 * <p>Lives in HDFS's package because the stream's constructor, its read strategies and its
 * dead-node bookkeeping are package-private; it holds no policy of its own.
 */
public class EcRepairStripedInputStream extends LineStripedInputStream {

  /** What reads the ranges this stream cannot read the stock way. */
  public interface DegradedPath {
    /**
     * Whether bytes [start, end] (inclusive, offsets in the block group) need a block the
     * stream cannot read (no location, or its DataNode is dead for this stream).
     */
    boolean needsRebuild(LocatedStripedBlock group, long start, long end) throws IOException;

    /** Reads bytes [start, end] of the group into {@code buf} from its position, and advances it. */
    void read(LocatedStripedBlock group, long start, long end, ByteBuffer buf) throws IOException;

    /** Drops buffers and connections (unbuffer, close); the path stays usable. */
    void release();
  }

  private final ErasureCodingPolicy policy;
  private final DegradedPath degraded;
  private final EcRepairStockReads stockReads;
  /** The rest of a cell row read through the degraded path, for stateful reads: file offsets [rowFrom, rowTo). */
  private ByteBuffer rowBuffer;
  private long rowFrom;
  private long rowTo;

  EcRepairStripedInputStream(DFSClient client, String src, boolean verifyChecksum, ErasureCodingPolicy policy,
                             LocatedBlocks blocks, Function<EcRepairStripedInputStream, DegradedPath> path)
      throws IOException {
    super(client, src, verifyChecksum, policy, blocks);
    this.policy = policy;
    this.degraded = path.apply(this);
    this.stockReads = new EcRepairStockReads(client.getStripedReadsThreadPool());
  }

  /**
   * Opens {@code src} as {@link DFSClient#open(String, int, boolean)} does (one NameNode call),
   * with this stream for files whose policy {@code ours} accepts and HDFS's stream otherwise.
   */
  public static DFSInputStream open(DFSClient client, String src, boolean verifyChecksum,
                                    Predicate<ErasureCodingPolicy> ours,
                                    Function<EcRepairStripedInputStream, DegradedPath> path) throws IOException {
    client.checkOpen();
    try (TraceScope ignored = client.newPathTraceScope("newDFSInputStream", src)) {
      return build(client, client.getLocatedBlocks(src, 0), src, verifyChecksum, ours, path);
    }
  }

  /** As {@link DFSClient#open(HdfsPathHandle, int, boolean)}, with this stream for our policies. */
  public static DFSInputStream open(DFSClient client, HdfsPathHandle handle, boolean verifyChecksum,
                                    Predicate<ErasureCodingPolicy> ours,
                                    Function<EcRepairStripedInputStream, DegradedPath> path) throws IOException {
    client.checkOpen();
    String src = handle.getPath();
    try (TraceScope ignored = client.newPathTraceScope("newDFSInputStream", src)) {
      HdfsLocatedFileStatus status = client.getLocatedFileInfo(src, true);
      handle.verify(status);
      return build(client, status.getLocatedBlocks(), src, verifyChecksum, ours, path);
    }
  }

  private static DFSInputStream build(DFSClient client, LocatedBlocks blocks, String src, boolean verifyChecksum,
                                      Predicate<ErasureCodingPolicy> ours,
                                      Function<EcRepairStripedInputStream, DegradedPath> path) throws IOException {
    if (blocks == null) {
      throw new IOException("Cannot open filename " + src);
    }
    ErasureCodingPolicy policy = blocks.getErasureCodingPolicy();
    if (policy == null) {
      return new DFSInputStream(client, src, verifyChecksum, blocks);
    }
    if (!ours.test(policy)) {
      return new DFSStripedInputStream(client, src, verifyChecksum, policy, blocks);
    }
    return new EcRepairStripedInputStream(client, src, verifyChecksum, policy, blocks, path);
  }

  // ---- what the degraded path may ask of the stream ----

  public DegradedPath degradedPath() {
    return degraded;
  }

  public ErasureCodingPolicy policy() {
    return policy;
  }

  public String path() {
    return src;
  }

  /** The client's configuration (DFSClient keeps it package-private). */
  public org.apache.hadoop.conf.Configuration conf() {
    return client().getConfiguration();
  }

  public DFSClient client() {
    return dfsClient;
  }

  /**
   * Whether the stream gave up on {@code node}, or the client's dead-node detector did
   * ({@code dfs.client.deadnode.detection.enabled}: then streams share what they learn).
   */
  public boolean isDead(DatanodeInfo node) {
    return dfsClient.isDeadNode(this, node);
  }

  /** Marks {@code node} dead for this stream (and the detector), as HDFS's readers do when a read from it fails. */
  public void markDead(DatanodeInfo node) {
    addToLocalDeadNodes(node);
    dfsClient.addNodeToDeadNodeDetector(this, node);
  }

  /** The block group at {@code groupStart} fetched again from the NameNode (new locations and tokens). */
  public LocatedStripedBlock refetchGroup(long groupStart) throws IOException {
    return (LocatedStripedBlock) fetchBlockAt(groupStart);
  }

  /** Whether a failed connection asks for fresh block tokens rather than a dead node. */
  public static boolean tokenExpired(IOException e, InetSocketAddress addr) {
    return tokenRefetchNeeded(e, addr);
  }

  /** The client's pool for striped reads (dfs.client.read.striped.threadpool.size). */
  public ThreadPoolExecutor readPool() {
    return dfsClient.getStripedReadsThreadPool();
  }

  /** Counts bytes read from DataNodes in this stream's and the FileSystem's read statistics. */
  public void countRead(int bytes, int networkDistance) {
    IOUtilsClient.updateReadStatistics(readStatistics, bytes, false, networkDistance);
    LineReadStats.count(dfsClient, networkDistance, bytes);
    dfsClient.updateFileSystemECReadStats(bytes);
  }

  // ---- reads ----

  /** HDFS's stripe readers submit through this view, so a failed stock read can wait for its tasks. */
  @Override
  protected ThreadPoolExecutor getStripedReadsThreadPool() {
    return stockReads.pool();
  }

  /**
   * Once one internal block of a stock read cannot be opened, HDFS would go on to prepare a
   * decode: allocate a coding buffer of n times the stripe's span (56 MiB for a CLAY-10-4 row
   * of 4 MiB cells) and open the other blocks of the row, for a decoder that refuses our codes
   * and reads k blocks for the others. Instead the read fails there and then, opens nothing
   * more, and the range goes to the degraded path.
   */
  @Override
  boolean createBlockReader(LocatedBlock block, long offsetInBlock, LocatedBlock[] targetBlocks,
                            BlockReaderInfo[] readerInfos, int chunkIndex, long readTo) throws IOException {
    if (super.createBlockReader(block, offsetInBlock, targetBlocks, readerInfos, chunkIndex, readTo)) {
      return true;
    }
    throw new IOException("internal block " + chunkIndex + " of " + block.getBlock() + " cannot be opened");
  }

  /** Positional reads: stock when every needed block is readable, else (or when stock fails) the degraded path. */
  @Override
  void fetchRange(LocatedBlock block, long start, long end, ByteBuffer buf, StockRange stock) throws IOException {
    LocatedStripedBlock group = (LocatedStripedBlock) getBlockAt(block.getStartOffset());
    if (!degraded.needsRebuild(group, start, end)) {
      int at = buf.position();
      try (EcRepairStockReads.Read read = stockReads.begin()) {
        try {
          stock.read();
          return;
        } catch (IOException e) {
          // HDFS closed this read's block readers; its tasks may still be copying into buf.
          read.awaitTasks();
          if (closed.get() || e instanceof InterruptedIOException) {
            throw e;
          }
          // A DataNode failed during the read (HDFS marked it dead); its decoder refuses vector
          // codes, and reads k blocks for the others: rebuild the way the code wants instead.
          DFSClient.LOG.info("ec-repair: stock read of {} [{}, {}] in {} failed ({}); reading degraded", src,
              start, end, group.getBlock(), e.toString());
          buf.position(at);
        }
      }
    }
    degraded.read((LocatedStripedBlock) getBlockAt(block.getStartOffset()), start, end, buf);
  }

  /**
   * Stateful reads: stock while the rest of the request is readable; else the rest of the
   * current cell row is read through the degraded path into a row buffer that serves the
   * following reads.
   */
  @Override
  protected synchronized int readWithStrategy(ReaderStrategy strategy) throws IOException {
    dfsClient.checkOpen();
    if (closed.get()) {
      throw new IOException("Stream closed");
    }
    long fileLength = getFileLength();
    if (pos >= fileLength) {
      return -1;
    }
    int len = strategy.getTargetLength();
    if (len == 0) {
      return 0;
    }
    if (rowBuffer == null || pos < rowFrom || pos >= rowTo) {
      LocatedStripedBlock group = (LocatedStripedBlock) getBlockAt(pos);
      long inGroup = pos - group.getStartOffset();
      long groupEnd = Math.min(group.getBlockSize(), fileLength - group.getStartOffset());
      long wanted = Math.min(groupEnd, inGroup + len) - 1;
      if (!degraded.needsRebuild(group, inGroup, wanted)) {
        long before = pos;
        try (EcRepairStockReads.Read read = stockReads.begin()) {
          try {
            return super.readWithStrategy(strategy);
          } catch (IOException e) {
            // Stop this read's tasks, which write into HDFS's stripe buffer, before anything reuses it.
            closeCurrentBlockReaders();
            read.awaitTasks();
            if (closed.get() || e instanceof InterruptedIOException) {
              throw e;
            }
            if (pos > before) {
              return (int) (pos - before); // what stock delivered before the failure
            }
            DFSClient.LOG.info("ec-repair: stock read of {} at {} failed ({}); reading degraded", src, pos,
                e.toString());
          }
        }
      }
      fillRowBuffer((LocatedStripedBlock) getBlockAt(pos), groupEnd);
    }
    int n = (int) Math.min(len, rowTo - pos);
    ByteBuffer from = rowBuffer.duplicate();
    from.position((int) (pos - rowFrom));
    strategy.readFromBuffer(from, n);
    pos += n;
    return n;
  }

  /** Reads [pos, end of pos's cell row) through the degraded path. */
  private void fillRowBuffer(LocatedStripedBlock group, long groupEnd) throws IOException {
    long rowBytes = (long) policy.getCellSize() * policy.getNumDataUnits();
    long inGroup = pos - group.getStartOffset();
    long rowEnd = Math.min(groupEnd, (inGroup / rowBytes + 1) * rowBytes);
    int length = (int) (rowEnd - inGroup);
    if (rowBuffer == null || rowBuffer.capacity() < length) {
      rowBuffer = ByteBuffer.allocate((int) rowBytes);
    }
    rowBuffer.clear();
    rowFrom = rowTo = 0;
    degraded.read(group, inGroup, rowEnd - 1, rowBuffer);
    rowFrom = pos;
    rowTo = pos + length;
  }

  @Override
  public synchronized void unbuffer() {
    super.unbuffer();
    rowBuffer = null;
    degraded.release();
  }

  /**
   * Hadoop 3.4 and later close the whole stream when a stripe's block readers cannot all be
   * opened (HDFS-17080, so their connections do not leak). Inside a stock read of ours that is
   * the failure the degraded path takes over, so only the block readers are closed then; a close
   * outside a stock read, or from another thread, closes the stream.
   */
  @Override
  public synchronized void close() throws IOException {
    if (stockReads.readingOnThisThread() && !closed.get()) {
      closeCurrentBlockReaders();
      return;
    }
    try {
      super.close();
    } finally {
      rowBuffer = null;
      degraded.release();
    }
  }
}
