package io.ecrepair.hdfs.agent;

import io.ecrepair.exec.NodePart;
import io.ecrepair.exec.SliceGeometry;
import io.ecrepair.hdfs.transfer.WireChecksums;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.util.DataChecksum;

/**
 * The requestor's side of the control connections of one distributed repair, wherever the
 * requestor runs: a rebuilding DataNode, or a client reading a lost block. It sends every
 * helper's agent its part ({@link PlanPartRequest}, with a token for the helper's block),
 * checks that each proves it is its DataNode's agent ({@link AgentProof}) and is ready, says GO,
 * and then waits for each helper's closing answer. A requestor with an agent of its own
 * receives its values there; one without (a client) gets them back over these connections,
 * read into its {@link PlanSession} like any value stream. The requestor's own part runs on
 * the caller's {@link io.ecrepair.exec.PartRunner}.
 */
public final class PlanCoordinator implements Closeable {
  /**
   * A helper of the plan: its internal block (length set) and a token to read it, how far its
   * part reads, its agent and DataNode id, the challenge it must answer, and how to dial it.
   */
  public record Helper(ExtendedBlock block, Token<BlockTokenIdentifier> token, long readLimit,
                       InetSocketAddress agent, String datanodeId, AgentProof.Challenge challenge,
                       AgentChannels.Dialer dialer) {}

  /** A sent part: its connection and the buffered streams every later answer is read from. */
  private record Sent(AgentChannels.Channel channel, DataInputStream in, DataOutputStream out) {}

  private final String name;
  private final long hi;
  private final long lo;
  private final Map<Integer, NodePart> parts;
  private final int requestor;
  private final Map<Integer, Helper> helpers;
  private final InetSocketAddress requestorAgent;
  private final String requestorId;
  private final SliceGeometry geometry;
  private final int cellSize;
  private final long stallMillis;
  private final int connectTimeoutMs;
  private final ExecutorService pool;
  private final PlanSession session;
  private final Map<Integer, Sent> controls = new TreeMap<>();
  private final Map<Integer, CompletableFuture<long[]>> done = new TreeMap<>();

  /**
   * @param requestorAgent where the requestor's agent listens, or null when it has none (a
   *     client): the helpers then send its values back over their control connections
   * @param requestorId the requestor's DataNode id (UUID), which its agent proves; null for a client
   * @param session the requestor part's inbox (the caller registers it with its agent, if any)
   */
  public PlanCoordinator(String name, long sessionHi, long sessionLo, Map<Integer, NodePart> parts, int requestor,
                         Map<Integer, Helper> helpers, InetSocketAddress requestorAgent, String requestorId,
                         SliceGeometry geometry, int cellSize, long stallMillis, int connectTimeoutMs,
                         ExecutorService pool, PlanSession session) {
    this.name = name;
    this.hi = sessionHi;
    this.lo = sessionLo;
    this.parts = parts;
    this.requestor = requestor;
    this.helpers = helpers;
    this.requestorAgent = requestorAgent;
    this.requestorId = requestorId;
    this.geometry = geometry;
    this.cellSize = cellSize;
    this.stallMillis = stallMillis;
    this.connectTimeoutMs = connectTimeoutMs;
    this.pool = pool;
    this.session = session;
  }

  /**
   * Node {@code node} as a part names it: its agent and DataNode, or, for a requestor without an
   * agent, the control connection its values go back over.
   */
  private PlanPartRequest.Peer peer(int node) {
    InetSocketAddress a = node == requestor ? requestorAgent : helpers.get(node).agent();
    String id = node == requestor ? requestorId : helpers.get(node).datanodeId();
    return a == null ? PlanPartRequest.Peer.CONTROL : new PlanPartRequest.Peer(a.getHostString(), a.getPort(), id);
  }

