package io.ecrepair.hdfs.agent;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.EcRepairDataNodeAccess;
import org.apache.hadoop.io.IOUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DataNode's repair agent. It serves, per connection, one of: a helper's part of a
 * distributed repair ({@link PlanPartRequest}, run by {@link PlanParticipant}: a ParaRC plan's
 * part, or a hop of a repair chain), a stream of values for a part running here
 * ({@link PlanFrames}), a helper's many byte ranges for a central repair done elsewhere in one
 * request ({@link RangeRequest}, {@link LocalRangeServer}), or a load probe (the bytes its
 * repairs still expect to receive). Parts and ranges are served only after the request's block
 * access token for this DataNode's block checked out.
 *
 * <p>Off unless {@code ecrepair.datanode.agent.port-offset} is set. Its connections are
 * protected as the DataNode's own data transfer is ({@link AgentChannels}).
 */
public final class RepairAgent implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(RepairAgent.class);
  /** Connections served at once; one more is refused. */
  static final int MAX_CONNECTIONS = 256;
  /** An idle handler thread ends after this; a burst of requests leaves no threads behind for long. */
  static final int HANDLER_KEEP_ALIVE_SECONDS = 10;
  private final AgentContext ctx;
  private final ServerSocket server;
  private final ExecutorService handlers;
  private final LongAdder rangeRequestsServed = new LongAdder();
  private final LocalRangeServer ranges;
  private final PlanParticipant participant;
  private final LongAdder partsServed = new LongAdder();
  private final AtomicInteger serving = new AtomicInteger();
  private final java.util.concurrent.Semaphore clientParts;
  private final LongAdder clientPartsRefused = new LongAdder();
  private final LoadIntents intents = new LoadIntents();
  private volatile boolean closed;
  private Thread acceptor;

  private RepairAgent(AgentContext ctx, ServerSocket server) {
    this.ctx = ctx;
    this.server = server;
    this.ranges = new LocalRangeServer(ctx.datanode());
    this.participant = new PlanParticipant(ctx, ranges, ctx.inbound());
    this.clientParts = new java.util.concurrent.Semaphore(ctx.clientPartsLimit());
    AtomicInteger threads = new AtomicInteger();
    this.handlers = new ThreadPoolExecutor(0, MAX_CONNECTIONS, HANDLER_KEEP_ALIVE_SECONDS, TimeUnit.SECONDS,
        new SynchronousQueue<>(), r -> {
          Thread t = new Thread(r, "ec-repair-agent-" + ctx.name() + "-" + threads.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
  }

  /**
   * Why this cluster cannot use the agent (null when it can). Agents protect their connections
   * as the DataNode's data transfer does (SASL, encryption); the one setup they cannot match is a
   * Kerberos cluster whose DataNodes secure data transfer by listening on privileged ports
   * instead: an agent cannot bind one after the DataNode dropped root, so it stays off there.
   */
  public static String unsupportedBecause(org.apache.hadoop.conf.Configuration conf) {
    boolean encrypted = conf.getBoolean(DFSConfigKeys.DFS_ENCRYPT_DATA_TRANSFER_KEY, false);
    boolean sasl = !conf.getTrimmed(DFSConfigKeys.DFS_DATA_TRANSFER_PROTECTION_KEY, "").isEmpty();
    if (org.apache.hadoop.security.UserGroupInformation.isSecurityEnabled() && !encrypted && !sasl) {
      return "this Kerberos cluster secures data transfer with privileged ports, which a repair agent cannot "
          + "listen on; set " + DFSConfigKeys.DFS_DATA_TRANSFER_PROTECTION_KEY + " (SASL) to use the agents";
    }
    return null;
  }

  /** Listens on {@code address}:{@code port} and serves chains until {@link #close}. */
  public static RepairAgent start(AgentContext ctx, InetAddress address, int port) throws IOException {
    ServerSocket s = new ServerSocket();
    try {
      s.setReuseAddress(true);
      if (ctx.helperReceiveBufferBytes() > 0) {
        // Accepted streams inherit it: a part that many agents send to (a ParaRC plan's computing
        // helper, the requestor) must not let their bursts overflow its switch port (incast).
        s.setReceiveBufferSize(ctx.helperReceiveBufferBytes());
      }
      s.bind(new InetSocketAddress(address, port), 128);
    } catch (IOException e) {
      s.close();
      throw new IOException("cannot listen on " + address.getHostAddress() + ":" + port + ": " + e.getMessage(), e);
    }
    RepairAgent agent = new RepairAgent(ctx, s);
    agent.acceptor = new Thread(agent::acceptLoop, "ec-repair-agent-accept-" + ctx.name());
    agent.acceptor.setDaemon(true);
    agent.acceptor.start();
    return agent;
  }

  public int port() {
    return server.getLocalPort();
  }

  public long partsServed() {
    return partsServed.sum();
  }

  public long rangeRequestsServed() {
    return rangeRequestsServed.sum();
  }

  /** Parts of clients' reads refused at the limit ({@code ecrepair.datanode.agent.client-parts}). */
  public long clientPartsRefused() {
    return clientPartsRefused.sum();
  }

  /**
   * Whether a part is a client's degraded read: its request says so, or, with block tokens, its
   * token was issued to another user than this DataNode's own (DataNodes mint theirs as
   * themselves, so a client's request cannot pass for a DataNode's by leaving the flag out).
   */
  static boolean forClient(PlanPartRequest req, DataNode datanode) throws IOException {
    if (req.forClient() || !EcRepairDataNodeAccess.blockTokensEnforced(datanode)) {
      return req.forClient();
    }
    BlockTokenIdentifier id = new BlockTokenIdentifier();
    id.readFields(new DataInputStream(new java.io.ByteArrayInputStream(req.token().getIdentifier())));
    String own = org.apache.hadoop.security.UserGroupInformation.getLoginUser().getShortUserName();
    return id.getUserId() != null && !id.getUserId().equals(own);
  }

  /** Connections being served right now. */
  public int connectionsServing() {
    return serving.get();
  }

  private void acceptLoop() {
    while (!closed) {
      try {
        Socket s = server.accept();
        try {
          handlers.execute(() -> serve(s));
        } catch (java.util.concurrent.RejectedExecutionException full) {
          if (!closed) { // a closing agent's pool refuses too, and that is no limit
            LOG.warn("ec-repair: repair agent on {} is at its limit of concurrent requests; refusing one", ctx.name());
          }
          IOUtils.closeSocket(s);
        }
      } catch (IOException e) {
        if (!closed) {
          LOG.warn("ec-repair: repair agent on {} failed to accept: {}", ctx.name(), e.toString());
        }
      }
    }
  }

  private void serve(Socket s) {
    serving.incrementAndGet();
    try {
      s.setTcpNoDelay(true);
      s.setSoTimeout((int) ctx.stallMillis());
      // The handshake the DataNode's own data transfer does on this cluster (SASL, encryption, or none).
      org.apache.hadoop.hdfs.protocol.datatransfer.IOStreamPair channel = AgentChannels.accept(ctx.datanode(), s);
      DataInputStream in = new DataInputStream(new BufferedInputStream(channel.in, 8 * 1024));
      RangeRequest rangeReq = null;
      PlanPartRequest partReq = null;
      AgentProof.Received challenge = null;
      DataOutputStream out;
      try {
        int magic = in.readInt();
        // Ranges and parts stream values out; a value stream or a probe answers in a few bytes.
        boolean streamsOut = magic == PlanPartRequest.MAGIC || magic == RangeRequest.MAGIC;
        out = new DataOutputStream(new BufferedOutputStream(channel.out, streamsOut ? 128 * 1024 : 512));
        if (magic == PlanPartRequest.LOAD_PROBE) {
          answerLoadProbe(in, out);
          return;
        }
        if (magic == PlanFrames.STREAM_MAGIC) {
          serveStream(s, in, out);
          return;
        }
        if (magic == PlanPartRequest.MAGIC) {
          partReq = PlanPartRequest.readAfterMagic(in);
          challenge = AgentProof.Received.read(in);
        } else if (magic == RangeRequest.MAGIC) {
          rangeReq = RangeRequest.readAfterMagic(in);
          challenge = AgentProof.Received.read(in);
        } else {
          throw new IOException("not a repair agent request (magic " + Integer.toHexString(magic) + ")");
        }
      } catch (IOException e) {
        LOG.warn("ec-repair: repair agent on {} got a bad request from {}: {}", ctx.name(),
            s.getRemoteSocketAddress(), e.getMessage());
        return;
      }
      if (rangeReq != null) {
        serveRanges(rangeReq, challenge, out);
        return;
      }
      try {
        checkReadAccess(partReq.token(), partReq.block());
        AgentProof.prove(out, ctx.datanode(), challenge, partReq.block(), AgentProof.Purpose.SERVE);
      } catch (IOException e) {
        LOG.warn("ec-repair: repair agent on {} refused a plan part for {}: {}", ctx.name(), partReq.block(),
            e.getMessage());
        out.writeInt(PlanPartRequest.ERROR);
        out.writeUTF("access to " + partReq.block() + " refused");
        out.flush();
        return;
      }
      boolean client = forClient(partReq, ctx.datanode());
      if (client && !clientParts.tryAcquire()) {
        clientPartsRefused.increment();
        out.writeInt(PlanPartRequest.ERROR);
        out.writeUTF("this repair agent runs " + ctx.clientPartsLimit() + " parts of clients' reads at once; "
            + "fetch the read set instead");
        out.flush();
        return;
      }
      try {
        participant.serve(partReq, s, in, out);
      } finally {
        if (client) {
          clientParts.release();
        }
      }
      partsServed.increment();
    } catch (IOException e) {
      LOG.debug("ec-repair: repair agent connection from {} ended: {}", s.getRemoteSocketAddress(), e.toString());
    } catch (RuntimeException e) {
      LOG.warn("ec-repair: repair agent on {} dropped a request from {}: {}", ctx.name(), s.getRemoteSocketAddress(),
          e.toString());
    } finally {
      IOUtils.closeSocket(s);
      serving.decrementAndGet();
    }
  }

  /** A value stream of a distributed repair, for the session that expects it (unknown sessions are dropped). */
  private void serveStream(Socket s, DataInputStream in, DataOutputStream out) throws IOException {
    int version = in.readInt();
    if (version != PlanFrames.VERSION) {
      throw new IOException("value stream version " + version + ", this agent speaks " + PlanFrames.VERSION);
    }
    long hi = in.readLong();
    long lo = in.readLong();
    int from = in.readInt();
    AgentProof.Received challenge = AgentProof.Received.read(in);
    PlanSession session = ctx.sessions().get(hi, lo);
    if (session == null || !session.expectsSender(from)) {
      LOG.debug("ec-repair: repair agent on {} got a stream for no session or sender it knows", ctx.name());
      return; // and proves nothing: no proof for whoever asks
    }
    try {
      AgentProof.prove(out, ctx.datanode(), challenge, null, AgentProof.Purpose.RECEIVE);
    } catch (IOException | RuntimeException e) {
      LOG.warn("ec-repair: repair agent on {} cannot prove itself to a value stream's sender: {}", ctx.name(), e.toString());
      PlanFrames.writeError(out, "the sender's token is not one of this cluster's");
      return;
    }
    out.flush();
    s.setSoTimeout((int) ctx.stallMillis());
    session.attach(from, s, in);
  }

  /** A helper's ranges for a repair done elsewhere, from this DataNode's replica. */
  private void serveRanges(RangeRequest req, AgentProof.Received challenge, DataOutputStream out) throws IOException {
    try {
      checkReadAccess(req.token(), req.block());
      AgentProof.prove(out, ctx.datanode(), challenge, req.block(), AgentProof.Purpose.SERVE);
      ranges.serve(req, out);
      rangeRequestsServed.increment();
    } catch (Exception e) {
      LOG.warn("ec-repair: repair agent on {} could not serve ranges of {}: {}", ctx.name(), req.block(), e.toString());
      out.writeInt(RangeRequest.ERROR);
      out.writeUTF(publicReason(e, "could not serve ranges of " + req.block()));
      out.flush();
    }
  }

  /**
   * What a requester is told when its request fails: what failed and the kind of error, not the
   * DataNode's own message (paths, addresses, internals), which goes to its log.
   */
  static String publicReason(Throwable e, String what) {
    return what + " (" + e.getClass().getSimpleName() + "; the DataNode's log has the details)";
  }

  /** Before an agent reads or connects anywhere: the request must carry a valid token for our block. */
  private void checkReadAccess(org.apache.hadoop.security.token.Token<BlockTokenIdentifier> token, ExtendedBlock block)
      throws IOException {
    // As the DataNode's own data transfer does: tokens are required when the NameNode's keys say so.
    if (EcRepairDataNodeAccess.blockTokensEnforced(ctx.datanode())) {
      TokenShape.check(token.getIdentifier());
      try {
        ctx.datanode().getBlockPoolTokenSecretManager().checkAccess(token, null, block,
            BlockTokenIdentifier.AccessMode.READ);
      } catch (RuntimeException e) { // Hadoop's decoder on a malformed token (an unknown enum name, block pool)
        throw new IOException("a malformed block token: " + e.getMessage(), e);
      }
    }
  }

  /**
   * A load probe names a block this DataNode holds and carries a token for it, like every other
   * request: only a holder of a valid token learns the DataNode's backlog. The answer counts the
   * intents of other recent probes ({@link LoadIntents}); the probe's own intent counts for the
   * probes after it.
   */
  private void answerLoadProbe(DataInputStream in, DataOutputStream out) throws IOException {
    ExtendedBlock block = new ExtendedBlock(in.readUTF(), in.readLong(), 0, in.readLong());
    long intent = in.readLong();
    if (intent < 0 || intent > LoadIntents.MAX_BYTES) {
      throw new IOException("a load probe announces " + intent + " bytes");
    }
    org.apache.hadoop.security.token.Token<BlockTokenIdentifier> token = WireTokens.read(in);
    AgentProof.Received challenge = AgentProof.Received.read(in);
    checkReadAccess(token, block);
    if (ctx.datanode().getFSDataset().getStoredBlock(block.getBlockPoolId(), block.getBlockId()) == null) {
      throw new IOException("a load probe names " + block + ", which this DataNode does not hold");
    }
    AgentProof.prove(out, ctx.datanode(), challenge, block, AgentProof.Purpose.SERVE);
    out.writeLong(ctx.inbound().get() + intents.othersThenAdd(intent, System.currentTimeMillis()));
    out.flush();
  }

  /** The backlog of an agent, as the method below asks it, announcing no intent. */
  public static long inboundLoad(DataNode prober, InetSocketAddress agent, String datanodeId, ExtendedBlock block,
                                 org.apache.hadoop.security.token.Token<BlockTokenIdentifier> token, int timeoutMs) {
    return inboundLoad(prober, agent, datanodeId, block, token, timeoutMs, 0);
  }

  /**
   * The bytes the repairs on DataNode {@code datanodeId} (its agent at {@code agent}) still expect
   * to receive (its downlink's backlog), with what other probes of the last moments announced they
   * may add, asked by DataNode {@code prober}, or -1 when it does not answer within
   * {@code timeoutMs}; {@code block} is a block of that DataNode, {@code token} a token to read it.
   * {@code intentBytes}: what the prober's repair would add if it chose this DataNode (0: nothing
   * to announce), counted for the probes that follow ({@link LoadIntents}).
   */
  public static long inboundLoad(DataNode prober, InetSocketAddress agent, String datanodeId, ExtendedBlock block,
                                 org.apache.hadoop.security.token.Token<BlockTokenIdentifier> token, int timeoutMs,
                                 long intentBytes) {
    try (AgentChannels.Channel c = AgentChannels.dialer(prober, block, token).dial(agent, timeoutMs, timeoutMs, 0)) {
      DataOutputStream out = new DataOutputStream(new BufferedOutputStream(c.out()));
      out.writeInt(PlanPartRequest.LOAD_PROBE);
      out.writeUTF(block.getBlockPoolId());
      out.writeLong(block.getBlockId());
      out.writeLong(block.getGenerationStamp());
      out.writeLong(intentBytes);
      token.write(out);
      AgentProof.Challenge challenge = AgentProof.Challenge.mint(prober, block);
      challenge.write(out);
      out.flush();
      DataInputStream in = new DataInputStream(c.in());
      challenge.expect(in, datanodeId, "the repair agent at " + agent, PlanPartRequest.ERROR, AgentProof.Purpose.SERVE);
      return in.readLong();
    } catch (IOException e) {
      return -1;
    }
  }

  @Override
  public void close() {
    closed = true;
    try {
      server.close();
    } catch (IOException e) {
      LOG.debug("closing the repair agent's socket: {}", e.toString());
    }
    handlers.shutdownNow();
    try {
      // The port is free only once the thread blocked in accept() has left it (deferred close).
      acceptor.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
