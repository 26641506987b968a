package io.ecrepair.hdfs.task;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.codes.UndecodableException;
import io.ecrepair.exec.CellRowRepair;
import io.ecrepair.exec.NodePart;
import io.ecrepair.exec.RowLoop;
import io.ecrepair.gf.BufferPool;
import io.ecrepair.hdfs.HelperChoice;
import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.hdfs.TailRows;
import io.ecrepair.hdfs.agent.AgentLoads;
import io.ecrepair.hdfs.agent.AgentRangeReader;
import io.ecrepair.hdfs.agent.DataNodeConnector;
import io.ecrepair.hdfs.agent.ReadFaults;
import org.apache.hadoop.hdfs.server.datanode.DataNodeFaultInjector;
import io.ecrepair.hdfs.transfer.BlockRangeReader;
import io.ecrepair.hdfs.transfer.ChecksumFailures;
import io.ecrepair.hdfs.transfer.FallbackRangeSource;
import io.ecrepair.hdfs.transfer.RangeListener;
import io.ecrepair.hdfs.transfer.RangeSource;
import io.ecrepair.layout.StripedLayout;
import io.ecrepair.plan.Plan;
import io.ecrepair.plan.PlanChoice;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.metrics.DataNodeMetrics;
import org.apache.hadoop.hdfs.util.DataTransferThrottler;
import org.apache.hadoop.hdfs.util.StripedBlockUtil;
import org.apache.hadoop.util.DataChecksum;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rebuilds the internal block(s) the NameNode assigned to this DataNode for one block group
 * of one of our policies, reading only what the code's repair graph needs.
 *
 * <p>Flow: the live sources become the available units (plus data units of a short group
 * that hold no bytes: they are zeros and cost nothing); {@link CellRowRepair} gives the
 * cheapest repair and, per cell row, the byte ranges of each helper's cell it needs. Every
 * helper's ranges for all rows, coalesced where they touch, are read on one connection per
 * helper ({@link BlockRangeReader}, HDFS block reads with block tokens, checksums verified) into
 * a window of cell rows ({@link RowWindow}); each complete row is rebuilt with the compiled
 * graphs (one native call per graph) and streamed to the targets ({@link TargetWriter}). The
 * last row of a group is shorter (coding length L = min(cell, row bytes)), data cells past
 * the end of the data are zeros, and each target gets exactly its internal block's length.
 *
 * <p>A helper that fails or stalls is dropped: another source of the same index replaces it,
 * else the repair is planned again without it and goes on from the row where it stopped;
 * when the code cannot do without it the task fails and the NameNode retries. Targets only
 * commit their replica on the final packet, sent after every row was rebuilt (and, with
 * {@code dfs.datanode.ec.reconstruction.validation}, checked).
 */
