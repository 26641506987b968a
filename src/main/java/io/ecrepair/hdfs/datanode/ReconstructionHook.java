package io.ecrepair.hdfs.datanode;

import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.hdfs.task.ReconstructionContext;
import io.ecrepair.hdfs.task.ReconstructionOrder;
import io.ecrepair.hdfs.task.ReconstructionTask;
import java.util.concurrent.ThreadPoolExecutor;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.erasurecode.EcRepairReconstructionAccess;
import org.apache.hadoop.hdfs.server.datanode.erasurecode.ErasureCodingWorker;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Our reconstruction path inside a running DataNode (docs/architecture.md#datanode-plugin). HDFS's
 * {@code ErasureCodingWorker} is final and news its {@code StripedBlockReconstructor}
 * itself, so the hook is its reconstruction pool: an {@link InterceptingReconstructionPool}
 * replaces {@code stripedReconstructionPool}, and every task HDFS submits is looked at. A
 * reconstructor for one of our policies is swapped for a {@link ReconstructionTask} built
 * from the same NameNode order; everything else is submitted to HDFS's pool untouched.
 *
 * <p>Races guarded: (1) the plugin starts after the block pools, so the NameNode may already
 * have handed tasks to HDFS's pool; they run HDFS's path (a Clay or Butterfly one then fails
 * safely and the NameNode retries it, through the hook), and are counted and logged. The
 * swap is one reference write under the access class's lock, and HDFS's pool stays alive
 * and keeps running whatever it already holds, so a submission racing the swap is never
 * lost. (2) xmits: {@code processErasureCodingTasks} charges the DataNode's xmits right after
 * {@code submit} returns; the replacement gives back exactly the same weighted amount in its
 * {@code finally}, as HDFS's own reconstructor does, and HDFS's replaced reconstructor never
 * runs, so nothing is given back twice.
 */
final class ReconstructionHook {
  private static final Logger LOG = LoggerFactory.getLogger(ReconstructionHook.class);

  private final ErasureCodingWorker worker;
  private final ReconstructionContext ctx;
  private final InterceptingReconstructionPool pool;
  private final long tasksBefore;

  private ReconstructionHook(ErasureCodingWorker worker, ReconstructionContext ctx, ThreadPoolExecutor stock) {
    this.worker = worker;
    this.ctx = ctx;
    this.pool = new InterceptingReconstructionPool(stock, this::substitute);
    this.tasksBefore = stock.getTaskCount();
  }

  /** Installs the hook; throws with the reason when this DataNode does not offer it. */
  static ReconstructionHook install(DataNode dn, ReconstructionContext ctx) {
    ErasureCodingWorker worker = dn.getErasureCodingWorker();
    if (worker == null) {
      throw new IllegalStateException("this DataNode has no ErasureCodingWorker");
    }
    EcRepairReconstructionAccess.check();
    synchronized (EcRepairReconstructionAccess.class) {
      ThreadPoolExecutor stock = EcRepairReconstructionAccess.reconstructionPool(worker);
      if (stock == null) {
        throw new IllegalStateException("ErasureCodingWorker has no reconstruction pool");
      }
      if (stock instanceof InterceptingReconstructionPool) {
        throw new IllegalStateException("the ec-repair reconstruction hook is already installed on this DataNode "
            + "(is the plugin listed twice in dfs.datanode.plugins?)");
      }
      ReconstructionHook hook = new ReconstructionHook(worker, ctx, stock);
      EcRepairReconstructionAccess.swapReconstructionPool(worker, hook.pool);
      ctx.metrics().tasksBeforeHook(hook.tasksBefore);
      if (hook.tasksBefore > 0) {
        LOG.warn("ec-repair: {} reconstruction task(s) reached this DataNode before the hook was installed; HDFS's "
            + "own path runs them (the NameNode retries any that fail, through the hook)", hook.tasksBefore);
      }
      return hook;
    }
  }

  /** Puts HDFS's pool back (DataNode shutdown or plugin stop). */
  void uninstall() {
    synchronized (EcRepairReconstructionAccess.class) {
      if (EcRepairReconstructionAccess.reconstructionPool(worker) == pool) {
        EcRepairReconstructionAccess.swapReconstructionPool(worker, pool.delegate());
      }
    }
  }

  private Runnable substitute(Runnable task) {
    if (!EcRepairReconstructionAccess.isBlockReconstructor(task)) {
      return task;
    }
    ErasureCodingPolicy policy;
    ReconstructionOrder order;
    try {
      policy = EcRepairReconstructionAccess.policy(task);
      if (!RepairCatalog.owns(policy, ctx.rebuildRs())) {
        return ctx.timeStockTasks() ? new TimedStockTask(ctx, ReconstructionOrder.of(task), task) : task;
      }
      order = ReconstructionOrder.of(task);
    } catch (RuntimeException e) {
      LOG.error("ec-repair: could not read a reconstruction task; leaving it to HDFS", e);
      return task;
    }
    int extra = ReconstructionOrder.extraTargets(task);
    LOG.info("ec-repair: taking over reconstruction {}{}", order,
        extra == 0 ? "" : " (" + extra + " more target(s) than missing blocks: not written to)");
    return new ReconstructionTask(ctx, order, ctx.xmitsCharged(order.xmits()));
  }
}
