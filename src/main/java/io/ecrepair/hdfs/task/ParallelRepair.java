package io.ecrepair.hdfs.task;

import io.ecrepair.exec.NodePart;
import io.ecrepair.exec.PartRunner;
import io.ecrepair.exec.SliceGeometry;
import io.ecrepair.hdfs.agent.AgentChannels;
import io.ecrepair.hdfs.agent.DataNodeConnector;
import io.ecrepair.hdfs.agent.PeerSenders;
import io.ecrepair.hdfs.agent.PlanCoordinator;
import io.ecrepair.hdfs.agent.PlanSession;
import io.ecrepair.hdfs.agent.ReadFaults;
import io.ecrepair.layout.GroupLayout;
import io.ecrepair.plan.Plan;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo.DatanodeInfoBuilder;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.util.DataChecksum;

/**
 * Runs a colored repair plan across the helpers' repair agents (ParaRC's parallel repair, a
 * repair chain, or any coloring) with this DataNode as the requestor and coordinator: it maps every node of
 * the plan to the DataNode holding that internal block, sends each helper its part
 * ({@link PlanPartRequest}, with a token for its block), waits until all are ready, runs its
 * own part (receiving the repaired sub-chunks, and whatever the plan computes here) and writes
 * the lost block row by row as its rows complete. A helper that fails, stalls or sends a bad
 * frame ends the run: the rows written stay written and the caller finishes the rest centrally.
 */
final class ParallelRepair {

  /**
   * Rows written, their bytes, per plan node {bytes received, bytes sent, bytes read from its
   * own replica} (complete only for a run that did not stop early), and why it stopped early
   * (null if it did not).
   */
  record Outcome(int rows, long bytes, Map<Integer, long[]> traffic, long runNanos, long writeNanos, String failure) {}

  private static final SecureRandom RANDOM = new SecureRandom();

  private final ReconstructionContext ctx;
  private final RebuildGroup group;
  private final Sources sources;
  private final TargetSet targets;
  private final DataNodeConnector connector;

  ParallelRepair(ReconstructionContext ctx, RebuildGroup group, Sources sources, TargetSet targets,
                 DataNodeConnector connector) {
    this.ctx = ctx;
    this.group = group;
    this.sources = sources;
    this.targets = targets;
    this.connector = connector;
  }