  /**
   * Sends every helper its part; once each proved itself and said READY, says GO to all.
   * Returns the checksum the helpers' replicas are stored with (they share one).
   */
  public DataChecksum start() throws IOException {
    // All at once: each dial and handshake waits on the network and the helper, not on the others.
    Map<Integer, CompletableFuture<Sent>> sending = new TreeMap<>();
    for (Map.Entry<Integer, NodePart> e : parts.entrySet()) {
      if (e.getKey() != requestor) {
        sending.put(e.getKey(), CompletableFuture.supplyAsync(() -> {
          try {
            return send(e.getKey(), e.getValue());
          } catch (IOException x) {
            throw new java.io.UncheckedIOException(x);
          }
        }, pool));
      }
    }
    IOException failed = null;
    for (Map.Entry<Integer, CompletableFuture<Sent>> e : sending.entrySet()) {
      try {
        controls.put(e.getKey(), e.getValue().get());
      } catch (ExecutionException x) {
        Throwable cause = x.getCause() instanceof java.io.UncheckedIOException u ? u.getCause() : x.getCause();
        if (failed == null) {
          failed = cause instanceof IOException io ? io : new IOException(cause);
        } else {
          failed.addSuppressed(cause); // every helper that failed, e.g. each agent that could not be reached
        }
      } catch (InterruptedException x) {
        Thread.currentThread().interrupt();
        failed = failed != null ? failed : new java.io.InterruptedIOException("interrupted sending the parts of " + name);
      }
    }
    if (failed != null) {
      throw failed; // close() ends the connections that were made
    }
    DataChecksum stored = null;
    for (Map.Entry<Integer, Sent> c : controls.entrySet()) {
      int node = c.getKey();
      DataInputStream in = c.getValue().in();
      helpers.get(node).challenge().expect(in, helpers.get(node).datanodeId(), "node " + node + "'s repair agent",
          PlanPartRequest.ERROR, AgentProof.Purpose.SERVE);
      c.getValue().channel().trust();
      int status = in.readInt();
      if (status != PlanPartRequest.READY) {
        throw new IOException("node " + node + " refused its part: "
            + (status == PlanPartRequest.ERROR ? in.readUTF() : "answer " + status));
      }
      DataChecksum replica = WireChecksums.of(in.readByte(), in.readInt(), "node " + node + "'s replica");
      if (stored == null) {
        stored = replica;
      }
    }
    for (Map.Entry<Integer, Sent> c : controls.entrySet()) {
      Sent sent = c.getValue();
      sent.out().writeInt(PlanPartRequest.GO);
      sent.out().flush();
      sent.channel().readTimeout(0); // the session's stall limits apply from here
      int node = c.getKey();
      done.put(node, CompletableFuture.supplyAsync(() -> awaitDone(node, sent), pool));
    }
    return stored;
  }

  private Sent send(int node, NodePart part) throws IOException {
    Helper h = helpers.get(node);
    Map<Integer, PlanPartRequest.Peer> peers = new TreeMap<>();
    for (NodePart.Group g : part.outbound()) {
      peers.put(g.peer(), peer(g.peer()));
    }
    for (NodePart.Group g : part.inbound()) {
      peers.put(g.peer(), peer(g.peer()));
    }
    PlanPartRequest req = new PlanPartRequest(hi, lo, h.block(), h.token(), h.readLimit(), cellSize,
        geometry.subchunkBytes(), geometry.firstRow(), geometry.rows(), geometry.pieceBytes(), part, peers,
        requestorAgent == null);
    AgentChannels.Channel c = null;
    try {
      c = h.dialer().dial(h.agent(), connectTimeoutMs, (int) stallMillis, 0);
      DataOutputStream out = new DataOutputStream(new BufferedOutputStream(c.out(), 64 * 1024));
      req.write(out, h.challenge(), h.datanodeId());
      out.flush();
      return new Sent(c, new DataInputStream(new BufferedInputStream(c.in(), 64 * 1024)), out);
    } catch (IOException e) {
      if (c != null) {
        c.close();
      }
      throw new IOException("cannot send node " + node + " (" + h.agent() + ") its part: " + e, e);
    }
  }

  /**
   * A helper's values for a requestor without an agent (read into the session first), then its
   * closing answer: {bytes in, bytes out, bytes read}; a failure cancels the requestor's part at once.
   */
  private long[] awaitDone(int node, Sent sent) {
    try {
      if (requestorAgent == null && parts.get(node).outbound().stream().anyMatch(g -> g.peer() == requestor)) {
        session.attach(node, sent.channel().socket(), sent.in());
      }
      int status = sent.in().readInt();
      if (status == PlanPartRequest.DONE) {
        return new long[] {sent.in().readLong(), sent.in().readLong(), sent.in().readLong()};
      }
      String why = status == PlanPartRequest.ERROR ? sent.in().readUTF() : "answer " + status;
      session.cancel("node " + node + " failed: " + why);
      throw new IllegalStateException("node " + node + " failed: " + why);
    } catch (IOException e) {
      session.cancel("node " + node + " went away: " + e);
      throw new IllegalStateException("node " + node + " went away: " + e, e);
    }
  }

  /**
   * After the requestor's part ran to its end: every stream to it must have ended, and every
   * helper said DONE. Returns per helper {bytes received, bytes sent, bytes read from its replica}.
   */
  public Map<Integer, long[]> finish() throws IOException, InterruptedException {
    session.awaitEnds();
    Map<Integer, long[]> traffic = new TreeMap<>();
    for (Map.Entry<Integer, CompletableFuture<long[]>> d : done.entrySet()) {
      try {
        traffic.put(d.getKey(), d.getValue().get(stallMillis, TimeUnit.MILLISECONDS));
      } catch (ExecutionException e) {
        throw new IOException(String.valueOf(e.getCause().getMessage()), e.getCause());
      } catch (TimeoutException e) {
        throw new IOException("node " + d.getKey() + " did not finish its part of " + name + " within "
            + stallMillis + " ms");
      }
    }
    return traffic;
  }

  /** Ends the repair: the session is cancelled and every control connection closed (helpers cancel their parts). */
  @Override
  public void close() {
    session.cancel("finished");
    controls.values().forEach(s -> s.channel().close());
  }
}
