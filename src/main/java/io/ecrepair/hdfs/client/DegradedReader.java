package io.ecrepair.hdfs.client;

import io.ecrepair.codes.CellLayout;
import io.ecrepair.codes.CodeSpec;
import io.ecrepair.codes.UndecodableException;
import io.ecrepair.exec.CellRowRepair;
import io.ecrepair.exec.RowLoop;
import io.ecrepair.gf.Buffers;
import io.ecrepair.gf.RegionCoders;
import io.ecrepair.hdfs.NodeCosts;
import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.hdfs.transfer.BlockRangeReader;
import io.ecrepair.hdfs.transfer.ChecksumFailures;
import io.ecrepair.hdfs.transfer.RangeListener;
import io.ecrepair.layout.ByteRanges;
import io.ecrepair.layout.GroupLayout;
import io.ecrepair.plan.HelperChoice;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.IntStream;
import org.apache.hadoop.hdfs.BlockMissingException;
import org.apache.hadoop.hdfs.EcRepairStripedInputStream;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads byte ranges of a block group when some of its internal blocks cannot be read, one cell
 * row at a time: the readable cells the reader asked for are read directly, and the lost cells
 * it asked for are rebuilt with the code's cheapest repair ({@link CellRowRepair}, chosen by
 * {@link HelperChoice}): Clay and Butterfly sub-chunk repair of a lost cell, an LRC local
 * group, any k for RS-like patterns, a full decode when several blocks are gone.
 *
 * <p>A vector code (Clay, Butterfly) always rebuilds whole cells of the row's coding length
 * (docs/architecture.md#cell-layout; a partial range would decode wrong), then copies out what was asked; a
 * scalar code (LRC) rebuilds only the asked byte window of the lost cells. The last rebuilt row
 * is kept, so a reader walking through a lost cell in small preads rebuilds it once.
 *
 * <p>Each unit's ranges of a row (what the reader wants plus what the repair needs, merged) go
 * to its DataNode on one kept-alive connection ({@link BlockRangeReader}: HDFS's block read
 * protocol with the block token, checksums verified), all units at once on the client's
 * striped-read pool. A DataNode that fails is marked dead for the stream, as HDFS's readers do,
 * and the row is planned again without it.
 */
final class DegradedReader implements EcRepairStripedInputStream.DegradedPath {
  private static final Logger LOG = LoggerFactory.getLogger(DegradedReader.class);

  private final EcRepairStripedInputStream stream;
  private final CodeSpec spec;
  private final ErasureCodingPolicy policy;
  private final int k;
  private final int n;
  private final int cell;
  private final long rowCapacity;
  private final boolean vector;
  private final int alpha;
  private final DegradedReadStats stats = DegradedReadStats.forStream();
  /** "internal block id@DataNode" -> its open reader; only the current group's are kept. */
  private final Map<String, UnitReader> readers = new HashMap<>();
  private final Map<DatanodeInfo, Integer> distances = new HashMap<>();
  private final NodeCosts costs;
  private final AgentReads agents;
  /** During a read: per lost unit, the rows [from, to) whose cells the agents put in the caller's buffer. */
  private final Map<Integer, int[]> byAgents = new HashMap<>();
  /** Per lost unit, the rows the agents rebuilt ahead of small reads. */
  private final Map<Integer, AgentReadAhead> readAheads = new HashMap<>();
  private final int aheadRows;
  /** The network distance the agents' bytes of the current read are counted at. */
  private int agentsDistance;
  private long readersGroup = Long.MIN_VALUE;
  private ByteBuffer[] cells;
  private ByteBuffer[] rebuilt;
  /** The rebuilt row kept in {@link #rebuilt}: group id, row, lost units, window of the cells. */
  private long cachedGroup = Long.MIN_VALUE;
  private int cachedRow;
  private int[] cachedLost = new int[0];
  private int cachedFrom;
  private int cachedLength;
  /** Where the last read ended (group id, last byte): a read starting right after it is sequential. */
  private long lastGroup = Long.MIN_VALUE;
  private long lastEnd = Long.MIN_VALUE;
  /** Whether the read under way starts where the last one ended. */
  private boolean sequential;

  DegradedReader(EcRepairStripedInputStream stream, NodeCosts costs, AgentReads agents) {
    this.stream = stream;
    this.policy = stream.policy();
    this.spec = RepairCatalog.spec(policy);
    this.k = policy.getNumDataUnits();
    this.n = k + policy.getNumParityUnits();
    this.cell = policy.getCellSize();
    this.rowCapacity = (long) k * cell;
    this.alpha = spec.subPacketization();
    this.vector = alpha > 1;
    this.costs = costs;
    this.agents = agents;
    this.aheadRows = Math.max(1, agents.aheadBytes() / cell);
  }

  DegradedReadStats stats() {
    return stats;
  }

  @Override
  public boolean needsRebuild(LocatedStripedBlock group, long start, long end) {
    GroupUnits units = GroupUnits.of(group, policy, stream);
    if (units.lostUnits().length == 0) {
      return false;
    }
    for (long c = start / cell; c <= end / cell; c++) {
      if (units.lost((int) (c % k))) {
        return true;
      }
    }
    return false;
  }

  @Override
  public synchronized void read(LocatedStripedBlock group, long start, long end, ByteBuffer buf) throws IOException {
    long t0 = System.nanoTime();
    int base = buf.position();
    int total = (int) (end - start + 1);
    long groupId = group.getBlock().getBlockId();
    sequential = groupId == lastGroup && start == lastEnd + 1;
    try {
      readRows(group, start, end, buf, base);
    } finally {
      byAgents.clear();
    }
    lastGroup = groupId;
    lastEnd = end;
    buf.position(base + total);
    stats.returned(total, System.nanoTime() - t0);
  }

  /** Reads [start, end] into buf at base: the agents first, then the row loop, again without DataNodes that failed. */
  private void readRows(LocatedStripedBlock group, long start, long end, ByteBuffer buf, int base) throws IOException {
    boolean refetched = false;
    IOException lastFailure = null;
    for (int attempt = 0; ; attempt++) {
      GroupUnits units = GroupUnits.of(group, policy, stream);
      try {
        if (attempt == 0 && agents.enabled()) {
          rebuildThroughAgents(group, units, start, end, buf, base);
        }
        LocatedStripedBlock g = group;
        new RowLoop(RegionCoders.best()).run((int) (start / rowCapacity), (int) (end / rowCapacity) + 1,
            new RowLoop.Rows() {
              @Override
              public RowLoop.Step gather(int r) throws IOException {
                return gatherRow(g, units, r, start, end);
              }

              @Override
              public void rebuilt(int r, RowLoop.Step step) {
                deliverRow(g, units, r, start, end, buf, base, step);
              }
            });
        break;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new java.io.InterruptedIOException("interrupted while reading " + stream.path());
      } catch (HelperFailure f) {
        stats.helperFailed();
        closeReader(f.key);
        lastFailure = f.cause;
        if (!refetched && EcRepairStripedInputStream.tokenExpired(f.cause, ClientConnector.address(stream.client(),
            f.node))) {
          group = stream.refetchGroup(group.getStartOffset());
          refetched = true;
          continue;
        }
        LOG.warn("ec-repair: reading internal block {} of {} from {} failed ({}); going on without that DataNode",
            f.unit, stream.path(), f.node, f.cause.toString());
        if (ChecksumFailures.in(f.cause)) {
          reportCorrupt(units.located(f.unit), f.node);
        }
        stream.markDead(f.node);
        if (attempt > 2 * n) {
          throw f.cause;
        }
      } catch (UndecodableException e) {
        if (!refetched) {
          // The NameNode may know more (a rebuilt block, a restarted DataNode).
          group = stream.refetchGroup(group.getStartOffset());
          refetched = true;
          continue;
        }
        BlockMissingException missing = new BlockMissingException(stream.path(), "ec-repair: cannot read bytes ["
            + start + ", " + end + "] of block group " + group.getBlock() + " of " + stream.path() + " ("
            + policy.getName() + "): internal blocks " + Arrays.toString(units.lostUnits())
            + " are unavailable and the rest cannot rebuild them (" + e.getMessage() + ")",
            group.getStartOffset() + start);
        if (lastFailure != null) {
          missing.addSuppressed(lastFailure);
        }
        throw missing;
      }
    }
  }

  /**
   * Fetches what row r's part of [start, end] needs: the wanted cells of healthy units and the
   * repair's inputs when the part covers lost cells (the repair is null when it covers none, or
   * when the row's rebuilt cells are still kept from the read before).
   */
  private RowLoop.Step gatherRow(LocatedStripedBlock group, GroupUnits units, int r, long start, long end)
      throws IOException {
    GroupLayout layout = GroupLayout.of(k, n - k, cell, units.groupLength());
    long rowStart = r * rowCapacity;
    long from = Math.max(start, rowStart);
    long to = Math.min(end + 1, rowStart + layout.rowLength(r));
    // What the reader asks of each data cell of the row: [want[u][0], want[u][1]) in the cell.
    int[][] want = new int[k][];
    for (long c = from / cell; c * cell < to; c++) {
      long cellStart = c * cell;
      want[(int) (c % k)] = new int[] {(int) (Math.max(from, cellStart) - cellStart),
          (int) (Math.min(to, cellStart + cell) - cellStart)};
    }
    int[] needLost = new int[0];
    for (int u = 0; u < k; u++) {
      if (want[u] != null && units.lost(u) && !byAgents(u, r)) {
        needLost = append(needLost, u);
      }
    }
    CellRowRepair repair = null;
    int windowFrom = 0;
    int windowLength = 0;
    if (needLost.length > 0) {
      int codingLength = layout.codingLength(r);
      int wantFrom = Integer.MAX_VALUE;
      int wantEnd = 0;
      for (int u : needLost) {
        wantFrom = Math.min(wantFrom, want[u][0]);
        wantEnd = Math.max(wantEnd, want[u][1]);
      }
      int[] subchunks = null;
      if (vector) {
        windowLength = codingLength; // whole cells: sub-chunks are a function of L (docs/architecture.md#cell-layout)
        subchunks = sequential ? null : subchunkWindow(alpha, codingLength, wantFrom, wantEnd);
      } else {
        windowFrom = wantFrom;
        windowLength = wantEnd - wantFrom;
      }
      if (!cached(group, r, needLost, wantFrom, wantEnd - wantFrom)) {
        int[] healthy = IntStream.range(0, k).filter(u -> want[u] != null && !units.lost(u)).toArray();
        repair = HelperChoice.choose(spec, needLost, units.available(), costs(units), healthy, 1);
        // What the rebuilt cells will hold: the window, or for a vector code its sub-chunks.
        cachedGroup = Long.MIN_VALUE; // the kept row is no longer whole from here on
        cachedFrom = windowFrom;
        cachedLength = windowLength;
        if (subchunks != null) {
          repair = repair.window(subchunks[0], subchunks[1], subchunks[2] == 1);
          CellLayout cl = new CellLayout(alpha, codingLength);
          cachedFrom = cl.subchunkOffset(subchunks[0]);
          cachedLength = (subchunks[2] == 1 ? codingLength : cl.subchunkOffset(subchunks[0] + subchunks[1]))
              - cachedFrom;
        }
      }
    }

    // Each readable unit's ranges in its cell: what the reader wants, plus the repair's inputs.
    ensureBuffers();
    List<Future<Long>> fetches = new ArrayList<>();
    List<Integer> fetchUnits = new ArrayList<>();
    for (int u = 0; u < n; u++) {
      List<int[]> ranges = new ArrayList<>();
      if (u < k && want[u] != null && !units.lost(u)) {
        ranges.add(new int[] {want[u][0], want[u][1] - want[u][0]});
      }
      if (repair != null) {
        for (int[] x : repair.ranges(u, windowLength)) {
          ranges.add(new int[] {x[0] + windowFrom, x[1]});
        }
      }
      if (ranges.isEmpty()) {
        continue;
      }
      if (units.lost(u)) {
        throw new IllegalStateException("repair of " + Arrays.toString(needLost) + " reads lost unit " + u);
      }
      ranges = ByteRanges.merged(ranges);
      int stored = units.empty(u) ? 0 : layout.cellLength(r, u);
      ByteBuffer target = cell(u);
      List<long[]> blockRanges = RowLoop.storedRanges(ranges, layout.blockOffset(r), stored);
      RowLoop.zeroPastStored(target, ranges, stored);
      if (!blockRanges.isEmpty()) {
        fetchUnits.add(u);
        fetches.add(fetch(group, units, u, layout.blockOffset(r), blockRanges, target));
      }
    }
    awaitFetches(units, fetchUnits, fetches);

    if (repair == null) {
      return new RowLoop.Step(null, null, null, windowLength);
    }
    ByteBuffer[] in = new ByteBuffer[n];
    for (int u : repair.helpers()) {
      in[u] = window(cells[u], windowFrom, windowLength);
    }
    int[] lost = repair.lost();
    cachedGroup = Long.MIN_VALUE; // the kept row is overwritten from here on
    ByteBuffer[] out = new ByteBuffer[lost.length];
    for (int i = 0; i < lost.length; i++) {
      if (rebuilt[i] == null) {
        rebuilt[i] = Buffers.alignedDirect(cell);
      }
      out[i] = window(rebuilt[i], windowFrom, windowLength);
    }
    return new RowLoop.Step(repair, in, out, windowLength);
  }

  /** Copies row r's part of [start, end] into buf (at base + offset - start), the rebuilt cells kept for the next read. */
  private void deliverRow(LocatedStripedBlock group, GroupUnits units, int r, long start, long end, ByteBuffer buf,
                          int base, RowLoop.Step step) {
    if (step.repair() != null) {
      cachedGroup = group.getBlock().getBlockId();
      cachedRow = r;
      cachedLost = step.repair().lost();
      stats.rebuilt(cachedLost.length);
    }
    long rowStart = r * rowCapacity;
    GroupLayout layout = GroupLayout.of(k, n - k, cell, units.groupLength());
    long from = Math.max(start, rowStart);
    long to = Math.min(end + 1, rowStart + layout.rowLength(r));
    for (long c = from / cell; c * cell < to; c++) {
      int u = (int) (c % k);
      if (byAgents(u, r)) {
        continue; // already in the caller's buffer
      }
      long cellStart = c * cell;
      int offset = (int) (Math.max(from, cellStart) - cellStart);
      int length = (int) (Math.min(to, cellStart + cell) - cellStart) - offset;
      ByteBuffer source = units.lost(u) ? rebuilt[Arrays.binarySearch(cachedLost, u)] : cells[u];
      buf.put(base + (int) (cellStart + offset - start), source, offset, length);
    }
  }

  /**
   * Asks the helpers' repair agents to rebuild the cells of each lost data unit [start, end]
   * wants, with the client as the requestor ({@link AgentReads}), one unit after another, straight
   * into the caller's buffer: a vector code's full rows, a scalar code's every row of the range.
   * The rows they covered are then left out of the row loop; a unit the agents could not do is
   * rebuilt by the loop from the read set as before.
   */
  private void rebuildThroughAgents(LocatedStripedBlock group, GroupUnits units, long start, long end, ByteBuffer buf,
                                    int base) throws InterruptedException {
    java.util.TreeSet<Integer> lostUnits = new java.util.TreeSet<>();
    for (long c = start / cell; c <= end / cell && lostUnits.size() < k; c++) {
      int u = (int) (c % k);
      if (units.lost(u)) {
        lostUnits.add(u);
      }
    }
    if (lostUnits.isEmpty()) {
      return;
    }
    agentsDistance = 0;
    for (int u : units.available()) {
      agentsDistance = Math.max(agentsDistance, distance(units.node(u)));
    }
    for (int unit : lostUnits) {
      rebuildUnitThroughAgents(group, units, unit, start, end, buf, base);
    }
  }

  /** {@link #rebuildThroughAgents} for one lost unit. */
  private void rebuildUnitThroughAgents(LocatedStripedBlock group, GroupUnits units, int unit, long start, long end,
                                        ByteBuffer buf, int base) throws InterruptedException {
    long groupLength = units.groupLength();
    int from = (int) (start / rowCapacity);
    int to = (int) (end / rowCapacity) + 1;
    if (vector) {
      to = (int) Math.min(to, groupLength / rowCapacity); // sub-chunks are cut from full cells only
    }
    while (from < to && !wants(from, unit, start, end)) {
      from++;
    }
    while (to > from && !wants(to - 1, unit, start, end)) {
      to--;
    }
    if (from >= to) {
      return;
    }
    GroupLayout layout = GroupLayout.of(k, n - k, cell, groupLength);
    if (to - from == 1 && !sequential) {
      switch (partOfACell(group, units, layout, unit, from, start, end, buf, base)) {
        case REBUILT -> {
          byAgents.put(unit, new int[] {from, to});
          return;
        }
        case FETCH -> {
          return; // the row loop fetches the read set
        }
        default -> { } // whole cells, as any read
      }
    }
    if (to - from > aheadRows) {
      // A read of many rows: straight into the caller's buffer.
      long t0 = System.nanoTime();
      long received = agents.rebuild(group, units, spec, layout, unit, from, to - from,
          (row, cellOffset, src, off, len) -> copyWanted(row, unit, cellOffset, src, off, len, start, end, buf, base));
      if (received < 0) {
        stats.agentsFellBack();
        return;
      }
      stats.rebuiltByAgents(1, to - from, received, System.nanoTime() - t0);
      countAgentBytes(received);
    } else {
      // Small reads: through the rows rebuilt ahead of them.
      AgentReadAhead ahead = readAheads.computeIfAbsent(unit,
          u -> new AgentReadAhead(agents, stats, this::countAgentBytes, cell, aheadRows));
      int last = vector ? (int) (groupLength / rowCapacity) : layout.rows();
      // Whole cells of the lost unit, as a reader scanning the block takes them: the agents may rebuild ahead.
      boolean wholeCells = start <= ((long) from * k + unit) * cell && end >= ((long) (to - 1) * k + unit + 1) * cell - 1;
      ByteBuffer cells = ahead.rows(group, units, spec, layout, unit, from, to, last, wholeCells);
      if (cells == null) {
        return;
      }
      for (int r = from; r < to; r++) {
        copyWanted(r, unit, 0, cells, (r - ahead.firstRow()) * cell, cell, start, end, buf, base);
      }
    }
    byAgents.put(unit, new int[] {from, to});
  }

  /** What became of a read of part of one lost cell: the agents rebuilt it, it is to be fetched, or neither. */
  private enum PartOfACell { REBUILT, FETCH, AS_ANY_READ }

  /**
   * A read of part of lost unit {@code unit}'s cell of {@code row} (a full row for a code with
   * sub-chunks), not continuing the last read. Only the sub-chunks it lies in are rebuilt (a
   * scalar code's cell cut for this, {@link AgentReads#scalarSubchunks}). When the read set
   * for those is small ({@link AgentReads#minReadSetBytes}) the row loop fetches it: a request
   * to the agents costs tens of milliseconds of set-up, more than a few hundred KiB take on the
   * client's link. Else the agents rebuild them straight into the caller's buffer, and when they
   * cannot, the read set is fetched. A read of the whole cell, of more than a quarter of a vector
   * code's cell or of the cell's tail bytes, and a row a read-ahead holds go on as any read.
   */
  private PartOfACell partOfACell(LocatedStripedBlock group, GroupUnits units, GroupLayout layout, int unit, int row,
                                  long start, long end, ByteBuffer buf, int base) throws InterruptedException {
    long cellStart = ((long) row * k + unit) * cell;
    int wantFrom = (int) (Math.max(start, cellStart) - cellStart);
    int wantEnd = (int) (Math.min(end + 1, cellStart + cell) - cellStart);
    int cut = vector ? alpha : AgentReads.scalarSubchunks(cell);
    int[] subchunks = subchunkWindow(cut, cell, wantFrom, wantEnd);
    AgentReadAhead ahead = readAheads.get(unit);
    if (subchunks == null || (ahead != null && ahead.holds(group.getBlock().getBlockId(), unit, row, row + 1))) {
      return PartOfACell.AS_ANY_READ;
    }
    CellRowRepair repair;
    try {
      repair = HelperChoice.choose(spec, new int[] {unit}, units.available(), costs(units), new int[0], 1);
    } catch (UndecodableException e) {
      return PartOfACell.FETCH; // the row loop says so
    }
    long readSet = vector ? repair.window(subchunks[0], subchunks[1], subchunks[2] == 1).bytesPerRow(cell)
        : repair.bytesPerRow(wantEnd - wantFrom);
    if (readSet < agents.minReadSetBytes()) {
      return PartOfACell.FETCH;
    }
    // A chain moves the window over every helper's link: past a quarter of a vector code's
    // cell that is more than its stored plan moves for the whole cell (CLAY-10-4: 4 blocks).
    if (subchunks[2] == 1 || (vector && subchunks[1] * 4 > alpha)) {
      return PartOfACell.AS_ANY_READ;
    }
    long t0 = System.nanoTime();
    long received = agents.rebuildWindow(group, units, spec, layout, row, repair, cut, subchunks[0], subchunks[1],
        (r, cellOffset, src, off, len) -> copyWanted(r, unit, cellOffset, src, off, len, start, end, buf, base));
    if (received < 0) {
      stats.agentsFellBack();
      return PartOfACell.FETCH; // not the agents again for the whole cell: a stalled helper would stall it too
    }
    stats.rebuiltByAgents(1, 1, received, System.nanoTime() - t0);
    countAgentBytes(received);
    return PartOfACell.REBUILT;
  }

  /**
   * The sub-chunks of a lost cell of coding length {@code codingLength}, cut into
   * {@code subchunks}, that its bytes [{@code from}, {@code end}) lie in, as {first, count, 1 if
   * the tail bytes too}; null when the whole cell is wanted anyway or it has no whole sub-chunk.
   * Callers leave out reads that continue the last one: a sequential reader wants the rest of
   * the cell next, and one repair of the whole cell reads less than one per window (3.25 blocks
   * for a CLAY-10-4 cell against 5.5 to 17 times each window).
   */
  private static int[] subchunkWindow(int subchunks, int codingLength, int from, int end) {
    CellLayout layout = new CellLayout(subchunks, codingLength);
    int s = layout.subchunkBytes();
    if (s == 0) {
      return null;
    }
    int first = Math.min(subchunks - 1, from / s);
    int count = Math.max(1, Math.min(subchunks, (end + s - 1) / s) - first);
    boolean tail = end > layout.tailOffset();
    if (first == 0 && count == subchunks && (tail || layout.tailBytes() == 0)) {
      return null;
    }
    return new int[] {first, count, tail ? 1 : 0};
  }

  /**
   * Copies what [start, end] wants of bytes [cellOffset, cellOffset + len) of unit u's cell of
   * row r (src's [off, off + len)) into buf at base + offset - start.
   */
  private void copyWanted(int r, int u, int cellOffset, ByteBuffer src, int off, int len, long start, long end,
                          ByteBuffer buf, int base) {
    long pos = ((long) r * k + u) * cell + cellOffset;
    long lo = Math.max(pos, start);
    long hi = Math.min(pos + len, end + 1);
    if (lo < hi) {
      buf.put(base + (int) (lo - start), src, off + (int) (lo - pos), (int) (hi - lo));
    }
  }

  /**
   * Counts what the agents sent in HDFS's read statistics, as fetched bytes are counted, at the
   * network distance of the group's farthest readable DataNode (the values come from helpers
   * across the group).
   */
  private void countAgentBytes(long bytes) {
    stream.countRead((int) Math.min(Integer.MAX_VALUE, bytes), agentsDistance);
  }

  /** Whether [start, end] wants bytes of unit u's cell of row r. */
  private boolean wants(int r, int u, long start, long end) {
    long cellStart = ((long) r * k + u) * cell;
    return cellStart <= end && cellStart + cell > start;
  }

  /** Whether unit u's cell of row r is in the caller's buffer already, rebuilt by the agents. */
  private boolean byAgents(int u, int r) {
    int[] rows = byAgents.get(u);
    return rows != null && r >= rows[0] && r < rows[1];
  }

  private boolean cached(LocatedStripedBlock group, int r, int[] lost, int from, int length) {
    if (cachedGroup != group.getBlock().getBlockId() || cachedRow != r || from < cachedFrom
        || from + length > cachedFrom + cachedLength) {
      return false;
    }
    for (int u : lost) {
      if (Arrays.binarySearch(cachedLost, u) < 0) {
        return false;
      }
    }
    return true;
  }

  /** Starts reading {@code ranges} of unit u's internal block into {@code target} (cell offsets). */
  private Future<Long> fetch(LocatedStripedBlock group, GroupUnits units, int u, long rowBase, List<long[]> ranges,
                             ByteBuffer target) {
    UnitReader reader = reader(group, units, u);
    DatanodeInfo node = units.node(u);
    return stream.readPool().submit(() -> {
      long before = reader.bytes.sum();
      long start = System.nanoTime();
      reader.reader.read(ranges, (offset, data) -> {
        ByteBuffer into = target.duplicate();
        into.position((int) (offset - rowBase));
        into.put(data);
      });
      long bytes = reader.bytes.sum() - before;
      costs.record(node, bytes, System.nanoTime() - start);
      return bytes;
    });
  }

  private void awaitFetches(GroupUnits units, List<Integer> fetchUnits, List<Future<Long>> fetches)
      throws IOException {
    HelperFailure failure = null;
    for (int i = 0; i < fetches.size(); i++) {
      int u = fetchUnits.get(i);
      try {
        long bytes = fetches.get(i).get();
        stats.fetched(bytes);
        stream.countRead((int) bytes, distance(units.node(u)));
      } catch (InterruptedException e) {
        throw interrupted();
      } catch (ExecutionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof InterruptedException) {
          throw interrupted();
        }
        IOException io = cause instanceof IOException x ? x : new IOException(cause);
        if (!ChecksumFailures.in(io) && !tokenTrouble(io)) { // those say nothing about the node's speed
          costs.recordFailure(units.node(u));
        }
        if (failure == null) {
          failure = new HelperFailure(u, units.node(u), key(units.located(u)), io);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  private static boolean tokenTrouble(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof org.apache.hadoop.security.token.SecretManager.InvalidToken
          || t instanceof org.apache.hadoop.hdfs.security.token.block.InvalidBlockTokenException) {
        return true;
      }
    }
    return false;
  }

  /** A unit's reader and the bytes it delivered (the listener counts on the reading thread). */
  private record UnitReader(BlockRangeReader reader, LongAdder bytes) {}

  /**
   * Reads still running may write into the cell buffers: closing the connections ends them, and
   * dropping the buffers keeps their late bytes out of any later read.
   */
  private InterruptedIOException interrupted() {
    release();
    Thread.currentThread().interrupt();
    return new InterruptedIOException("interrupted reading " + stream.path());
  }

  private UnitReader reader(LocatedStripedBlock group, GroupUnits units, int u) {
    long groupId = group.getBlock().getBlockId();
    if (groupId != readersGroup) {
      closeReaders();
      readersGroup = groupId;
    }
    LocatedBlock internal = units.located(u);
    return readers.computeIfAbsent(key(internal), x -> {
      LongAdder bytes = new LongAdder();
      RangeListener counter = bytes::add;
      return new UnitReader(new BlockRangeReader(new ClientConnector(stream.client(), internal),
          internal.getLocations()[0], internal.getBlock(), counter), bytes);
    });
  }

  private static String key(LocatedBlock internal) {
    return internal.getBlock().getBlockId() + "@" + internal.getLocations()[0].getXferAddr();
  }

  /**
   * The cost of a byte from each unit's DataNode: 1 + network distance / 2, times its factor
   * (the operator's and the measured one, {@link NodeCosts}); 0 for units holding no bytes.
   */
  private double[] costs(GroupUnits units) {
    double[] cost = new double[n];
    for (int u = 0; u < n; u++) {
      DatanodeInfo node = units.node(u);
      cost[u] = node == null ? 0 : (1 + distance(node) / 2.0) * costs.of(node);
    }
    return cost;
  }

  private int distance(DatanodeInfo node) {
    if (node == null) {
      return 0;
    }
    return distances.computeIfAbsent(node, d -> {
      try {
        return stream.client().getClientContext().getNetworkDistance(d);
      } catch (IOException e) {
        return Integer.MAX_VALUE / 4;
      }
    });
  }

  private void ensureBuffers() {
    if (cells == null) {
      cells = new ByteBuffer[n];
      rebuilt = new ByteBuffer[n];
    }
  }

  private ByteBuffer cell(int u) {
    if (cells[u] == null) {
      cells[u] = Buffers.alignedDirect(cell);
    }
    return cells[u];
  }

  private static ByteBuffer window(ByteBuffer b, int from, int length) {
    ByteBuffer d = b.duplicate();
    d.limit(from + length).position(from);
    return d.slice();
  }

  private static int[] append(int[] a, int x) {
    int[] b = Arrays.copyOf(a, a.length + 1);
    b[a.length] = x;
    return b;
  }

  private void closeReader(String key) {
    UnitReader r = readers.remove(key);
    if (r != null) {
      r.reader.close();
    }
  }

  private void closeReaders() {
    readers.values().forEach(r -> r.reader.close());
    readers.clear();
  }

  @Override
  public synchronized void release() {
    closeReaders();
    readersGroup = Long.MIN_VALUE;
    cells = null;
    rebuilt = null;
    cachedGroup = Long.MIN_VALUE;
    cachedLost = new int[0];
    readAheads.values().forEach(AgentReadAhead::release);
    readAheads.clear();
  }

  /** A unit's DataNode failed while the row was read. */
  /** Tells the NameNode that {@code node}'s replica failed its stored checksums, as HDFS's own readers do. */
  private void reportCorrupt(LocatedBlock internal, DatanodeInfo node) {
    if (internal == null) {
      return;
    }
    try {
      LocatedBlock replica = new LocatedBlock(internal.getBlock(), new DatanodeInfo[] {node});
      stream.client().reportBadBlocks(new LocatedBlock[] {replica});
      stats.corruptReported();
      LOG.warn("ec-repair: reported {} on {} to the NameNode: its bytes fail their stored checksums",
          internal.getBlock(), node);
    } catch (IOException e) {
      LOG.warn("ec-repair: cannot report the corrupt replica of {} on {}: {}", internal.getBlock(), node, e.toString());
    }
  }

  private static final class HelperFailure extends IOException {
    final int unit;
    final DatanodeInfo node;
    final String key;
    final IOException cause;

    HelperFailure(int unit, DatanodeInfo node, String key, IOException cause) {
      super(cause);
      this.unit = unit;
      this.node = node;
      this.key = key;
      this.cause = cause;
    }
  }
}