public final class ReconstructionTask implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(ReconstructionTask.class);
  /** Memory for a task's window of cell rows (direct buffers; at least one row). */
  private static final long WINDOW_BUDGET = 48L << 20;

  private final ReconstructionContext ctx;
  private final ReconstructionOrder order;
  private final int xmitsCharged;
  private final DataNodeConnector connector;
  private final Map<Integer, LongAdder> helperBytes = new ConcurrentHashMap<>();
  private final LongAdder bytesRead = new LongAdder();
  private final LongAdder remoteBytesRead = new LongAdder();
  /** What this task's helper reads still have to deliver, counted in the DataNode's inbound load. */
  private final java.util.concurrent.atomic.AtomicLong expectedReads = new java.util.concurrent.atomic.AtomicLong();
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
  private StripedLayout layout;
  private long groupLength;
  private int[] lostUnits;
  private boolean scalar;
  /** How the bytes were rebuilt: central (this DataNode reads the helpers), chain, or chain+central. */
  private String route = "central";
  /** Per plan node {in, out, read} bytes of a parallel repair. */
  private Map<Integer, long[]> nodeTraffic = Map.of();

  public ReconstructionTask(ReconstructionContext ctx, ReconstructionOrder order, int xmitsCharged) {
    this.ctx = ctx;
    this.order = order;
    this.xmitsCharged = xmitsCharged;
    this.connector = new DataNodeConnector(ctx.datanode(), ctx.conf(), ctx.readTimeoutMillis(),
        ctx.helperReceiveBufferBytes());
  }

  @Override
  public void run() {
    long start = System.nanoTime();
    String error = null;
    DataNode dn = ctx.datanode();
    long lostBytes = 0;
    ReconstructionLog.started(order.blockGroup().getBlockId());
    try {
      lostBytes = execute();
    } catch (Throwable t) {
      error = t.getClass().getSimpleName() + ": " + t.getMessage();
      LOG.warn("ec-repair: failed to rebuild {}; the NameNode will retry", order, t);
      if (dn.getMetrics() != null) {
        dn.getMetrics().incrECFailedReconstructionTasks();
      }
    } finally {
      // HDFS charged xmits when it submitted the task (ErasureCodingWorker); give them back.
      dn.decrementXmitsInProgress(xmitsCharged);
      DataNodeMetrics m = dn.getMetrics();
      if (m != null) {
        m.incrECReconstructionTasks();
        m.incrECReconstructionBytesRead(bytesRead.sum());
        m.incrECReconstructionRemoteBytesRead(remoteBytesRead.sum());
        m.incrECReconstructionBytesWritten(bytesWritten);
        m.incrECReconstructionReadTime(TimeUnit.NANOSECONDS.toMillis(readNanos));
        m.incrECReconstructionDecodingTime(TimeUnit.NANOSECONDS.toMillis(decodeNanos));
        m.incrECReconstructionWriteTime(TimeUnit.NANOSECONDS.toMillis(writeNanos));
      }
      Map<Integer, Long> perHelper = new TreeMap<>();
      helperBytes.forEach((u, a) -> perHelper.put(u, a.sum()));
      int[] lost = new int[order.targetIndices().length];
      for (int i = 0; i < lost.length; i++) {
        lost[i] = order.targetIndices()[i];
      }
      long end = System.nanoTime();
      TaskReport report = new TaskReport("ec-repair", ctx.name(), order.policy().getName(),
          order.policy().getCodecName().toLowerCase(java.util.Locale.ROOT), order.blockGroup().getBlockId(), lost,
          route, perHelper, bytesRead.sum(), bytesWritten, lostBytes, (end - start) / 1e9, replacements,
          validated, error, nodeTraffic, crossRackHops);
      ctx.metrics().record(report);
      ReconstructionLog.add(report);
      if (error == null) {
        long setup = firstRowAt == 0 ? 0 : Math.max(0, firstRowAt - start - planNanos);
        long finish = lastRowAt == 0 ? 0 : end - lastRowAt;
        LOG.info("ec-repair: rebuilt {} ({}{}) reading {} bytes for {} lost bytes in {} s (planning {} s, setting up {} s, "
            + "waiting for helpers {} s, coding {} s, writing {} s, finishing {} s)", order, route,
            crossRackHops >= 0 ? ", " + crossRackHops + " hops between racks" : "", report.bytesRead(),
            lostBytes, seconds(end - start), seconds(planNanos), seconds(setup), seconds(readNanos),
            seconds(decodeNanos), seconds(writeNanos), seconds(finish));
      }
    }
  }

  private static String seconds(long nanos) {
    return String.format(java.util.Locale.ROOT, "%.3f", nanos / 1e9);
  }

  /** The whole repair; returns the bytes rebuilt. */
  private long execute() throws IOException, InterruptedException {
    // HDFS's reconstructor calls this hook while it holds the task's xmits; Hadoop's own tests
    // stall or fail tasks through it, and so they can ours.
    DataNodeFaultInjector.get().stripedBlockReconstruction();
    CodeSpec spec = order.code();
    int k = spec.k();
    int n = spec.n();
    int cellSize = order.policy().getCellSize();
    ExtendedBlock group = order.blockGroup();
    long groupLength = group.getNumBytes();
    StripedLayout layout = new StripedLayout(k, spec.m(), cellSize, blockSizeFor(groupLength, k, cellSize));
    this.layout = layout;
    this.groupLength = groupLength;
    this.scalar = spec.subPacketization() == 1;

    // What to rebuild, and where.
    short[] targetIndices = order.targetIndices();
    int[] lost = new int[targetIndices.length];
    for (int i = 0; i < lost.length; i++) {
      lost[i] = targetIndices[i];
    }
    this.lostUnits = lost.clone();
    int[] lostSorted = lost.clone();
    Arrays.sort(lostSorted);
    for (int i = 1; i < lostSorted.length; i++) {
      if (lostSorted[i] == lostSorted[i - 1]) {
        throw new IOException("internal block " + lostSorted[i] + " is targeted twice in " + order);
      }
    }
    long lostBytes = 0;
    int rows = 0;
    for (int u : lost) {
      long len = layout.internalBlockLength(groupLength, u);
      lostBytes += len;
      rows = Math.max(rows, (int) ((len + cellSize - 1) / cellSize));
    }

    // Who can help: every live source, by index (several sources of one index are spares),
    // plus units that hold no bytes in this group (zeros, never read).
    Map<Integer, Deque<DatanodeInfo>> sources = new TreeMap<>();
    for (int i = 0; i < order.liveIndices().length; i++) {
      int unit = order.liveIndices()[i];
      if (unit >= 0 && unit < n && Arrays.binarySearch(lostSorted, unit) < 0) {
        sources.computeIfAbsent(unit, u -> new ArrayDeque<>()).add(order.sources()[i]);
      }
    }
    TreeSet<Integer> empty = new TreeSet<>();
    for (int u = 0; u < n; u++) {
      if (Arrays.binarySearch(lostSorted, u) < 0 && layout.internalBlockLength(groupLength, u) == 0) {
        empty.add(u);
        sources.remove(u);
      }
    }
    int[] emptyUnits = empty.stream().mapToInt(Integer::intValue).toArray();

    TargetWriter[] writers = new TargetWriter[lost.length];
    for (int i = 0; i < lost.length; i++) {
      ExtendedBlock b = StripedBlockUtil.constructInternalBlock(group, cellSize, k, lost[i]);
      b.setNumBytes(layout.internalBlockLength(groupLength, lost[i]));
      writers[i] = new TargetWriter(ctx.datanode(), ctx.conf(), order.targets()[i], b,
          order.targetStorageTypes()[i], order.targetStorageIds()[i]);
    }
    TargetSet targets = new TargetSet(writers, lost, order);
    try {
      int row = 0;
      if (PipelinedRepair.applies(ctx, spec, lost.length) && lostBytes > 0) {
        row = pipeline(spec, lost[0], sources, empty, layout, groupLength, rows, targets);
      } else if (ctx.parallel() && !scalar && !ctx.validation()) {
        row = parallel(spec, lost, sources, layout, groupLength, targets);
      }
      while (row < rows) {
        int[] available = available(sources, empty);
        CellRowRepair repair;
        long planStart = System.nanoTime();
        try {
          repair = HelperChoice.choose(spec, lostSorted, available, costs(sources), new int[0], selfCost());
          RepairCatalog.prepareSingleLosses(spec); // after ours: the preparer holds the code while it compiles
        } catch (UndecodableException e) {
          throw new IOException("cannot rebuild " + Arrays.toString(lostSorted) + " of " + order.policy().getName()
              + " from internal blocks " + Arrays.toString(available) + ": " + e.getMessage(), e);
        }
        RepairPlans.Check check = ctx.validation() ? RepairPlans.check(spec, lostSorted, available, repair, emptyUnits)
            : null;
        planNanos += System.nanoTime() - planStart;
        try {
          row = runRows(layout, groupLength, rows, row, repair, check, sources, emptyUnits, lost, targets);
        } catch (RowWindow.HelperFailure f) {
          Deque<DatanodeInfo> d = sources.get(f.unit);
          if (d == null) {
            throw new IOException("helper " + f.unit + " failed but is not a source of " + order, f);
          }
          DatanodeInfo gone = d.pollFirst();
          if (d.isEmpty()) {
            sources.remove(f.unit);
          }
          if (ChecksumFailures.in(f)) {
            ctx.reportCorrupt(internalBlock(f.unit), gone);
          }
          replacements++;
          LOG.warn("ec-repair: helper {} (internal block {}) failed at row {} of {}: {}; going on without it",
              gone, f.unit, f.row, order, f.getMessage(), f.getCause());
          row = f.row;
        }
      }
      // Every row rebuilt (and checked): now the targets may commit their replicas.
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
    } finally {
      targets.closeAll();
    }
    return lostBytes;
  }

  /**
   * Per unit, the cost of a byte from its first source ({@link io.ecrepair.hdfs.NodeCosts}); 0 for units with none
   * (zeros, or lost: no read set reads them, and no plan gives them traffic but the requestor).
   */
  private double[] costs(Map<Integer, Deque<DatanodeInfo>> sources) {
    double[] cost = new double[order.code().n()];
    sources.forEach((u, d) -> cost[u] = d.isEmpty() ? 0 : ctx.costs().of(d.peekFirst()));
    return cost;
  }

  /** The cost of a byte through this DataNode's own link (it is the task's first target). */
  private double selfCost() {
    return ctx.costs().of(order.targets()[0]);
  }

  /** The units a repair may use: every one with a live source, and those that hold no bytes (zeros), sorted. */
  private static int[] available(Map<Integer, Deque<DatanodeInfo>> sources, TreeSet<Integer> empty) {
    TreeSet<Integer> avail = new TreeSet<>(sources.keySet());
    avail.addAll(empty);
    return avail.stream().mapToInt(Integer::intValue).toArray();
  }

  /**
   * Rebuilds the lost block of a scalar code along a chain of the helpers' repair agents;
   * returns the rows it wrote: all of them, those before the chain broke, or 0 when no chain
   * could be formed.
   */
  private int pipeline(CodeSpec spec, int lost, Map<Integer, Deque<DatanodeInfo>> sources, TreeSet<Integer> empty,
                       StripedLayout layout, long groupLength, int rows, TargetSet targets) throws IOException {
    long planStart = System.nanoTime();
    Plan chain;
    try {
      chain = PipelinedRepair.plan(ctx, spec, lost, available(sources, empty), sources, this::internalBlock, layout,
          groupLength, order.blockGroup().getBlockId(), requestorRack());
    } catch (UndecodableException | IllegalStateException e) {
      LOG.warn("ec-repair: no repair chain for {}: {}; reading the helpers instead", order, e.getMessage());
      return 0;
    } finally {
      planNanos += System.nanoTime() - planStart;
    }
    if (chain == null) {
      return 0;
    }
    crossRackHops = PipelinedRepair.crossRackHops(chain, sources, requestorRack());
    return distributed(chain, NodePart.compile(chain.graph(), chain.colors()), new int[] {lost}, sources, layout,
        groupLength, rows, ctx.pipelineSliceBytes(), targets, null, "chain");
  }

  /**
   * Rebuilds the full rows of the lost blocks (one, or several together) with one of the
   * code's parallel plans across the helpers' repair agents; returns the rows written: all full
   * rows, those before the run stopped, or 0 when no plan applies (none stored yet, a helper of
   * every plan without a source, no full row, cells that do not split into whole sub-chunks, or
   * the central plan expected to finish first). {@code lost} is in the targets' order.
   */
  private int parallel(CodeSpec spec, int[] lost, Map<Integer, Deque<DatanodeInfo>> sources, StripedLayout layout,
                       long groupLength, TargetSet targets) throws IOException {
    int cellSize = layout.cellSize();
    int fullRows = (int) (groupLength / ((long) layout.dataUnits() * cellSize));
    if (fullRows == 0) {
      return 0;
    }
    long planStart = System.nanoTime();
    int[] lostSorted = IntStream.of(lost).sorted().toArray();
    // This DataNode is the plan's requestor: the node of the lowest lost index, which receives every block.
    int requestor = lostSorted[0];
    List<Plan> candidates = new ArrayList<>();
    for (Plan p : RepairCatalog.parallelPlans(spec, lostSorted)) {
      if (p.problem().requestor() == requestor && RepairCatalog.parts(p).containsKey(requestor)
          && RepairCatalog.parts(p).keySet().stream().allMatch(u -> u == requestor || hasSource(sources, u))) {
        candidates.add(p);
      }
    }
    if (candidates.isEmpty()) {
      planNanos += System.nanoTime() - planStart;
      LOG.info("ec-repair: no parallel plan for {} lost {} whose helpers all have a source; repairing {} centrally",
          spec, Arrays.toString(lostSorted), order);
      return 0;
    }
    // The plan that should finish first, given what the nodes' downlinks still carry for other
    // repairs; the central plan competes once it is ready (it is built in the background).
    int parallelCount = candidates.size();
    RepairCatalog.centralPlanIfReady(spec, lostSorted).ifPresent(candidates::add);
    int chosen = 0;
    long[] backlog = new long[spec.n()];
    if (candidates.size() > 1) {
      int[] receivers = IntStream.range(0, spec.n())
          .filter(u -> Arrays.binarySearch(lostSorted, u) < 0 && candidates.stream().anyMatch(p -> p.traffic().in(u) > 0))
          .toArray();
      long[] probed = AgentLoads.probe(ctx, receivers, sources, this::internalBlock);
      for (int i = 0; i < receivers.length; i++) {
        backlog[receivers[i]] = probed[i];
      }
      backlog[requestor] = ctx.inbound().get();
      long unit = (long) cellSize / spec.subPacketization() * fullRows;
      // Equal plans are taken in turn by group, so simultaneous tasks do not all load the first.
      int prefer = (int) Math.floorMod(order.blockGroup().getBlockId() >> 4, (long) parallelCount);
      double[] cost = costs(sources);
      for (int u = 0; u < cost.length; u++) {
        cost[u] = cost[u] > 0 ? cost[u] : 1; // a link without a source is no free link
      }
      cost[requestor] = selfCost();
      chosen = PlanChoice.soonest(candidates.stream().map(Plan::traffic).toList(), backlog, cost, unit, prefer);
    }
    planNanos += System.nanoTime() - planStart;
    if (chosen >= parallelCount) {
      LOG.info("ec-repair: {} is rebuilt centrally: with the DataNodes' backlog {} the central plan should finish "
          + "first", order, Arrays.toString(backlog));
      return 0;
    }
    Plan plan = candidates.get(chosen);
    byte[][] tails;
    try {
      tails = tails(spec, lost, lostSorted, sources, layout, groupLength, fullRows);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted while rebuilding the row tails of " + order);
    } catch (IOException | UndecodableException e) {
      LOG.warn("ec-repair: cannot rebuild the row tails of {} for a parallel repair: {}; repairing it centrally",
          order, e.toString());
      return 0;
    }
    return distributed(plan, RepairCatalog.parts(plan), lost, sources, layout, groupLength, fullRows,
        ctx.planPieceBytes(), targets, tails, "parallel");
  }

  /**
   * The full rows' tails of the lost blocks (targets' order) when the code's sub-chunks do not
   * fill a cell, rebuilt centrally ahead of a parallel plan ({@link TailRows}); null otherwise.
   */
  private byte[][] tails(CodeSpec spec, int[] lost, int[] lostSorted, Map<Integer, Deque<DatanodeInfo>> sources,
                         StripedLayout layout, long groupLength, int rows)
      throws IOException, InterruptedException {
    int cellSize = layout.cellSize();
    if (cellSize % spec.subPacketization() == 0) {
      return null;
    }
    int[] available = sources.keySet().stream().mapToInt(Integer::intValue).toArray();
    CellRowRepair repair = RepairCatalog.plan(spec, lostSorted, available);
    byte[][] sorted = TailRows.rebuild(repair, ctx.coder(), cellSize, 0, rows, u -> {
      Deque<DatanodeInfo> d = sources.get(u);
      ExtendedBlock block = StripedBlockUtil.constructInternalBlock(order.blockGroup(), cellSize, layout.dataUnits(), u);
      block.setNumBytes(layout.internalBlockLength(groupLength, u));
      LongAdder counter = helperBytes.computeIfAbsent(u, x -> new LongAdder());
      return helperSource(d.peekFirst(), block, bytes -> {
        counter.add(bytes);
        bytesRead.add(bytes);
        remoteBytesRead.add(bytes);
      });
    }, ctx.readPool(), ctx.stallMillis());
    byte[][] byTarget = new byte[lost.length][];
    for (int i = 0; i < lost.length; i++) {
      byTarget[i] = sorted[Arrays.binarySearch(lostSorted, lost[i])];
    }
    return byTarget;
  }

  private static boolean hasSource(Map<Integer, Deque<DatanodeInfo>> sources, int unit) {
    Deque<DatanodeInfo> d = sources.get(unit);
    return d != null && !d.isEmpty();
  }

  /**
   * Runs {@code plan} on the helpers' agents for rows 0..rows-1 of the lost blocks; returns the
   * rows written. The route becomes {@code how}, or {@code how+central} when the run stopped
   * early (the caller then finishes centrally from the row reached).
   */
  private int distributed(Plan plan, Map<Integer, NodePart> parts, int[] lost,
                          Map<Integer, Deque<DatanodeInfo>> sources, StripedLayout layout, long groupLength, int rows,
                          int pieceBytes, TargetSet targets, byte[][] tails, String how)
      throws IOException {
    firstRowAt = System.nanoTime();
    ParallelRepair.Outcome o = new ParallelRepair(ctx, order, connector).run(plan, parts, lost, sources, layout,
        groupLength, rows, pieceBytes, targets, tails);
    lastRowAt = System.nanoTime();
    bytesWritten += o.bytes();
    readNanos += o.runNanos(); // waiting for the helpers' values, and the requestor's own steps
    writeNanos += o.writeNanos();
    if (o.failure() == null) {
      nodeTraffic = o.traffic();
      for (Map.Entry<Integer, long[]> t : o.traffic().entrySet()) {
        if (t.getKey() != plan.problem().requestor()) {
          helperBytes.computeIfAbsent(t.getKey(), u -> new LongAdder()).add(t.getValue()[2]);
          bytesRead.add(t.getValue()[2]);
        } else {
          remoteBytesRead.add(t.getValue()[0]);
        }
      }
    }
    // A short last row of a group a parallel plan does not cover is rebuilt centrally after it.
    route = o.failure() == null ? how : how + "+central";
    if (o.failure() != null) {
      LOG.warn("ec-repair: {} repair of {} stopped after {} of its rows: {}; reading the helpers from there on",
          how, order, o.rows(), o.failure());
    }
    return o.rows();
  }

  /**
   * Rebuilds rows {@code from}..{@code rows-1} with one repair; returns {@code rows}.
   *
   * @throws RowWindow.HelperFailure when a helper failed: rows before {@code f.row} are written
   */
  private int runRows(StripedLayout layout, long groupLength, int rows, int from, CellRowRepair repair,
                      RepairPlans.Check check, Map<Integer, Deque<DatanodeInfo>> sources, int[] emptyUnits,
                      int[] lost, TargetSet targets)
      throws IOException, InterruptedException {
    int n = layout.totalUnits();
    int cellSize = layout.cellSize();
    TreeSet<Integer> helperSet = new TreeSet<>();
    for (int u : repair.helpers()) {
      helperSet.add(u);
    }
    if (check != null) {
      for (int u : check.repair().helpers()) {
        helperSet.add(u);
      }
    }
    List<Integer> readUnits = new ArrayList<>();
    for (int u : helperSet) {
      if (Arrays.binarySearch(emptyUnits, u) < 0) {
        readUnits.add(u);
      }
    }
    int[] readers = readUnits.stream().mapToInt(Integer::intValue).toArray();
    BufferPool buffers = ctx.buffers();
    RowWindow window = new RowWindow(RowWindow.depthFor(readers.length, cellSize, WINDOW_BUDGET), n, cellSize,
        readers, from, buffers);
    ByteBuffer zeros = buffers.take(cellSize);
    int[] order = repair.lost();
    ByteBuffer[] out = new ByteBuffer[order.length];
    ByteBuffer[] checkOut = check == null ? null : new ByteBuffer[order.length];
    for (int i = 0; i < order.length; i++) {
      out[i] = buffers.take(cellSize);
      if (checkOut != null) {
        checkOut[i] = buffers.take(cellSize);
      }
    }
    // Position of each target's block in the repair's output order.
    int[] outOf = new int[lost.length];
    for (int i = 0; i < lost.length; i++) {
      outOf[i] = Arrays.binarySearch(order, lost[i]);
    }

    List<HelperFeed> feeds = new ArrayList<>();
    List<Future<?>> running = new ArrayList<>();
    try {
      for (int u : readers) {
        HelperFeed feed = new HelperFeed(u, sources.get(u).peekFirst(), layout, groupLength, rows, from, repair, check,
            window);
        feeds.add(feed);
        long bytes = feed.bytesToRead();
        expectedReads.addAndGet(bytes);
        ctx.inbound().addAndGet(bytes);
      }
      for (int i = 0; i < feeds.size(); i++) {
        running.add(ctx.readPool().submit(feeds.get(i)));
      }
      DataTransferThrottler writeThrottle = ctx.datanode().getEcReconstuctWriteThrottler();
      if (firstRowAt == 0) {
        firstRowAt = System.nanoTime();
      }
      Supplier<DataChecksum> checksum = () -> checksumOf(feeds);
      RowLoop loop = new RowLoop(ctx.coder());
      try {
        loop.run(from, rows, new RowLoop.Rows() {
          @Override
          public RowLoop.Step gather(int r) throws IOException, InterruptedException {
            ByteBuffer[] cells;
            try {
              cells = window.awaitRow(r, ctx.stallMillis()).clone();
            } catch (RowWindow.HelperFailure f) {
              // Rows before r are written; the next repair starts at r.
              throw new RowWindow.HelperFailure(f.unit, r, f.getMessage(), f.getCause());
            }
            for (int u : emptyUnits) {
              cells[u] = zeros;
            }
            return new RowLoop.Step(repair, cells, out, codingLength(r));
          }

          @Override
          public void rebuilt(int r, RowLoop.Step step) throws IOException {
            DataNodeFaultInjector.get().badDecoding(out); // where HDFS's tests corrupt decoded cells
            if (check != null) {
              check(r, check, step, checkOut, lost, outOf);
            }
            window.release(r);
            for (int i = 0; i < lost.length; i++) {
              bytesWritten += targets.write(i, out[outOf[i]], layout.cellLength(groupLength, r, lost[i]), checksum,
                  writeThrottle);
            }
            lastRowAt = System.nanoTime();
          }
        });
      } finally {
        readNanos += loop.gatherNanos();
        decodeNanos += loop.computeNanos();
        writeNanos += loop.deliverNanos();
      }
      return rows;
    } finally {
      window.cancel();
      for (HelperFeed f : feeds) {
        f.reader.close();
      }
      arrived(Long.MAX_VALUE);
      boolean readersDone = true;
      for (Future<?> f : running) {
        try {
          f.get(ctx.stallMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
          // the feed reported its failure through the window, or was cancelled
        }
        readersDone &= f.isDone();
      }
      // Only this thread still uses the output buffers; the cell buffers only if no reader
      // can still write into them (one stuck past the wait keeps them, and the GC frees them).
      buffers.give(zeros);
      for (int i = 0; i < order.length; i++) {
        buffers.give(out[i]);
        buffers.give(checkOut == null ? null : checkOut[i]);
      }
      if (readersDone) {
        window.recycle(buffers);
      }
    }
  }

  /** Validation (HDFS's setting): row r rebuilt again independently must give the same bytes, or nothing is committed. */
  private void check(int r, RepairPlans.Check check, RowLoop.Step step, ByteBuffer[] checkOut, int[] lost, int[] outOf)
      throws IOException {
    check.repair().run(check.coder(), step.cells(), checkOut, step.codingLength());
    for (int i = 0; i < lost.length; i++) {
      int len = layout.cellLength(groupLength, r, lost[i]);
      if (step.out()[outOf[i]].slice(0, len).compareTo(checkOut[outOf[i]].slice(0, len)) != 0) {
        if (ctx.datanode().getMetrics() != null) {
          ctx.datanode().getMetrics().incrECInvalidReconstructionTasks();
        }
        throw new IOException("validation failed: row " + r + " of internal block " + lost[i] + " of " + order
            + " differs from its recomputation (" + check.how() + "); nothing was committed");
      }
    }
    validated = true;
  }

  /**
   * The bytes of row r the repair computes: the row's coding length L, except that a scalar
   * code (RS, LRC: byte j of a cell depends only on byte j of the others) needs only as many
   * bytes as the longest lost cell of the row holds; past that the lost cells are zeros.
   */
  private int codingLength(int r) {
    int length = layout.codingLength(groupLength, r);
    if (!scalar) {
      return length;
    }
    int need = 0;
    for (int u : lostUnits) {
      need = Math.max(need, layout.cellLength(groupLength, r, u));
    }
    return Math.min(length, need);
  }

  /** The helpers' checksum type (they all share one); the configured default before any read. */
  private DataChecksum checksumOf(List<HelperFeed> feeds) {
    for (HelperFeed f : feeds) {
      DataChecksum cs = f.reader.checksum();
      if (cs != null) {
        return DataChecksum.newDataChecksum(cs.getChecksumType(), cs.getBytesPerChecksum());
      }
    }
    return ctx.defaultChecksum();
  }

  /** This DataNode's rack, as the NameNode knows it: the task runs on its first target. */
  private String requestorRack() {
    return order.targets()[0].getNetworkLocation();
  }

  /** Internal block {@code unit} of the task's block group. */
  private ExtendedBlock internalBlock(int unit) {
    return StripedBlockUtil.constructInternalBlock(order.blockGroup(), order.policy().getCellSize(),
        order.policy().getNumDataUnits(), unit);
  }

  private static long blockSizeFor(long groupLength, int k, int cellSize) {
    long rowBytes = (long) k * cellSize;
    long rows = Math.max(1, (groupLength + rowBytes - 1) / rowBytes);
    return rows * cellSize;
  }

  /**
   * Where a helper's ranges come from: its repair agent when agents run (one request for all
   * of them), else, or when the agent cannot serve them, HDFS's block reads.
   */
  private RangeSource helperSource(DatanodeInfo source, ExtendedBlock block, RangeListener listener) {
    BlockRangeReader hdfs = new BlockRangeReader(connector, source, block, listener);
    if (ctx.agentPortOffset() == 0) {
      return hdfs;
    }
    AgentRangeReader viaAgent = new AgentRangeReader(source, ctx.agentAddress(source), block, connector,
        ctx.datanode().getDnConf().getSocketTimeout(), ctx.readTimeoutMillis(), listener);
    return new FallbackRangeSource(viaAgent, hdfs, e -> LOG.warn(
        "ec-repair: the repair agent of {} did not serve {} of {}: {}; reading it through HDFS", source, block, order,
        e.toString()));
  }

  /** Reads one helper's ranges for every row into the window, zero where its cells hold no bytes. */
  private final class HelperFeed implements Runnable, BlockRangeReader.Sink {
    private final int unit;
    private final RangeSource reader;
    private final StripedLayout layout;
    private final long groupLength;
    private final int rows;
    private final int from;
    private final RowWindow window;
    /** Per row (from..rows-1): needed cell ranges {offset, length}. */
    private final List<List<int[]>> needed = new ArrayList<>();
    private final List<long[]> blockRanges = new ArrayList<>();
    private final LongAdder counter;
    private int row;
    private ByteBuffer cell;

    HelperFeed(int unit, DatanodeInfo source, StripedLayout layout, long groupLength, int rows, int from,
               CellRowRepair repair, RepairPlans.Check check, RowWindow window) {
      this.unit = unit;
      this.layout = layout;
      this.groupLength = groupLength;
      this.rows = rows;
      this.from = from;
      this.window = window;
      this.row = from - 1;
      this.counter = helperBytes.computeIfAbsent(unit, u -> new LongAdder());
      int cellSize = layout.cellSize();
      for (int r = from; r < rows; r++) {
        int codingLength = codingLength(r);
        List<int[]> ranges = repair.ranges(unit, codingLength);
        if (check != null) {
          ranges = union(ranges, check.repair().ranges(unit, codingLength));
        }
        needed.add(ranges);
        for (long[] range : RowLoop.storedRanges(ranges, (long) r * cellSize, layout.cellLength(groupLength, r, unit))) {
          addRange(blockRanges, range[0], range[1]);
        }
      }
      ExtendedBlock block = StripedBlockUtil.constructInternalBlock(order.blockGroup(), cellSize,
          layout.dataUnits(), unit);
      block.setNumBytes(layout.internalBlockLength(groupLength, unit));
      DataTransferThrottler throttle = ctx.datanode().getEcReconstuctReadThrottler();
      RangeListener listener = new RangeListener() {
        @Override
        public void delivered(long bytes) {
          arrived(bytes);
          counter.add(bytes);
          bytesRead.add(bytes);
          remoteBytesRead.add(bytes);
          window.progressed(unit);
          if (throttle != null) {
            throttle.throttle(bytes);
          }
        }

        @Override
        public void rangeDone(int rangesDone) throws IOException {
          ReadFaults.afterRange(source, rangesDone);
        }
      };
      this.reader = helperSource(source, block, listener);
    }

    /** Bytes this helper's ranges hold. */
    long bytesToRead() {
      long b = 0;
      for (long[] r : blockRanges) {
        b += r[1];
      }
      return b;
    }

    @Override
    public void run() {
      try {
        reader.read(blockRanges, this);
        advanceTo(rows - 1);
        window.completed(unit, rows);
      } catch (Throwable t) {
        window.fail(new RowWindow.HelperFailure(unit, Math.max(row, from), "reading internal block " + unit + " from "
            + reader.source() + ": " + t, t));
      } finally {
        reader.close();
      }
    }

    @Override
    public void accept(long blockOffset, ByteBuffer data) throws IOException, InterruptedException {
      int cellSize = layout.cellSize();
      long off = blockOffset;
      ByteBuffer src = data.duplicate();
      while (src.hasRemaining()) {
        int r = (int) (off / cellSize);
        advanceTo(r);
        int inCell = (int) (off % cellSize);
        int len = Math.min(src.remaining(), cellSize - inCell);
        ReadFaults.beforeCellWrite(reader.source());
        cell.put(inCell, src, src.position(), len);
        src.position(src.position() + len);
        off += len;
      }
    }

    /** Completes the rows before {@code r} and makes {@code r} current (its slot free, zeros in place). */
    private void advanceTo(int r) throws IOException, InterruptedException {
      while (row < r) {
        if (row >= from) {
          window.completed(unit, row + 1);
        }
        row++;
        cell = window.cell(unit, row);
        RowLoop.zeroPastStored(cell, needed.get(row - from), layout.cellLength(groupLength, row, unit));
      }
    }
  }

  /** {@code bytes} of the helper reads arrived (or will not): the DataNode's inbound load drops by them. */
  private void arrived(long bytes) {
    long left;
    long n;
    do {
      left = expectedReads.get();
      n = Math.min(left, bytes);
    } while (!expectedReads.compareAndSet(left, left - n));
    ctx.inbound().addAndGet(-n);
  }

  /** Ranges {offset, length} as one sorted list without overlaps. */
  static List<int[]> union(List<int[]> a, List<int[]> b) {
    List<int[]> all = new ArrayList<>();
    all.addAll(a);
    all.addAll(b);
    all.sort((x, y) -> Integer.compare(x[0], y[0]));
    List<int[]> out = new ArrayList<>();
    for (int[] r : all) {
      if (!out.isEmpty()) {
        int[] last = out.get(out.size() - 1);
        if (r[0] <= last[0] + last[1]) {
          last[1] = Math.max(last[1], r[0] + r[1] - last[0]);
          continue;
        }
      }
      out.add(new int[] {r[0], r[1]});
    }
    return out;
  }

  private static void addRange(List<long[]> ranges, long offset, long length) {
    if (!ranges.isEmpty()) {
      long[] last = ranges.get(ranges.size() - 1);
      if (last[0] + last[1] == offset) {
        last[1] += length;
        return;
      }
    }
    ranges.add(new long[] {offset, length});
  }
}
