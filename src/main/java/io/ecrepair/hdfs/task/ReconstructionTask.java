package io.ecrepair.hdfs.task;

import io.ecrepair.codes.UndecodableException;
import io.ecrepair.exec.CellRowRepair;
import io.ecrepair.exec.NodePart;
import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.hdfs.TailRows;
import io.ecrepair.hdfs.agent.DataNodeConnector;
import io.ecrepair.plan.Plan;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Map;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.DataNodeFaultInjector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rebuilds the internal block(s) the NameNode assigned to this DataNode for one block group
 * of one of our policies, reading only what the code's repair graph needs.
 *
 * <p>The group ({@link RebuildGroup}) and its live sources ({@link Sources}) are worked out
 * once from the order. With the helpers' repair agents, a single lost block of a scalar code is
 * first rebuilt along a chain of them ({@link PipelinedRepair}), lost blocks of a vector code
 * with one of its parallel plans ({@link ParallelChoice}); both run on {@link ParallelRepair}.
 * Whatever rows they did not write (none ran, one stopped early, a short last row) are rebuilt
 * by reading the helpers here ({@link CentralRepair}), which also replaces or plans around
 * helpers that fail. Targets only commit their replica on the final packet, sent after every
 * row was rebuilt (and, with {@code dfs.datanode.ec.reconstruction.validation}, checked); when
 * the code cannot do without a failed helper the task fails and the NameNode retries.
 */