  /**
   * Rebuilds rows 0..rows-1 of the group's lost blocks with {@code plan}, whose requestor (this
   * DataNode) is one of them and receives them all, into the targets (target i for the group's
   * {@code lost(i)}), every value cut into pieces of {@code pieceBytes}.
   * The plan's graph covers a cell row of the whole cell size: a vector code's rows must be
   * full stripes; a scalar code's may be shorter (helpers' bytes past their ends are zeros). A
   * target whose write fails is given up, as the central path does; the run stops when none is left. Where the sub-chunks do not fill a cell, {@code tails[i]}
   * holds the rest of each row of target i's block, rebuilt beforehand ({@link io.ecrepair.hdfs.TailRows}).
   */
  Outcome run(Plan plan, Map<Integer, NodePart> parts, int rows, int pieceBytes, byte[][] tails) throws IOException {
    GroupLayout layout = group.layout();
    int[] lost = group.lost();
    int requestor = plan.problem().requestor();
    int cellSize = layout.cellSize();
    int alpha = plan.graph().subchunkCount();
    SliceGeometry geometry = new SliceGeometry(0, rows, cellSize / alpha, pieceBytes);
    long hi = RANDOM.nextLong();
    long lo = RANDOM.nextLong();
    String name = "repair " + Long.toHexString(lo) + " of " + group;
    NodePart mine = parts.get(requestor);
    long expected = (long) mine.valuesIn() * geometry.subchunkBytes() * rows;
    DatanodeInfo self = new DatanodeInfoBuilder().setNodeID(ctx.datanode().getDatanodeId()).build();
    InetSocketAddress ownAgent = ctx.agentAddress(self);
    ExtendedBlock own = group.block(requestor);
    PlanSession session = null;
    PlanCoordinator coordinator = null;
    PeerSenders senders = null;
    PartRunner runner = null;
    int rowsDone = 0;
    long written = 0;
    long runNanos = 0;
    long writeNanos = 0;
    Map<Integer, long[]> traffic = new TreeMap<>();
    try {
      Map<Integer, PlanCoordinator.Helper> helpers = new TreeMap<>();
      // A scalar code's helpers need bytes up to the longest lost block; a vector code's, the
      // whole cells of the rows rebuilt (a helper may hold a row more than the lost blocks).
      long need = alpha == 1 ? layout.longestBlock(lost) : (long) rows * cellSize;
      for (int node : parts.keySet()) {
        if (node != requestor) {
          helpers.put(node, helper(node, sources.first(node), need));
        }
      }
      Map<Integer, String> senderIds = new TreeMap<>();
      mine.inbound().forEach(g -> senderIds.put(g.peer(), helpers.get(g.peer()).datanodeId()));
      session = new PlanSession(name, mine, own, senderIds, geometry.pieceBytes(), ctx.stallMillis(), ctx.inbound(),
          expected, ctx.frames(), ctx.budget());
      ctx.sessions().register(hi, lo, session);
      ReadFaults.sessionOpened(ctx.name(), hi, lo, mine, geometry, senderIds);
      coordinator = new PlanCoordinator(name, hi, lo, parts, requestor, helpers, ownAgent,
          ctx.datanode().getDatanodeUuid(), geometry, cellSize, ctx.stallMillis(),
          ctx.datanode().getDnConf().getSocketTimeout(), ctx.readPool(), session);
      // Every helper gets its part and says it is ready before anyone sends a value.
      DataChecksum groupChecksum = coordinator.start(); // the helpers' replicas' (they share one)
      if (!mine.outbound().isEmpty()) {
        Map<Integer, PeerSenders.Receiver> receivers = new TreeMap<>();
        helpers.forEach((node, h) -> receivers.put(node, new PeerSenders.Receiver(h.agent(), h.datanodeId())));
        senders = new PeerSenders(name, ctx.name(), hi, lo, mine, geometry.pieceBytes(), ctx.stallMillis(),
            ctx.readPool(), ctx.frames(), ctx.budget());
        senders.open(receivers, AgentChannels.dialer(ctx.datanode(), own, connector.token(own)),
            ctx.datanode().getDnConf().getSocketTimeout());
      }
      runner = new PartRunner(mine, ctx.coder(), geometry.pieceBytes(), ctx.buffers());
      // One row buffer per lost block, in the targets' order.
      byte[][] row = new byte[lost.length][cellSize];
      int[] rowOf = new int[layout.totalUnits()];
      Arrays.fill(rowOf, -1);
      for (int i = 0; i < lost.length; i++) {
        rowOf[lost[i]] = i;
      }
      int s = geometry.subchunkBytes();
      PartRunner.Results results = (t, r, src, off, len) -> src.get(off, row[rowOf[r.block()]],
          r.subchunk() * s + geometry.offset(t), len);
      PartRunner.Leaves noLeaves = (t, subs, dst, len) -> {
        throw new IOException("the requestor holds no block of the group");
      };
      PartRunner.Outbox outbox = senders != null ? senders : (t, g, src, off, len) -> {
        throw new IOException("the plan sends nothing from the requestor");
      };
      DataChecksum rebuiltChecksum = groupChecksum != null ? groupChecksum : ctx.defaultChecksum();
      java.util.function.Supplier<DataChecksum> checksum = () -> rebuiltChecksum;
      for (int t = 0; t < geometry.count(); t++) {
        long t0 = System.nanoTime();
        runner.runSlice(t, geometry.length(t), noLeaves, session, outbox, results);
        long t1 = System.nanoTime();
        runNanos += t1 - t0;
        if (geometry.endsRow(t)) {
          int tail = cellSize - alpha * geometry.subchunkBytes();
          for (int i = 0; i < lost.length; i++) {
            if (tail > 0) {
              System.arraycopy(tails[i], geometry.row(t) * tail, row[i], cellSize - tail, tail);
            }
            written += targets.write(i, ByteBuffer.wrap(row[i]), layout.cellLength(geometry.row(t), lost[i]), checksum,
                ctx.budget());
          }
          rowsDone++;
          writeNanos += System.nanoTime() - t1;
        }
      }
      if (senders != null) {
        senders.finish(); // our ends first: a peer may be waiting for them before it sends its own
      }
      traffic.putAll(coordinator.finish());
      traffic.put(requestor, new long[] {runner.bytesIn(), runner.bytesOut(), 0});
      return new Outcome(rowsDone, written, traffic, runNanos, writeNanos, null);
    } catch (IOException | InterruptedException | RuntimeException e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      if (session != null) {
        session.cancel(e.toString());
      }
      return new Outcome(rowsDone, written, traffic, runNanos, writeNanos, e.toString());
    } finally {
      if (session != null) {
        ctx.sessions().remove(hi, lo);
        session.cancel("finished");
      }
      if (senders != null) {
        senders.close();
      }
      if (coordinator != null) {
        coordinator.close();
      }
      if (runner != null) {
        runner.close(); // only this thread wrote into its buffers
      }
    }
  }

  /**
   * Helper {@code unit} on DataNode {@code source}: its block, a token minted for it, and a
   * challenge about it.
   *
   * @param need the helper's bytes the repair needs are below this block offset: a scalar
   *     code's lost byte j of a row depends on byte j of the helpers' cells alone
   */
  private PlanCoordinator.Helper helper(int unit, DatanodeInfo source, long need) throws IOException {
    ExtendedBlock block = group.block(unit);
    Token<BlockTokenIdentifier> token = connector.token(block);
    return new PlanCoordinator.Helper(block, token, Math.min(need, block.getNumBytes()), ctx.agentAddress(source),
        source.getDatanodeUuid(), connector.challenge(block), AgentChannels.dialer(ctx.datanode(), block, token));
  }
}
