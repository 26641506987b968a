package io.ecrepair.hdfs.client;

import java.io.InputStream;
import java.util.concurrent.atomic.LongAdder;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.hdfs.EcRepairStripedInputStream;

/**
 * What degraded reads cost: bytes fetched from DataNodes by the degraded path (helper sub-chunks
 * and the readable cells it served), bytes it returned to the reader, cells and rows rebuilt,
 * helpers that failed, time spent; and by path, the reads the repair agents served (bytes they
 * sent the client, time) and those that fell back to fetching the read set. One per stream, plus the JVM-wide sum of every stream
 * ({@link #total()}), e.g. for reads made through FsShell. Stock-path reads are not counted
 * here (HDFS's ReadStatistics count both).
 */
public final class DegradedReadStats {
  private static final DegradedReadStats TOTAL = new DegradedReadStats(null);

  private final DegradedReadStats parent;
  private final LongAdder bytesFetched = new LongAdder();
  private final LongAdder bytesReturned = new LongAdder();
  private final LongAdder cellsRebuilt = new LongAdder();
  private final LongAdder rowsRebuilt = new LongAdder();
  private final LongAdder helperFailures = new LongAdder();
  private final LongAdder nanos = new LongAdder();
  /** In a stream's stats: whether it rebuilt a cell yet; in the total: streams that did. */
  private final java.util.concurrent.atomic.AtomicBoolean degraded = new java.util.concurrent.atomic.AtomicBoolean();
  private final LongAdder degradedStreams = new LongAdder();
  private final LongAdder corruptReported = new LongAdder();
  private final LongAdder agentReads = new LongAdder();
  private final LongAdder agentBytes = new LongAdder();
  private final LongAdder agentFallbacks = new LongAdder();
  private final LongAdder agentNanos = new LongAdder();

  private DegradedReadStats(DegradedReadStats parent) {
    this.parent = parent;
  }

  static DegradedReadStats forStream() {
    return new DegradedReadStats(TOTAL);
  }

  /** Every degraded read of this JVM. */
  public static DegradedReadStats total() {
    return TOTAL;
  }

  /** The stats of a stream opened by {@link EcRepairDistributedFileSystem}, or null for any other stream. */
  public static DegradedReadStats of(InputStream in) {
    InputStream s = in instanceof FSDataInputStream f ? f.getWrappedStream() : in;
    if (s instanceof EcRepairStripedInputStream e && e.degradedPath() instanceof DegradedReader r) {
      return r.stats();
    }
    return null;
  }

  void fetched(long bytes) {
    bytesFetched.add(bytes);
    if (parent != null) {
      parent.fetched(bytes);
    }
  }

  void returned(long bytes, long elapsedNanos) {
    bytesReturned.add(bytes);
    nanos.add(elapsedNanos);
    if (parent != null) {
      parent.returned(bytes, elapsedNanos);
    }
  }

  void rebuilt(int cells) {
    rebuilt(cells, 1);
  }

  /** {@code cells} lost cells in {@code rows} rows; the stream counts as degraded in the total from its first. */
  private void rebuilt(long cells, long rows) {
    cellsRebuilt.add(cells);
    rowsRebuilt.add(rows);
    if (parent != null) {
      parent.rebuilt(cells, rows);
      if (degraded.compareAndSet(false, true)) {
        parent.degradedStreams.increment();
      }
    }
  }

  /**
   * Lost cells of {@code rows} rows that the repair agents rebuilt, sending the client {@code
   * bytes}, for {@code requests} new requests to them (0 for more rows of one already counted).
   */
  void rebuiltByAgents(int requests, int rows, long bytes, long elapsedNanos) {
    rebuilt(rows, rows); // one lost cell per row
    for (DegradedReadStats s = this; s != null; s = s.parent) {
      s.agentReads.add(requests);
      s.agentBytes.add(bytes);
      s.agentNanos.add(elapsedNanos);
    }
  }

  /** A read the agents could not serve: it fetched the read set itself. */
  void agentsFellBack() {
    for (DegradedReadStats s = this; s != null; s = s.parent) {
      s.agentFallbacks.increment();
    }
  }

  /** Reads whose lost cells the helpers' repair agents rebuilt (the client as the plan's requestor). */
  public long agentReads() {
    return agentReads.sum();
  }

  /** Bytes those reads received from the agents. */
  public long bytesFromAgents() {
    return agentBytes.sum();
  }

  /** Reads that asked the agents and fetched the read set instead. */
  public long agentFallbacks() {
    return agentFallbacks.sum();
  }

  public double agentSeconds() {
    return agentNanos.sum() / 1e9;
  }

  void corruptReported() {
    corruptReported.increment();
    if (parent != null) {
      parent.corruptReported();
    }
  }

  /** Helper replicas that failed their checksums, reported to the NameNode. */
  public long corruptReplicasReported() {
    return corruptReported.sum();
  }

  void helperFailed() {
    helperFailures.increment();
    if (parent != null) {
      parent.helperFailed();
    }
  }

  public long bytesFetched() {
    return bytesFetched.sum();
  }

  public long bytesReturned() {
    return bytesReturned.sum();
  }

  /** Lost cells rebuilt (a cell row rebuilding two lost cells counts two). */
  public long cellsRebuilt() {
    return cellsRebuilt.sum();
  }

  /** Cell rows whose lost cells were rebuilt. */
  public long rowsRebuilt() {
    return rowsRebuilt.sum();
  }

  /** Of the total: streams that rebuilt at least one cell. */
  public long degradedStreams() {
    return degradedStreams.sum();
  }

  public long helperFailures() {
    return helperFailures.sum();
  }

  public double seconds() {
    return nanos.sum() / 1e9;
  }

  @Override
  public String toString() {
    return "fetched " + bytesFetched() + " returned " + bytesReturned() + " cells rebuilt " + cellsRebuilt()
        + " rows " + rowsRebuilt() + " helper failures " + helperFailures() + " agent reads " + agentReads()
        + " from agents " + bytesFromAgents() + " agent fallbacks " + agentFallbacks();
  }
}