public final class ReconstructionTask implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(ReconstructionTask.class);

  private final ReconstructionContext ctx;
  private final ReconstructionOrder order;
  private final int xmitsCharged;
  private final DataNodeConnector connector;
  private final HelperReaders readers;
  private final TaskStats stats = new TaskStats();
  /** Whether this task runs centrally as its DataNode's share of a recovery (counted in the context). */
  private boolean centralShare;

  public ReconstructionTask(ReconstructionContext ctx, ReconstructionOrder order, int xmitsCharged) {
    this.ctx = ctx;
    this.order = order;
    this.xmitsCharged = xmitsCharged;
    this.connector = new DataNodeConnector(ctx.datanode(), ctx.conf(), ctx.readTimeoutMillis(),
        ctx.helperReceiveBufferBytes());
    this.readers = new HelperReaders(ctx, connector, order);
    ctx.tasks().incrementAndGet();
  }

  @Override
  public void run() {
    long start = System.nanoTime();
    String error = null;
    DataNode dn = ctx.datanode();
    long lostBytes = 0;
    ReconstructionLog.started(order.blockGroup().getBlockId());
    try {
      // On a thread of ours at repair's priority: HDFS's thread runs HDFS's own tasks too.
      lostBytes = ctx.budget().nice().call(ctx.taskThreads(), this::executeInterruptibly);
    } catch (Throwable t) {
      error = t.getClass().getSimpleName() + ": " + t.getMessage();
      LOG.warn("ec-repair: failed to rebuild {}; the NameNode will retry", order, t);
      if (dn.getMetrics() != null) {
        dn.getMetrics().incrECFailedReconstructionTasks();
      }
    } finally {
      ctx.tasks().decrementAndGet();
      if (centralShare) {
        ctx.centralShares().decrementAndGet();
      }
      // HDFS charged xmits when it submitted the task (ErasureCodingWorker); give them back.
      dn.decrementXmitsInProgress(xmitsCharged);
      if (dn.getMetrics() != null) {
        stats.feed(dn.getMetrics());
      }
      long end = System.nanoTime();
      TaskReport report = stats.report(ctx.name(), order, lostBytes, (end - start) / 1e9, error);
      ctx.metrics().record(report);
      ReconstructionLog.add(report);
      if (error == null) {
        stats.logRebuilt(LOG, order, report.bytesRead(), lostBytes, start, end);
      }
    }
  }

  private long executeInterruptibly() throws IOException {
    try {
      return execute();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted rebuilding " + order);
    }
  }

  /** The whole repair; returns the bytes rebuilt. */
  private long execute() throws IOException, InterruptedException {
    // HDFS's reconstructor calls this hook while it holds the task's xmits; Hadoop's own tests
    // stall or fail tasks through it, and so they can ours.
    DataNodeFaultInjector.get().stripedBlockReconstruction();
    RebuildGroup group = RebuildGroup.of(order);
    Sources sources = Sources.of(group);
    long lostBytes = group.lostBytes();
    TargetWriter[] writers = new TargetWriter[group.lostCount()];
    for (int i = 0; i < writers.length; i++) {
      writers[i] = new TargetWriter(ctx.datanode(), ctx.conf(), order.targets()[i], group.block(group.lost(i)),
          order.targetStorageTypes()[i], order.targetStorageIds()[i]);
    }
    TargetSet targets = new TargetSet(writers, group.lost(), order);
    try {
      int row = 0;
      if (PipelinedRepair.applies(ctx, group.spec(), group.lostCount()) && lostBytes > 0) {
        row = pipeline(group, sources, targets);
      } else if (ctx.parallel() && !group.scalar() && !ctx.validation()) {
        row = parallel(group, sources, targets);
      }
      new CentralRepair(ctx, group, sources, targets, stats, readers).rebuildFrom(row);
      commit(targets);
    } finally {
      targets.closeAll();
    }
    return lostBytes;
  }

  /** Every row rebuilt (and checked): now the targets may commit their replicas. */
  private void commit(TargetSet targets) throws IOException {
    for (int i = 0; i < targets.size(); i++) {
      if (!targets.ok(i)) {
        continue;
      }
      try {
        if (!targets.writer(i).isOpen()) {
          throw new IOException("it was never written");
        }
        targets.writer(i).finish();
      } catch (IOException e) {
        targets.fail(i, "cannot commit: " + e);
      }
    }
    if (!targets.anyOk()) {
      throw new IOException("every target failed for " + order);
    }
  }

  /**
   * Rebuilds the lost block of a scalar code along a chain of the helpers' repair agents;
   * returns the rows it wrote: all of them, those before the chain broke, or 0 when no chain
   * could be formed.
   */
  private int pipeline(RebuildGroup group, Sources sources, TargetSet targets) throws IOException {
    long planStart = System.nanoTime();
    Plan chain;
    try {
      chain = PipelinedRepair.plan(ctx, group, sources);
    } catch (UndecodableException | IllegalStateException e) {
      LOG.warn("ec-repair: no repair chain for {}: {}; reading the helpers instead", order, e.getMessage());
      return 0;
    } finally {
      stats.planned(planStart);
    }
    if (chain == null) {
      return 0;
    }
    stats.crossRackHops(PipelinedRepair.crossRackHops(chain, group, sources));
    return distributed(chain, NodePart.compile(chain.graph(), chain.colors()), group.rows(),
        ctx.pipelineSliceBytes(), null, new ParallelRepair(ctx, group, sources, targets, connector), "chain");
  }

  /**
   * Rebuilds the full rows of the lost blocks (one, or several together) with one of the
   * code's parallel plans across the helpers' repair agents; returns the rows written: all full
   * rows, those before the run stopped, or 0 when no plan applies (none stored yet, a helper of
   * every plan without a source, no full row, cells that do not split into whole sub-chunks, or
   * the central plan expected to finish first).
   */
  private int parallel(RebuildGroup group, Sources sources, TargetSet targets) throws IOException {
    int fullRows = group.layout().fullRows();
    if (fullRows == 0) {
      return 0;
    }
    long planStart = System.nanoTime();
    ParallelChoice.Choice choice = ParallelChoice.choose(ctx, group, sources);
    centralShare = choice.centralShare();
    Plan plan = choice.plan();
    stats.planned(planStart);
    if (plan == null) {
      return 0;
    }
    byte[][] tails;
    try {
      tails = tails(group, sources, fullRows);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while rebuilding the row tails of " + order);
    } catch (IOException | UndecodableException e) {
      LOG.warn("ec-repair: cannot rebuild the row tails of {} for a parallel repair: {}; repairing it centrally",
          order, e.toString());
      return 0;
    }
    return distributed(plan, RepairCatalog.parts(plan), fullRows, ctx.planPieceBytes(), tails,
        new ParallelRepair(ctx, group, sources, targets, connector), "parallel");
  }

  /**
   * The full rows' tails of the lost blocks (targets' order) when the code's sub-chunks do not
   * fill a cell, rebuilt centrally ahead of a parallel plan ({@link TailRows}); null otherwise.
   */
  private byte[][] tails(RebuildGroup group, Sources sources, int rows) throws IOException, InterruptedException {
    int cellSize = group.layout().cellSize();
    if (cellSize % group.spec().subPacketization() == 0) {
      return null;
    }
    CellRowRepair repair = RepairCatalog.plan(group.spec(), group.lostSorted(), sources.withSource());
    byte[][] sorted = TailRows.rebuild(repair, ctx.coder(), cellSize, 0, rows,
        u -> readers.open(sources.first(u), group.block(u), stats.helperReads(u)::accept), ctx.readPool(),
        ctx.stallMillis());
    return group.byTarget(sorted);
  }

  /**
   * Runs {@code plan} on the helpers' agents for rows 0..rows-1 of the lost blocks; returns the
   * rows written. The route becomes {@code how}, or {@code how+central} when the run stopped
   * early (the caller then finishes centrally from the row reached).
   */
  private int distributed(Plan plan, Map<Integer, NodePart> parts, int rows, int pieceBytes, byte[][] tails,
                          ParallelRepair runner, String how) throws IOException {
    long start = System.nanoTime();
    ParallelRepair.Outcome o = runner.run(plan, parts, rows, pieceBytes, tails);
    // A short last row of a group a parallel plan does not cover is rebuilt centrally after it.
    stats.distributed(start, o, plan.problem().requestor(), how);
    if (o.failure() != null) {
      LOG.warn("ec-repair: {} repair of {} stopped after {} of its rows: {}; reading the helpers from there on",
          how, order, o.rows(), o.failure());
    }
    return o.rows();
  }
}
