package io.ecrepair.hdfs.client;

import io.ecrepair.codes.CellLayout;
import io.ecrepair.codes.CodeSpec;
import io.ecrepair.exec.CellRowRepair;
import io.ecrepair.exec.NodePart;
import io.ecrepair.exec.PartRunner;
import io.ecrepair.exec.SliceGeometry;
import io.ecrepair.gf.RegionCoders;
import io.ecrepair.hdfs.NodeCosts;
import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.hdfs.TailRows;
import io.ecrepair.hdfs.agent.AgentChannels;
import io.ecrepair.hdfs.agent.AgentProof;
import io.ecrepair.hdfs.agent.FrameBuffers;
import io.ecrepair.hdfs.agent.PlanCoordinator;
import io.ecrepair.hdfs.agent.PlanPartRequest;
import io.ecrepair.hdfs.agent.PlanSession;
import io.ecrepair.hdfs.task.DataNodeKeys;
import io.ecrepair.hdfs.transfer.BlockRangeReader;
import io.ecrepair.layout.GroupLayout;
import io.ecrepair.plan.Plan;
import io.ecrepair.plan.RepairChains;
import io.ecrepair.plan.StoredPlanChoice;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSClient;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.security.token.Token;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Degraded reads with this client as the requestor of a repair that the helpers' repair agents
 * run (ECPipe, ParaRC): a chain ending at the client for RS and LRC ({@link RepairChains}), the
 * stored plan that loads the requestor least for Clay and Butterfly. So the client's downlink
 * carries about one block per lost block, as for a healthy read, instead of the code's whole
 * read set. The client sends each helper's agent its part with the block token the NameNode
 * gave it for that helper's block, checks that the agent proves it is its DataNode's
 * ({@link AgentProof.Challenge#of}), and receives the lost cells back over those connections,
 * every frame checksummed ({@link PlanCoordinator}). A plan moves whole sub-chunks: where they do
 * not fill a cell (CLAY-6-3's 27 in 1 MiB leave 4 bytes), the client reads the tail helpers'
 * few tail bytes per row beside it, as the rebuilding DataNode does ({@link TailRows}). When
 * anything fails (no agents, no plan, an agent that cannot be reached or breaks off) it says why
 * in the debug log and the caller fetches the read set itself, so a reader never sees an agent's
 * trouble.
 */
final class AgentReads {
  private static final Logger LOG = LoggerFactory.getLogger(AgentReads.class);
  /** Agents no connection reached, with the time (System.nanoTime) until which reads leave them out. */
  private static final Map<InetSocketAddress, Long> UNREACHABLE = new java.util.concurrent.ConcurrentHashMap<>();
  private static final SecureRandom RANDOM = new SecureRandom();
  /**
   * Threads of this JVM's reads through the agents (sending parts, waiting for the helpers'
   * answers, reading ahead) at most; threads come and go with the reads. A read that finds none
   * free fetches its read set itself.
   */
  static final int MAX_WAITERS = 256;
  private static final ExecutorService WAITERS = new ThreadPoolExecutor(0, MAX_WAITERS, 10, TimeUnit.SECONDS,
      new SynchronousQueue<>(), daemon("ec-repair-client-agent"));

  private final DFSClient client;
  private final int portOffset;
  private final boolean enabled;
  private final long stallMillis;
  private final int sliceBytes;
  private final int pieceBytes;
  private final NodeCosts costs;
  private final int aheadBytes;
  private final long minReadSetBytes;
  private final int connectMillis;
  private final long unreachableNanos;
  /** Arrays for the frames the helpers send this client (at most 16 MiB idle, a 32nd of the heap). */
  private final FrameBuffers frames = new FrameBuffers(Math.min(16L << 20, Runtime.getRuntime().maxMemory() / 32));

  AgentReads(DFSClient client, Configuration conf, NodeCosts costs) {
    this.client = client;
    this.portOffset = conf.getInt(DataNodeKeys.AGENT_PORT_OFFSET_KEY, DataNodeKeys.AGENT_PORT_OFFSET_DEFAULT);
    this.enabled = conf.getBoolean(ClientKeys.AGENT_READS_KEY, ClientKeys.AGENT_READS_DEFAULT) && portOffset > 0;
    int socketTimeout = client.getConf().getSocketTimeout();
    this.stallMillis = Math.max(1, atMostSocketTimeout(conf.getLong(ClientKeys.AGENT_READS_STALL_MS_KEY,
        ClientKeys.AGENT_READS_STALL_MS_DEFAULT), socketTimeout));
    this.sliceBytes = Math.min(PlanPartRequest.MAX_PIECE,
        Math.max(1, conf.getInt(ClientKeys.AGENT_READS_SLICE_KB_KEY, ClientKeys.AGENT_READS_SLICE_KB_DEFAULT))
            * 1024);
    this.pieceBytes = (int) Math.max(PlanPartRequest.MIN_PIECE, Math.min(PlanPartRequest.MAX_PIECE,
        conf.getLong(ClientKeys.AGENT_READS_PIECE_KB_KEY, ClientKeys.AGENT_READS_PIECE_KB_DEFAULT) * 1024));
    this.costs = costs;
    this.aheadBytes = (int) Math.min(Integer.MAX_VALUE / 2,
        Math.max(0, conf.getLong(ClientKeys.AGENT_READS_AHEAD_KB_KEY, ClientKeys.AGENT_READS_AHEAD_KB_DEFAULT))
            * 1024);
    this.minReadSetBytes = Math.max(0, conf.getLong(ClientKeys.AGENT_READS_MIN_READ_SET_KB_KEY,
        ClientKeys.AGENT_READS_MIN_READ_SET_KB_DEFAULT)) * 1024;
    this.connectMillis = (int) Math.max(1, atMostSocketTimeout(conf.getInt(ClientKeys.AGENT_READS_CONNECT_MS_KEY,
        ClientKeys.AGENT_READS_CONNECT_MS_DEFAULT), socketTimeout));
    this.unreachableNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(0,
        conf.getLong(ClientKeys.AGENT_READS_UNREACHABLE_MS_KEY, ClientKeys.AGENT_READS_UNREACHABLE_MS_DEFAULT)));
  }

  /** {@code millis}, but at most the client's socket timeout when it has one ({@code dfs.client.socket-timeout} 0: none). */
  static long atMostSocketTimeout(long millis, int socketTimeout) {
    return socketTimeout > 0 ? Math.min(millis, socketTimeout) : millis;
  }

  /** {@value ClientKeys#AGENT_READS_AHEAD_KB_KEY} in bytes. */
  int aheadBytes() {
    return aheadBytes;
  }

  /** {@value ClientKeys#AGENT_READS_MIN_READ_SET_KB_KEY} in bytes. */
  long minReadSetBytes() {
    return minReadSetBytes;
  }

  /** Whether reads may ask the agents: the DataNodes' agent port offset is known here and the reads are not turned off. */
  boolean enabled() {
    return enabled;
  }

  /** Takes bytes [cellOffset, cellOffset + len) of the lost unit's cell of {@code row}, from src's [off, off + len). */
  interface Sink {
    void put(int row, int cellOffset, ByteBuffer src, int off, int len);

    /** Every byte of {@code row} is in, verified; the client has received {@code bytesReceived} so far. */
    default void rowDone(int row, long bytesReceived) {
    }
  }

  /**
   * Rebuilds the cells of lost unit {@code lost} in rows [firstRow, firstRow + rows) through the
   * agents into {@code sink}; returns the bytes the client received, or -1 when the caller must
   * fetch instead (why is logged at debug: nothing the caller should see). {@code rows} must be
   * full rows for a code with sub-chunks.
   */
  long rebuild(LocatedStripedBlock group, GroupUnits units, CodeSpec spec, GroupLayout layout, int lost,
               int firstRow, int rows, Sink sink) {
    return rebuild(group, units, spec, layout, lost, firstRow, rows, null, sink);
  }

  /**
   * Rebuilds only sub-chunks [{@code first}, {@code first + count}) of lost unit {@code lost}'s
   * cell of {@code row}, its cell cut into {@code subchunks} (a vector code's own; a scalar
   * code's as fine as {@link #scalarSubchunks} cuts it), as {@link #rebuild}: the part of
   * {@code repair} that those need, chained over its helpers
   * ({@link io.ecrepair.plan.CodeRepairs#windowChain}), so a small read of a lost cell costs
   * about its own bytes on every link instead of the whole cell's repair. A scalar code's
   * window runs its chain over the window's sub-chunks as rows of their own
   * ({@link io.ecrepair.plan.CodeRepairs#scalarChain}): each goes down the chain right behind
   * the one before, and one chain serves every window of the repair. The window ends before the
   * cell's tail bytes, and for a code with sub-chunks the row is full.
   */
  long rebuildWindow(LocatedStripedBlock group, GroupUnits units, CodeSpec spec, GroupLayout layout, int row,
                     CellRowRepair repair, int subchunks, int first, int count, Sink sink) {
    return rebuild(group, units, spec, layout, repair.lost()[0], row, 1,
        new Window(repair, subchunks, first, count), sink);
  }

  /** A window of sub-chunks of the lost cells, of the repair chosen for it. */
  private record Window(CellRowRepair repair, int subchunks, int first, int count) {}

  /**
   * The sub-chunks a scalar code's cell of {@code cell} bytes is cut into for a window: of
   * 4 KiB (2 or 1 KiB where the cell is not a multiple), so a 64 KiB read moves at most 68 KiB
   * on a link.
   */
  static int scalarSubchunks(int cell) {
    for (int s = 4096; s > 1024; s /= 2) {
      if (cell % s == 0) {
        return cell / s;
      }
    }
    return Math.max(1, cell / 1024);
  }

  private long rebuild(LocatedStripedBlock group, GroupUnits units, CodeSpec spec, GroupLayout layout, int lost,
                       int firstRow, int rows, Window window, Sink sink) {
    String what = "unit " + lost + " of " + group.getBlock() + " rows " + firstRow + "+" + rows
        + (window == null ? "" : " sub-chunks " + window.first() + "+" + window.count() + " of " + window.subchunks());
    try {
      Map<Integer, NodePart> parts;
      int cell = layout.cellSize();
      Sink into = sink;
      if (window != null && spec.subPacketization() == 1) {
        parts = RepairCatalog.scalarChain(window.repair()).parts();
        cell /= window.subchunks();
        firstRow = firstRow * window.subchunks() + window.first();
        rows = window.count();
        into = subchunkRows(sink, window, cell, firstRow + rows - 1);
      } else if (window != null) {
        parts = RepairCatalog.windowChain(window.repair(), window.first(), window.count()).parts();
      } else {
        Plan plan = plan(group, units, spec, layout, lost);
        if (plan == null) {
          LOG.debug("ec-repair: no agent plan for {}; fetching the read set", what);
          return -1;
        }
        parts = plan.graph().subchunkCount() == 1 ? NodePart.compile(plan.graph(), plan.colors())
            : RepairCatalog.parts(plan);
      }
      return run(parts, spec, group, units, layout, cell, lost, firstRow, rows, window != null, into, what);
    } catch (IOException | RuntimeException e) {
      for (InetSocketAddress unreachable : AgentChannels.Unreachable.in(e)) {
        if (unreachableNanos > 0) {
          UNREACHABLE.put(unreachable, System.nanoTime() + unreachableNanos);
          LOG.debug("ec-repair: the repair agent at {} cannot be reached from this client; reads leave it out for {} s",
              unreachable, TimeUnit.NANOSECONDS.toSeconds(unreachableNanos));
        }
      }
      LOG.debug("ec-repair: the repair agents did not rebuild {} ({}); fetching the read set", what, e.toString());
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /** {@link #rebuild} on a thread of its own; cancelling the future interrupts it, which ends the run. */
  java.util.concurrent.Future<Long> rebuildInBackground(LocatedStripedBlock group, GroupUnits units, CodeSpec spec,
                                                         GroupLayout layout, int lost, int firstRow, int rows,
                                                         Sink sink) {
    try {
      return WAITERS.submit(() -> rebuild(group, units, spec, layout, lost, firstRow, rows, sink));
    } catch (java.util.concurrent.RejectedExecutionException busy) {
      LOG.debug("ec-repair: no thread free for a read through the agents; fetching the read set");
      return java.util.concurrent.CompletableFuture.completedFuture(-1L);
    }
  }

  /** The chain for a scalar code; for a vector code, the stored plan whose requestor receives least. */
  private Plan plan(LocatedStripedBlock group, GroupUnits units, CodeSpec spec, GroupLayout layout, int lost) {
    if (spec.subPacketization() == 1) {
      return RepairChains.plan(spec, lost, units.available(), helpers(units, layout),
          group.getBlock().getBlockId(), null, sliceBytes);
    }
    // The client holds no block and listens nowhere: its part may only receive.
    return StoredPlanChoice.choose(RepairCatalog.parallelPlansOfIndex(spec, lost), lost, u -> units.node(u) != null,
        true, StoredPlanChoice.leastIntoRequestor(lost)).orElse(null);
  }

  private RepairChains.Helpers helpers(GroupUnits units, GroupLayout layout) {
    return new RepairChains.Helpers() {
      @Override
      public long blockLength(int unit) {
        return layout.blockLength(unit);
      }

      @Override
      public long[] loads(int[] of) {
        return new long[of.length]; // a client cannot ask the agents' backlog; costs decide
      }

      @Override
      public double cost(int unit) {
        return costs.of(node(units, unit));
      }

      @Override
      public String rack(int unit) {
        return node(units, unit).getNetworkLocation();
      }
    };
  }

  private static DatanodeInfo node(GroupUnits units, int unit) {
    DatanodeInfo d = units.node(unit);
    if (d == null) {
      throw new IllegalStateException("the repair reads internal block " + unit + ", which has no location");
    }
    return d;
  }

  /**
   * A scalar window's rows of one sub-chunk each (of {@code s} bytes) as the cell's bytes: sub-chunk
   * row r is sub-chunk r mod cut of cell row r / cut; the cell's row is done with the window's
   * last sub-chunk row, {@code lastRow}.
   */
  private static Sink subchunkRows(Sink cells, Window window, int s, int lastRow) {
    int cut = window.subchunks();
    return new Sink() {
      @Override
      public void put(int row, int offset, ByteBuffer src, int off, int len) {
        cells.put(row / cut, row % cut * s + offset, src, off, len);
      }

      @Override
      public void rowDone(int row, long bytesReceived) {
        if (row == lastRow) {
          cells.rowDone(row / cut, bytesReceived);
        }
      }
    };
  }

  /**
   * Runs the parts with this client as {@code lost}'s requestor over rows [firstRow, firstRow +
   * rows) of cells of {@code cell} bytes; {@code noTails}: the plan's window ends before the tails.
   */
  private long run(Map<Integer, NodePart> parts, CodeSpec spec, LocatedStripedBlock group, GroupUnits units,
                   GroupLayout layout, int cell, int lost, int firstRow, int rows, boolean noTails, Sink sink,
                   String what)
      throws IOException, InterruptedException {
    NodePart mine = parts.get(lost);
    if (mine == null || mine.leaves().length != 0 || !mine.outbound().isEmpty()) {
      return -1; // the client holds no block and listens nowhere
    }
    int alpha = mine.alpha();
    int piece = alpha == 1 ? sliceBytes : pieceBytes;
    SliceGeometry geometry = new SliceGeometry(firstRow, rows, cell / alpha, piece);
    long end = (long) (firstRow + rows) * cell;
    long need = spec.subPacketization() == 1 ? layout.blockLength(lost) : Long.MAX_VALUE;
    List<Integer> helperUnits = new ArrayList<>(parts.keySet());
    helperUnits.remove(Integer.valueOf(lost));
    Map<Integer, PlanCoordinator.Helper> helpers = new TreeMap<>();
    for (int i = 0; i < helperUnits.size(); i++) {
      int u = helperUnits.get(i);
      LocatedBlock located = units.located(u);
      DatanodeInfo dn = node(units, u);
      InetSocketAddress agent = agent(dn);
      if (leftOut(agent)) {
        LOG.debug("ec-repair: the repair agent at {} could not be reached lately; fetching {}'s read set", agent, what);
        return -1;
      }
      ExtendedBlock block = new ExtendedBlock(located.getBlock());
      block.setNumBytes(layout.blockLength(u));
      Token<BlockTokenIdentifier> token = located.getBlockToken();
      helpers.put(u, new PlanCoordinator.Helper(block, token, Math.min(Math.min(need, block.getNumBytes()), end),
          agent, dn.getDatanodeUuid(), AgentProof.Challenge.of(otherToken(units, u, helperUnits, i)),
          AgentChannels.clientDialer(client, token)));
    }
    long hi = RANDOM.nextLong();
    long lo = RANDOM.nextLong();
    String name = "degraded read " + Long.toHexString(lo) + " of " + what;
    Map<Integer, String> senderIds = new TreeMap<>();
    mine.inbound().forEach(g -> senderIds.put(g.peer(), helpers.get(g.peer()).datanodeId()));
    PlanSession session = new PlanSession(name, mine, group.getBlock(), senderIds, geometry.pieceBytes(), stallMillis,
        new AtomicLong(), (long) mine.valuesIn() * geometry.subchunkBytes() * rows, frames,
        io.ecrepair.hdfs.transfer.RepairBudget.UNLIMITED);
    int s = geometry.subchunkBytes();
    PartRunner.Results results = (t, r, src, off, len) -> sink.put(geometry.row(t),
        r.subchunk() * s + geometry.offset(t), src, off, len);
    PartRunner.Leaves noLeaves = (t, subs, dst, len) -> {
      throw new IOException("the client holds no block of the group");
    };
    PartRunner.Outbox noOutbox = (t, g, src, off, len) -> {
      throw new IOException("the plan sends nothing from the client");
    };
    // Past a vector code's whole sub-chunks, each cell's few tail bytes: read beside the plan.
    CellLayout cellLayout = new CellLayout(alpha, cell);
    LongAdder tailBytesIn = new LongAdder();
    java.util.concurrent.Future<byte[][]> tails = alpha == 1 || cellLayout.tailBytes() == 0 || noTails ? null
        : WAITERS.submit(() -> tails(spec, units, layout, lost, firstRow, rows, tailBytesIn));
    try (PlanCoordinator coordinator = new PlanCoordinator(name, hi, lo, parts, lost, helpers, null, null, geometry,
             cell, stallMillis, connectMillis, WAITERS, session);
         PartRunner runner = new PartRunner(mine, RegionCoders.best(), geometry.pieceBytes())) {
      long t0 = System.nanoTime();
      coordinator.start();
      long started = System.nanoTime();
      for (int t = 0; t < geometry.count(); t++) {
        runner.runSlice(t, geometry.length(t), noLeaves, session, noOutbox, results);
        if (tails == null && geometry.endsRow(t)) {
          sink.rowDone(geometry.row(t), runner.bytesIn()); // every frame of it checked: the reader may take it
        }
      }
      coordinator.finish();
      if (tails != null) {
        putTails(awaitTails(tails), cellLayout, firstRow, rows, sink);
      }
      long bytes = runner.bytesIn() + tailBytesIn.sum();
      if (tails != null) {
        for (int r = firstRow; r < firstRow + rows; r++) {
          sink.rowDone(r, bytes);
        }
      }
      if (LOG.isDebugEnabled()) {
        LOG.debug("ec-repair: the repair agents rebuilt {} for this client: {} bytes in {} ms ({} ms to start)", what,
            bytes, (System.nanoTime() - t0) / 1_000_000, (started - t0) / 1_000_000);
      }
      return bytes;
    } catch (IOException | InterruptedException | RuntimeException e) {
      session.cancel(e.toString());
      throw e;
    } finally {
      if (tails != null) {
        tails.cancel(true);
      }
    }
  }

  /** The lost unit's tails of rows [firstRow, firstRow + rows), read from the tail helpers' DataNodes as the fetch path reads. */
  private byte[][] tails(CodeSpec spec, GroupUnits units, GroupLayout layout, int lost, int firstRow, int rows,
                         LongAdder bytesIn) throws IOException, InterruptedException {
    CellRowRepair repair = RepairCatalog.plan(spec, new int[] {lost}, units.available());
    return TailRows.rebuild(repair, RegionCoders.best(), layout.cellSize(), firstRow, rows, u -> {
      LocatedBlock located = units.located(u);
      ExtendedBlock block = new ExtendedBlock(located.getBlock());
      block.setNumBytes(layout.blockLength(u));
      return new BlockRangeReader(new ClientConnector(client, located), node(units, u), block, bytesIn::add);
    }, WAITERS, stallMillis);
  }

  private byte[][] awaitTails(java.util.concurrent.Future<byte[][]> tails) throws IOException, InterruptedException {
    try {
      return tails.get(stallMillis, TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IOException("reading the cells' tails: " + e.getCause(), e.getCause());
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IOException("reading the cells' tails took over " + stallMillis + " ms");
    }
  }

  private static void putTails(byte[][] tails, CellLayout cell, int firstRow, int rows, Sink sink) {
    int tail = cell.tailBytes();
    ByteBuffer src = ByteBuffer.wrap(tails[0]);
    for (int r = 0; r < rows; r++) {
      sink.put(firstRow + r, cell.tailOffset(), src, r * tail, tail);
    }
  }

  /**
   * The token that keys helper {@code unit}'s challenge: one of another block of the group, not
   * sent to that helper (the next helper's, or any other readable unit's when the plan has one helper).
   */
  private static Token<BlockTokenIdentifier> otherToken(GroupUnits units, int unit, List<Integer> helperUnits,
                                                        int index) throws IOException {
    if (helperUnits.size() > 1) {
      return units.located(helperUnits.get((index + 1) % helperUnits.size())).getBlockToken();
    }
    for (int u : units.available()) {
      if (u != unit && units.located(u) != null) {
        return units.located(u).getBlockToken();
      }
    }
    throw new IOException("no other block of the group to key the agent's proof with");
  }

  /** Whether a read leaves {@code agent} out: no connection reached it lately. */
  private static boolean leftOut(InetSocketAddress agent) {
    Long until = UNREACHABLE.get(agent);
    if (until == null) {
      return false;
    }
    if (System.nanoTime() - until < 0) {
      return true;
    }
    UNREACHABLE.remove(agent, until);
    return false;
  }

  /** Forgets every agent that could not be reached (tests that share a JVM). */
  static void forgetUnreachable() {
    UNREACHABLE.clear();
  }

  /** Where a DataNode's repair agent listens: its transfer port plus the offset, at its address as this client reaches it. */
  private InetSocketAddress agent(DatanodeInfo dn) {
    String host = client.getConf().isConnectToDnViaHostname() ? dn.getHostName() : dn.getIpAddr();
    return new InetSocketAddress(host, dn.getXferPort() + portOffset);
  }

  private static java.util.concurrent.ThreadFactory daemon(String prefix) {
    AtomicInteger count = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + "-" + count.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
