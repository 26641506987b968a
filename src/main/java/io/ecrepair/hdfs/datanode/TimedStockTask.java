package io.ecrepair.hdfs.datanode;

import io.ecrepair.hdfs.task.ReconstructionContext;
import io.ecrepair.hdfs.task.ReconstructionLog;
import io.ecrepair.hdfs.task.ReconstructionOrder;
import io.ecrepair.hdfs.task.TaskReport;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.hdfs.server.datanode.erasurecode.EcRepairReconstructionAccess;

/**
 * HDFS's own reconstruction task, run unchanged, with its wall time and its bytes read and
 * written (its own counters) recorded in {@link ReconstructionLog}: what
 * {@code bench reconstruction} and {@code demo} compare our repairs with. Only with
 * {@value io.ecrepair.hdfs.task.DataNodeKeys#TIME_STOCK_TASKS_KEY}.
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
    long start = System.nanoTime();
    try {
      task.run();
    } finally {
      double seconds = (System.nanoTime() - start) / 1e9;
      long read = EcRepairReconstructionAccess.bytesRead(task);
      long written = EcRepairReconstructionAccess.bytesWritten(task);
      int[] lost = new int[order.targetIndices().length];
      long lostBytes = 0;
      for (int i = 0; i < lost.length; i++) {
        lost[i] = order.targetIndices()[i];
        lostBytes += org.apache.hadoop.hdfs.util.StripedBlockUtil.getInternalBlockLength(
            order.blockGroup().getNumBytes(), order.policy(), lost[i]);
      }
      // HDFS's task logs its own failures; one that did not send every target its bytes failed.
      boolean failed = written < lostBytes;
      ReconstructionLog.add(new TaskReport("hdfs", ctx.name(), order.policy().getName(),
          order.policy().getCodecName().toLowerCase(Locale.ROOT), order.blockGroup().getBlockId(), lost, "hdfs", Map.of(),
          read, written, lostBytes, seconds, 0, false, failed ? "HDFS's reconstruction failed (see DataNode log)"
          : null, Map.of(), -1));
    }
  }
}
