package io.ecrepair.hdfs.agent;

import io.ecrepair.exec.PartRunner;
import io.ecrepair.exec.SliceGeometry;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.EnumSet;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo.DatanodeInfoBuilder;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.util.DataChecksum;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A helper's side of a distributed repair, on its repair agent: takes its {@link
 * PlanPartRequest} (after the caller checked the block token), registers the session that
 * receives other nodes' values, answers READY, and on GO runs its part slice by slice with
 * {@link PartRunner}: its own sub-chunks from its replica, values from the other agents,
 * values out to the agents that need them; values for a requester that listens nowhere (a
 * client) go back over the control connection, as frames ending with an end mark. It ends
 * with DONE and the bytes it moved, or ERROR and why (only the closed connection when frames
 * were going back over it); the coordinator closing the control connection cancels it.
 */
final class PlanParticipant {
  private static final Logger LOG = LoggerFactory.getLogger(PlanParticipant.class);

  private final AgentContext ctx;
  /** A part's inbound bytes counted in the DataNode's load at most (a requester chooses the numbers). */
  static final long MAX_EXPECTED = 64L << 30;
  private final LocalRangeServer files;
  private final AtomicLong inbound;
  private final ExecutorService threads;
  private final ExecutorService repairThreads;
  private final ExecutorService repairPartThreads;
  private final ScheduledExecutorService alarms;

  /**
   * @param threads the agent's own bounded threads where clients' parts hand their reads, streams
   *     and watchers
   * @param repairThreads where repairs' parts run, and {@code repairPartThreads} where they hand
   *     work, both at repair's CPU priority ({@code RepairNice#pool})
   * @param alarms what ends a part at its time limit
   */
  PlanParticipant(AgentContext ctx, LocalRangeServer files, AtomicLong inbound, ExecutorService threads,
                  ExecutorService repairThreads, ExecutorService repairPartThreads, ScheduledExecutorService alarms) {
    this.ctx = ctx;
    this.files = files;
    this.inbound = inbound;
    this.threads = threads;
    this.repairThreads = repairThreads;
    this.repairPartThreads = repairPartThreads;
    this.alarms = alarms;
  }

  /**
   * Runs {@code req} (its token, bounds and memory checked by the caller) with {@code control}
   * its request's connection: READY, GO, the part slice by slice, DONE. Its hops go only where
   * {@code hops} allows, and it ends after the agent's time limit for a part whatever its
   * requester and peers do. A client's part ({@code client}: the agent's own judgement, not only
   * the request's word) is foreground, never metered or marked as repair. Returns whether the part
   * ran (false: its session id was taken here).
   */
  boolean serve(PlanPartRequest req, boolean client, AgentChannels.Channel control, DataInputStream in, DataOutputStream out,
                HopRule hops) throws IOException {
    io.ecrepair.hdfs.transfer.RepairBudget budget = client ? io.ecrepair.hdfs.transfer.RepairBudget.UNLIMITED
        : ctx.budget();
    // A repair's part runs at repair's CPU priority, and so does every thread it hands work to.
    ExecutorService partThreads = client ? threads : repairPartThreads;
    return budget.nice().call(repairThreads, () -> run(req, budget, partThreads, control, in, out, hops));
  }

