package io.ecrepair.hdfs.agent;

import io.ecrepair.exec.PartRunner;
import io.ecrepair.exec.SliceGeometry;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo.DatanodeInfoBuilder;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
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

  PlanParticipant(AgentContext ctx, LocalRangeServer files, AtomicLong inbound) {
    this.ctx = ctx;
    this.files = files;
    this.inbound = inbound;
  }

  void serve(PlanPartRequest req, Socket control, DataInputStream in, DataOutputStream out) throws IOException {
    String name = "part " + req.part().node() + " of repair " + Long.toHexString(req.sessionLo()) + " on "
        + ctx.name();
    SliceGeometry geometry = new SliceGeometry(req.firstRow(), req.rows(), req.subchunkBytes(), req.pieceBytes());
    // What this part will receive, for the load it reports; no more than a part can take in.
    long expected = Math.min(MAX_EXPECTED, (long) req.part().valuesIn() * req.subchunkBytes() * req.rows());
    PlanSession session = new PlanSession(name, req.part(), geometry.pieceBytes(), ctx.stallMillis(), inbound,
        expected, ctx.frames());
    PlanSessions sessions = ctx.sessions();
    try {
      sessions.register(req.sessionHi(), req.sessionLo(), session);
    } catch (IllegalStateException taken) {
      session.cancel("a session of that id runs"); // gives back the load it counted
      throw new IOException("a repair session of that id already runs here");
    }
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
      control.setSoTimeout(0);
      ctx.readPool().submit(() -> watch(in, session));
      Map<Integer, InetSocketAddress> agents = new TreeMap<>();
      for (Map.Entry<Integer, PlanPartRequest.Peer> p : req.peers().entrySet()) {
        if (p.getValue().control()) {
          controlPeer = p.getKey();
        } else {
          agents.put(p.getKey(), p.getValue().address());
        }
      }
      DataNode dn = ctx.datanode();
      senders = new PeerSenders(name, ctx.name(), req.sessionHi(), req.sessionLo(), req.part(), agents, controlPeer,
          out, AgentChannels.dialer(dn, req.block(), req.token()), dn.getDnConf().getSocketTimeout(),
          ctx.stallMillis(), ctx.readPool(), ctx.frames());
      DatanodeInfo self = new DatanodeInfoBuilder().setNodeID(dn.getDatanodeId()).build();
      long[] read = {0};
      LocalRangeSource local = new LocalRangeSource(files, self, req.block(), bytes -> read[0] += bytes,
          corrupt -> ctx.reportCorrupt(corrupt, self));
      leaves = new LeafRows(local, req.part().leafSubchunks(), req.part().alpha(), geometry, req.cellSize(),
          req.readLimit(), ctx.stallMillis(), ctx.buffers()).start(ctx.readPool());
      runner = new PartRunner(req.part(), ctx.coder(), geometry.pieceBytes(), ctx.buffers());
      PartRunner.Results none = (t, r, src, off, len) -> {
        throw new IOException("a helper's part holds no repaired sub-chunk");
      };
      for (int t = 0; t < geometry.count(); t++) {
        runner.runSlice(t, geometry.length(t), leaves, session, senders, none);
      }
      senders.finish(); // our ends first: a peer may be waiting for them before it sends its own
      session.awaitEnds();
      out.writeInt(PlanPartRequest.DONE);
      out.writeLong(runner.bytesIn());
      out.writeLong(runner.bytesOut());
      out.writeLong(read[0]);
      out.flush();
    } catch (IOException | InterruptedException | RuntimeException e) {
      LOG.warn("ec-repair: {} failed: {}", name, e.toString());
      session.cancel(e.toString());
      if (controlPeer >= 0) {
        return; // a writer may still be in the middle of a frame on the control connection: closing it says enough
      }
      try {
        out.writeInt(PlanPartRequest.ERROR);
        out.writeUTF(RepairAgent.publicReason(e, name + " failed"));
        out.flush();
      } catch (IOException ignored) {
        // the coordinator is gone
      }
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
    } finally {
      sessions.remove(req.sessionHi(), req.sessionLo());
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

  /** The coordinator closing the control connection (or sending anything) cancels the part. */
  private void watch(DataInputStream in, PlanSession session) {
    try {
      in.read();
    } catch (IOException e) {
      // closed
    }
    session.cancel("the coordinator ended the repair");
  }
}
