package io.ecrepair.hdfs.task;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongConsumer;
import org.apache.hadoop.hdfs.server.datanode.metrics.DataNodeMetrics;
import org.slf4j.Logger;

/**
 * What one task did, counted as it goes: bytes read (per helper, and from other DataNodes),
 * written, time per phase, helper replacements, the route taken. Helpers' reads are counted
 * from their reader threads; everything else from the task's thread. At the end it feeds the
 * DataNode's EC metrics and becomes the task's {@link TaskReport}.
 */
final class TaskStats {
  private final Map<Integer, LongAdder> helperBytes = new ConcurrentHashMap<>();
  private final LongAdder bytesRead = new LongAdder();
  private final LongAdder remoteBytesRead = new LongAdder();
  private long bytesWritten;
  private int replacements;
  private boolean validated;
  private int crossRackHops = -1;
  private long planNanos;
  /** When the first row's wait began and the last row was written (System.nanoTime; 0 = never). */
  private long firstRowAt;
  private long lastRowAt;
  private long readNanos;
  private long decodeNanos;
  private long writeNanos;
  /** How the bytes were rebuilt: central (this DataNode reads the helpers), chain, or chain+central. */
  private String route = "central";
  /** Per plan node {in, out, read} bytes of a parallel repair. */
  private Map<Integer, long[]> nodeTraffic = Map.of();

  /** Counts bytes that arrive from helper {@code unit}'s DataNode. */
  LongConsumer helperReads(int unit) {
    LongAdder counter = helperBytes.computeIfAbsent(unit, u -> new LongAdder());
    return bytes -> {
      counter.add(bytes);
      bytesRead.add(bytes);
      remoteBytesRead.add(bytes);
    };
  }

  /** Planning that began at {@code startNanos} is done. */
  void planned(long startNanos) {
    planNanos += System.nanoTime() - startNanos;
  }

  /** The central loop waits for its first row (the first wait counts). */
  void centralRowsStart() {
    if (firstRowAt == 0) {
      firstRowAt = System.nanoTime();
    }
  }

  void rowWritten(long bytes) {
    bytesWritten += bytes;
  }

  void lastRowWritten() {
    lastRowAt = System.nanoTime();
  }

  void phases(long gatherNanos, long computeNanos, long deliverNanos) {
    readNanos += gatherNanos;
    decodeNanos += computeNanos;
    writeNanos += deliverNanos;
  }

  void replaced() {
    replacements++;
  }

  void validated() {
    validated = true;
  }

  void crossRackHops(int hops) {
    crossRackHops = hops;
  }

  /**
   * A run on the helpers' agents ({@link ParallelRepair}) that began at {@code startNanos};
   * its route is {@code how}, or {@code how+central} when it stopped early.
   */
  void distributed(long startNanos, ParallelRepair.Outcome o, int requestor, String how) {
    firstRowAt = startNanos;
    lastRowAt = System.nanoTime();
    bytesWritten += o.bytes();
    readNanos += o.runNanos(); // waiting for the helpers' values, and the requestor's own steps
    writeNanos += o.writeNanos();
    if (o.failure() == null) {
      nodeTraffic = o.traffic();
      for (Map.Entry<Integer, long[]> t : o.traffic().entrySet()) {
        if (t.getKey() != requestor) {
          helperBytes.computeIfAbsent(t.getKey(), u -> new LongAdder()).add(t.getValue()[2]);
          bytesRead.add(t.getValue()[2]);
        } else {
          remoteBytesRead.add(t.getValue()[0]);
        }
      }
    }
    route = o.failure() == null ? how : how + "+central";
  }

  /** Adds this task to HDFS's DataNode EC metrics. */
  void feed(DataNodeMetrics m) {
    m.incrECReconstructionTasks();
    m.incrECReconstructionBytesRead(bytesRead.sum());
    m.incrECReconstructionRemoteBytesRead(remoteBytesRead.sum());
    m.incrECReconstructionBytesWritten(bytesWritten);
    m.incrECReconstructionReadTime(TimeUnit.NANOSECONDS.toMillis(readNanos));
    m.incrECReconstructionDecodingTime(TimeUnit.NANOSECONDS.toMillis(decodeNanos));
    m.incrECReconstructionWriteTime(TimeUnit.NANOSECONDS.toMillis(writeNanos));
  }

  TaskReport report(String datanode, ReconstructionOrder order, long lostBytes, double seconds, String error) {
    int[] lost = new int[order.targetIndices().length];
    for (int i = 0; i < lost.length; i++) {
      lost[i] = order.targetIndices()[i];
    }
    Map<Integer, Long> perHelper = new TreeMap<>();
    helperBytes.forEach((u, a) -> perHelper.put(u, a.sum()));
    return new TaskReport("ec-repair", datanode, order.policy().getName(),
        order.policy().getCodecName().toLowerCase(Locale.ROOT), order.blockGroup().getBlockId(), lost, route,
        perHelper, bytesRead.sum(), bytesWritten, lostBytes, seconds, replacements, validated, error, nodeTraffic,
        crossRackHops);
  }

  /** Logs a task that rebuilt its blocks between {@code start} and {@code end} (System.nanoTime). */
  void logRebuilt(Logger log, Object order, long readBytes, long lostBytes, long start, long end) {
    long setup = firstRowAt == 0 ? 0 : Math.max(0, firstRowAt - start - planNanos);
    long finish = lastRowAt == 0 ? 0 : end - lastRowAt;
    log.info("ec-repair: rebuilt {} ({}{}) reading {} bytes for {} lost bytes in {} s (planning {} s, setting up {} s, "
        + "waiting for helpers {} s, coding {} s, writing {} s, finishing {} s)", order, route,
        crossRackHops >= 0 ? ", " + crossRackHops + " hops between racks" : "", readBytes,
        lostBytes, seconds(end - start), seconds(planNanos), seconds(setup), seconds(readNanos),
        seconds(decodeNanos), seconds(writeNanos), seconds(finish));
  }

  private static String seconds(long nanos) {
    return String.format(Locale.ROOT, "%.3f", nanos / 1e9);
  }
}