  private boolean run(PlanPartRequest req, io.ecrepair.hdfs.transfer.RepairBudget budget, ExecutorService partThreads,
                      AgentChannels.Channel control, DataInputStream in, DataOutputStream out, HopRule hops)
      throws IOException {
    long maxMillis = ctx.limits().partMillis();
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(maxMillis);
    String name = "part " + req.part().node() + " of repair " + Long.toHexString(req.sessionLo()) + " on "
        + ctx.name();
    SliceGeometry geometry = new SliceGeometry(req.firstRow(), req.rows(), req.subchunkBytes(), req.pieceBytes());
    // What this part will receive, for the load it reports; no more than a part can take in.
    long expected = Math.min(MAX_EXPECTED, (long) req.part().valuesIn() * req.subchunkBytes() * req.rows());
    Map<Integer, String> senderIds = new TreeMap<>();
    req.part().inbound().forEach(g -> senderIds.put(g.peer(), req.peers().get(g.peer()).datanodeId()));
    budget.mark(control.socket());
    PlanSession session = new PlanSession(name, req.part(), req.block(), senderIds, geometry.pieceBytes(),
        ctx.stallMillis(), inbound, expected, ctx.frames(), budget);
    PlanSessions sessions = ctx.sessions();
    try {
      sessions.register(req.sessionHi(), req.sessionLo(), session);
    } catch (IllegalStateException taken) {
      session.cancel("a session of that id runs"); // gives back the load it counted
      out.writeInt(PlanPartRequest.ERROR);
      out.writeUTF("a repair session of that id already runs here");
      out.flush();
      return false;
    }
    ReadFaults.sessionOpened(ctx.name(), req.sessionHi(), req.sessionLo(), req.part(), geometry, senderIds);
    // At its time limit the part ends, however it is blocked: its session fails, its connections close.
    AtomicReference<PeerSenders> opened = new AtomicReference<>();
    ScheduledFuture<?> alarm = alarms.schedule(() -> {
      session.cancel("it ran past its " + maxMillis / 1000 + " s");
      control.close();
      PeerSenders s = opened.get();
      if (s != null) {
        s.close();
      }
    }, maxMillis, TimeUnit.MILLISECONDS);
    PeerSenders senders = null;
    int controlPeer = -1;
    LeafRows leaves = null;
    PartRunner runner = null;
    try {
      // With READY, the checksum its replica is stored with: the coordinator writes the rebuilt
      // blocks with the group's own checksum, not its DataNode's default.
      DataChecksum stored = files.checksumOf(req.block());
      out.writeInt(PlanPartRequest.READY);
      out.writeByte(stored.getChecksumType().id);
      out.writeInt(stored.getBytesPerChecksum());
      out.flush();
      int go = in.readInt();
      if (go != PlanPartRequest.GO) {
        throw new IOException("the coordinator sent " + go + " instead of GO");
      }
      // The control connection keeps a timeout: the part's time left.
      control.readTimeout(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
      partThreads.submit(() -> watch(in, session, maxMillis));
      Map<Integer, PeerSenders.Receiver> receivers = new TreeMap<>();
      for (Map.Entry<Integer, PlanPartRequest.Peer> p : req.peers().entrySet()) {
        PlanPartRequest.Peer peer = p.getValue();
        if (peer.control()) {
          controlPeer = p.getKey();
        } else {
          receivers.put(p.getKey(), new PeerSenders.Receiver(hops.check(peer.host(), peer.port()), peer.datanodeId()));
        }
      }
      DataNode dn = ctx.datanode();
      // Hops are dialled as this DataNode, with a token of its own: a requester's token would let
      // whatever it pointed a hop at complete the handshake.
      Token<BlockTokenIdentifier> own = dn.getBlockAccessToken(req.block(),
          EnumSet.of(BlockTokenIdentifier.AccessMode.READ), StorageType.EMPTY_ARRAY, new String[0]);
      senders = new PeerSenders(name, ctx.name(), req.sessionHi(), req.sessionLo(), req.part(), geometry.pieceBytes(),
          controlPeer, out, ctx.stallMillis(), partThreads, ctx.frames(), budget);
      opened.set(senders);
      // Each hop must answer within a stall: an agent answers in milliseconds, whatever a requester named does not.
      senders.open(receivers, AgentChannels.dialer(dn, req.block(), own),
          (int) Math.min(dn.getDnConf().getSocketTimeout(), ctx.stallMillis()));
      DatanodeInfo self = new DatanodeInfoBuilder().setNodeID(dn.getDatanodeId()).build();
      long[] read = {0};
      LocalRangeSource local = new LocalRangeSource(files, self, req.block(), bytes -> read[0] += bytes,
          corrupt -> ctx.reportCorrupt(corrupt, self));
      leaves = new LeafRows(local, req.part().leafSubchunks(), req.part().alpha(), geometry, req.cellSize(),
          req.readLimit(), ctx.stallMillis(), ctx.buffers());
      leaves.start(partThreads);
      runner = new PartRunner(req.part(), ctx.coder(), geometry.pieceBytes(), ctx.buffers());
      PartRunner.Results none = (t, r, src, off, len) -> {
        throw new IOException("a helper's part holds no repaired sub-chunk");
      };
      for (int t = 0; t < geometry.count(); t++) {
        if (session.cancelled() != null) {
          throw new IOException(name + " was cancelled: " + session.cancelled());
        }
        if (System.nanoTime() - deadline > 0) {
          throw new IOException(name + " ran past its " + maxMillis / 1000 + " s");
        }
        runner.runSlice(t, geometry.length(t), leaves, session, senders, none);
      }
      senders.finish(); // our ends first: a peer may be waiting for them before it sends its own
      session.awaitEnds();
      out.writeInt(PlanPartRequest.DONE);
      out.writeLong(runner.bytesIn());
      out.writeLong(runner.bytesOut());
      out.writeLong(read[0]);
      out.flush();
      return true;
    } catch (IOException | InterruptedException | RuntimeException e) {
      LOG.warn("ec-repair: {} failed: {}", name, e.toString());
      session.cancel(e.toString());
      if (controlPeer >= 0) {
        return true; // a writer may still be in the middle of a frame on the control connection: closing it says enough
      }
      try {
        out.writeInt(PlanPartRequest.ERROR);
        out.writeUTF(AgentGate.publicReason(e, name + " failed"));
        out.flush();
      } catch (IOException ignored) {
        // the coordinator is gone
      }
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      return true;
    } finally {
      alarm.cancel(false);
      sessions.remove(req.sessionHi(), req.sessionLo(), session);
      session.cancel("finished");
      if (senders != null) {
        senders.close();
      }
      // Threads that could still write into the buffers are stopped first.
      boolean stopped = leaves == null || leaves.close();
      if (runner != null && stopped) {
        runner.close();
      }
    }
  }

  /**
   * The coordinator closing the control connection (or sending anything) cancels the part, and
   * so does its time limit running out (the connection's timeout).
   */
  private void watch(DataInputStream in, PlanSession session, long maxMillis) {
    String why = "the coordinator ended the repair";
    try {
      in.read();
    } catch (java.net.SocketTimeoutException e) {
      why = "it ran past its " + maxMillis / 1000 + " s";
    } catch (IOException e) {
      // closed
    }
    session.cancel(why);
  }
}
