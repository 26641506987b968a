package io.ecrepair.hdfs.datanode;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.metrics2.lib.MutableCounterLong;

/**
 * HDFS's own reconstruction task, run unchanged, with its wall time and (from the DataNode's
 * EC metrics) its bytes read and written recorded in {@link ReconstructionLog}: what
 * {@code bench reconstruction} and {@code demo} compare our repairs with. Only with
 * {@value EcRepairDataNodePlugin#TIME_STOCK_TASKS_KEY}.
 */
final class TimedStockTask implements Runnable {
  private final ReconstructionContext ctx;
  private final ReconstructionOrder order;
  private final Runnable task;

  TimedStockTask(ReconstructionContext ctx, ReconstructionOrder order, Runnable task) {
    this.ctx = ctx;
    this.order = order;
    this.task = task;
  }

  @Override
  public void run() {
    ReconstructionLog.started(order.blockGroup().getBlockId());
    Map<String, Long> before = counters();
    long start = System.nanoTime();
    try {
      task.run();
    } finally {
      double seconds = (System.nanoTime() - start) / 1e9;
      Map<String, Long> after = counters();
      long read = delta(before, after, "EcReconstructionBytesRead");
      long written = delta(before, after, "EcReconstructionBytesWritten");
      boolean failed = delta(before, after, "EcFailedReconstructionTasks") > 0;
      int[] lost = new int[order.targetIndices().length];
      long lostBytes = 0;
      for (int i = 0; i < lost.length; i++) {
        lost[i] = order.targetIndices()[i];
        lostBytes += org.apache.hadoop.hdfs.util.StripedBlockUtil.getInternalBlockLength(
            order.blockGroup().getNumBytes(), order.policy(), lost[i]);
      }
      ReconstructionLog.add(new TaskReport("hdfs", ctx.name(), order.policy().getName(),
          order.policy().getCodecName().toLowerCase(Locale.ROOT), order.blockGroup().getBlockId(), lost, Map.of(),
          read, written, lostBytes, seconds, 0, false, failed ? "HDFS's reconstruction failed (see DataNode log)"
          : null));
    }
  }

  /**
   * The DataNode's EC counters, read from its {@code DataNodeMetrics} fields (the metrics
   * system may know a MiniDFSCluster DataNode under a de-duplicated name).
   */
  private Map<String, Long> counters() {
    Map<String, Long> m = new TreeMap<>();
    Object metrics = ctx.datanode().getMetrics();
    for (String[] f : new String[][] {{"ecReconstructionBytesRead", "EcReconstructionBytesRead"},
        {"ecReconstructionBytesWritten", "EcReconstructionBytesWritten"},
        {"ecFailedReconstructionTasks", "EcFailedReconstructionTasks"}}) {
      try {
        java.lang.reflect.Field field = metrics.getClass().getDeclaredField(f[0]);
        field.setAccessible(true);
        m.put(f[1], ((MutableCounterLong) field.get(metrics)).value());
      } catch (ReflectiveOperationException | RuntimeException e) {
        // not this Hadoop's layout: report zeros
      }
    }
    return m;
  }

  private static long delta(Map<String, Long> before, Map<String, Long> after, String name) {
    return after.getOrDefault(name, 0L) - before.getOrDefault(name, 0L);
  }
}
