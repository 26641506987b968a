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
import java.util.concurrent.Semaphore;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.datatransfer.IOStreamPair;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.EcRepairDataNodeAccess;
import org.apache.hadoop.io.IOUtils;
import org.apache.hadoop.net.NetUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DataNode's repair agent. It serves, per connection, one of: a helper's part of a
 * distributed repair ({@link PlanPartRequest}, run by {@link PlanParticipant}: a ParaRC plan's
 * part, or a hop of a repair chain), a stream of values for a part running here
 * ({@link StreamHandshake}), a helper's many byte ranges for a central repair done elsewhere in
 * one request ({@link RangeRequest}, {@link LocalRangeServer}), or a load probe (the bytes its
 * repairs still expect to receive).
 *
 * <p>It is no weaker than the DataNode's own data transfer port: connections get the same
 * handshake ({@link AgentChannels}); a request must arrive whole within its deadline, while
 * waiting it costs a small fixed buffer, and a newcomer cuts the connection that waited longest
 * ({@link Admission}); a request's block token is checked before its body is read; what a part
 * asks is checked against the block group it names ({@link PartBounds}) and the memory it may
 * hold is reserved ({@link AgentMemory}) before anything is allocated; and a value stream is
 * taken only from the DataNode the plan names ({@link StreamHandshake}).
 *
 * <p>Off unless {@code ecrepair.datanode.agent.port-offset} is set.
 */
public final class RepairAgent implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(RepairAgent.class);
  /** Connections whose request is still arriving; a newcomer cuts the one that waited longest. */
  static final int MAX_ARRIVING = 64;
  /** Requests served at once; one more is refused. */
  static final int MAX_WORKING = 256;
  /** An idle handler thread ends after this; a burst of requests leaves no threads behind for long. */
  static final int HANDLER_KEEP_ALIVE_SECONDS = 10;
  /**
   * Threads the agent's parts use for their reads, streams and watchers (a part takes at most
   * 2 + its outbound peers); a part that gets none fails and its requester falls back. The
   * DataNode's own reconstruction tasks have threads of their own.
   */
  static final int MAX_PART_THREADS = 1024;
  /** Bytes of a request's body a parsed plan part may take in memory, per byte on the wire (its maps and arrays). */
  private static final int PARSED_PER_BODY_BYTE = 4;
  /** What a range request holds besides its ranges: its output buffer and the replica reader's. */
  private static final int RANGE_BUFFERS = 256 * 1024;
  private final AgentContext ctx;
  private final ServerSocket server;
  private final ExecutorService handlers;
  private final ExecutorService partThreads;
  private final Admission admission = new Admission(MAX_ARRIVING, MAX_WORKING);
  private final AgentMemory memory;
  private final HopRule hops;
  private final LongAdder rangeRequestsServed = new LongAdder();
  private final LocalRangeServer ranges;
  private final PlanParticipant participant;
  private final LongAdder partsServed = new LongAdder();
  private final AtomicInteger serving = new AtomicInteger();
  private final Semaphore clientParts;
  private final LongAdder clientPartsRefused = new LongAdder();
  private final LoadIntents intents = new LoadIntents();
  private final java.util.concurrent.atomic.AtomicLong lastBadRequestWarn = new java.util.concurrent.atomic.AtomicLong(
      System.nanoTime() - TimeUnit.MINUTES.toNanos(1));
  private final LongAdder badRequestsUnlogged = new LongAdder();
  private final LongAdder streamsRefused = new LongAdder();
  private volatile boolean closed;
  private Thread acceptor;

  private RepairAgent(AgentContext ctx, ServerSocket server) throws IOException {
    this.ctx = ctx;
    this.server = server;
    this.ranges = new LocalRangeServer(ctx.datanode());
    this.partThreads = threads("ec-repair-part-" + ctx.name(), MAX_PART_THREADS, 60);
    this.participant = new PlanParticipant(ctx, ranges, ctx.inbound(), partThreads);
    this.clientParts = new Semaphore(ctx.clientPartsLimit());
    AgentLimits limits = ctx.limits();
    this.memory = new AgentMemory(limits.memoryBytes(), limits.partMemoryBytes());
    this.hops = new HopRule(() -> ownAddress(ctx.datanode()), server.getLocalPort(), limits.hopsToAnyPort());
    // Room for every arriving and working connection, and for handlers of cut connections still leaving.
    this.handlers = threads("ec-repair-agent-" + ctx.name(), 2 * MAX_ARRIVING + MAX_WORKING,
        HANDLER_KEEP_ALIVE_SECONDS);
  }

  /** At most {@code max} daemon threads named {@code prefix}-n, none queued: one more task is refused. */
  private static ThreadPoolExecutor threads(String prefix, int max, int keepAliveSeconds) {
    AtomicInteger count = new AtomicInteger();
    return new ThreadPoolExecutor(0, max, keepAliveSeconds, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
      Thread t = new Thread(r, prefix + "-" + count.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
  }

  /** The address the NameNode knows this DataNode by (where other DataNodes reach it), else the one it listens on. */
  private static InetAddress ownAddress(DataNode dn) throws IOException {
    org.apache.hadoop.hdfs.protocol.DatanodeID id = dn.getDatanodeId();
    return id != null && id.getIpAddr() != null ? InetAddress.getByName(id.getIpAddr())
        : dn.getXferAddress().getAddress();
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
    RepairAgent agent;
    try {
      agent = new RepairAgent(ctx, s);
    } catch (IOException | RuntimeException e) {
      s.close();
      throw e;
    }
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

  /** Requests refused because the memory they may hold did not fit under the agent's caps. */
  public long memoryRefused() {
    return memory.refused();
  }

  /** Bytes the agent's requests and parts hold (reserved) now. */
  public long memoryInUse() {
    return memory.inUse();
  }

  /** Value streams whose sender did not prove it is the DataNode the plan names (or broke off proving it). */
  public long streamsRefused() {
    return streamsRefused.sum();
  }

  /** Connections cut while their request was still arriving (a newcomer needed the place). */
  public long arrivalsCut() {
    return admission.cut();
  }

  /** The counters the DataNode's metrics publish for the agent. */
  public java.util.Map<String, Long> counters() {
    return java.util.Map.of("AgentPartsServed", partsServed(), "AgentRangeRequestsServed", rangeRequestsServed(),
        "AgentClientPartsRefused", clientPartsRefused(), "AgentMemoryRefused", memoryRefused(), "AgentArrivalsCut",
        arrivalsCut(), "AgentStreamsRefused", streamsRefused());
  }

  /** Connections being served right now. */
  public int connectionsServing() {
    return serving.get();
  }

  private void acceptLoop() {
    while (!closed) {
      try {
        Socket s = server.accept();
        admission.arrive(s);
        try {
          handlers.execute(() -> serve(s));
        } catch (java.util.concurrent.RejectedExecutionException full) {
          if (!closed) { // a closing agent's pool refuses too, and that is no limit
            LOG.warn("ec-repair: repair agent on {} has no handler free; refusing a connection", ctx.name());
          }
          admission.leave(s, false);
          IOUtils.closeSocket(s);
        }
      } catch (IOException e) {
        if (!closed) {
          LOG.warn("ec-repair: repair agent on {} failed to accept: {}", ctx.name(), e.toString());
        }
      }
    }
  }

  /** One connection: the handshake, then its request by kind, each authenticated before it is read whole. */
  private void serve(Socket s) {
    serving.incrementAndGet();
    Request r = new Request(s);
    try {
      s.setTcpNoDelay(true);
      r.raw = new DeadlineInput(s, NetUtils.getInputStream(s), ctx.stallMillis(), (int) ctx.stallMillis());
      // The handshake the DataNode's own data transfer does on this cluster (SASL, encryption, or none).
      IOStreamPair channel = AgentChannels.accept(ctx.datanode(), s, r.raw);
      r.in = new DataInputStream(new BufferedInputStream(channel.in, 8 * 1024));
      r.channelOut = channel.out;
      r.out = new DataOutputStream(new BufferedOutputStream(channel.out, 512));
      int magic = r.in.readInt();
      switch (magic) {
        case PlanPartRequest.LOAD_PROBE -> answerLoadProbe(r);
        case PlanFrames.STREAM_MAGIC -> serveStream(r);
        case PlanPartRequest.MAGIC -> servePart(r);
        case RangeRequest.MAGIC -> serveRanges(r);
        default -> throw new IOException("not a repair agent request (magic " + Integer.toHexString(magic) + ")");
      }
    } catch (Refused e) {
      LOG.warn("ec-repair: repair agent on {} refused a request from {}: {}", ctx.name(), s.getRemoteSocketAddress(),
          e.getMessage());
      tell(r, e.errorCode, e.getMessage());
    } catch (IOException e) {
      if (r.working) {
        LOG.debug("ec-repair: repair agent connection from {} ended: {}", s.getRemoteSocketAddress(), e.toString());
      } else {
        badRequest(s, e);
      }
    } catch (RuntimeException e) {
      LOG.warn("ec-repair: repair agent on {} dropped a request from {}: {}", ctx.name(), s.getRemoteSocketAddress(),
          e.toString());
    } finally {
      admission.leave(s, r.working);
      IOUtils.closeSocket(s);
      serving.decrementAndGet();
    }
  }

  /**
   * A request that never arrived whole, or not in a form the agent speaks: one WARN every 10 s at
   * most with how many more there were, so that a flood of them does not flood the DataNode's log.
   */
  private void badRequest(Socket s, IOException e) {
    long now = System.nanoTime();
    long last = lastBadRequestWarn.get();
    if (now - last > TimeUnit.SECONDS.toNanos(10) && lastBadRequestWarn.compareAndSet(last, now)) {
      long more = badRequestsUnlogged.sumThenReset();
      LOG.warn("ec-repair: repair agent on {} got a bad request from {}: {}{}", ctx.name(), s.getRemoteSocketAddress(),
          e.getMessage() == null ? e.toString() : e.getMessage(), more == 0 ? "" : " (and " + more + " more since the last such message, " + admission.cut()
          + " cut while arriving in all)");
    } else {
      badRequestsUnlogged.increment();
      LOG.debug("ec-repair: repair agent on {} got a bad request from {}: {}", ctx.name(), s.getRemoteSocketAddress(),
          e.toString());
    }
  }

  /** A connection being served: its streams, and whether its request arrived and took a working slot. */
  private static final class Request {
    final Socket socket;
    DeadlineInput raw;
    DataInputStream in;
    java.io.OutputStream channelOut;
    DataOutputStream out;
    boolean working;

    Request(Socket socket) {
      this.socket = socket;
    }
  }

  /** A request the agent will not serve, told to the requester with {@code errorCode} and why. */
  private static final class Refused extends IOException {
    final int errorCode;

    Refused(int errorCode, String message) {
      super(message);
      this.errorCode = errorCode;
    }

    /** A refusal for what {@code e} says went wrong. */
    Refused(int errorCode, IOException e) {
      this(errorCode, e.getMessage() != null ? e.getMessage() : e.toString());
    }
  }

  /** Tells the requester why, if it is still listening. */
  private static void tell(Request r, int errorCode, String why) {
    if (r.out == null || why == null) {
      return;
    }
    try {
      r.out.writeInt(errorCode);
      r.out.writeUTF(why.length() > 2000 ? why.substring(0, 2000) : why);
      r.out.flush();
    } catch (IOException gone) {
      // the requester hung up
    }
  }

  /**
   * The request on {@code r} arrived whole: from here it is served without its deadline, in a
   * working slot; without one (cut while arriving, or every slot taken) it is refused.
   */
  private void startWork(Request r, int errorCode) throws IOException {
    if (!admission.work(r.socket)) {
      throw new Refused(errorCode, "this repair agent serves " + MAX_WORKING + " requests at once; try again later");
    }
    r.working = true;
    r.raw.lift();
  }

  /** A part of a distributed repair: header and token first, then the body, bounded, then the part runs here. */
  private void servePart(Request r) throws IOException {
    PlanPartRequest.Header header = PlanPartRequest.readHeader(r.in);
    ExtendedBlock block = header.block();
    long replicaLength = authenticate(header.token(), block, PlanPartRequest.ERROR);
    try (AgentMemory.Grant body = reserve((long) header.bodyLength() * (1 + PARSED_PER_BODY_BYTE),
        "a plan part of " + header.bodyLength() + " bytes", PlanPartRequest.ERROR)) {
      byte[] bytes = new byte[header.bodyLength()];
      r.in.readFully(bytes);
      PlanPartRequest req;
      try {
        req = PlanPartRequest.readBody(header, bytes);
        PartBounds.check(req, replicaLength, ctx.limits().maxCellBytes());
        for (PlanPartRequest.Peer p : req.peers().values()) {
          if (!p.control()) {
            hops.check(p.host(), p.port());
          }
        }
      } catch (IOException e) {
        throw new Refused(PlanPartRequest.ERROR, e);
      }
      boolean fromDataNode = AgentProof.requestFromKeyHolder(ctx.datanode(), header.challenge(), block, header.proof(),
          PlanPartRequest.digest(header.sessionHi(), header.sessionLo(), block, bytes));
      bytes = null; // parsed: the rest of the run holds the part, not its bytes
      boolean client = forClient(req, fromDataNode);
      try (AgentMemory.Grant run = reserve(PartBounds.bytesHeld(req), "part " + req.part().node() + " of a repair of "
          + block, PlanPartRequest.ERROR)) {
        startWork(r, PlanPartRequest.ERROR);
        if (client && !clientParts.tryAcquire()) {
          clientPartsRefused.increment();
          throw new Refused(PlanPartRequest.ERROR, "this repair agent runs " + ctx.clientPartsLimit() + " parts of "
              + "clients' reads at once; fetch the read set instead");
        }
        try {
          AgentProof.prove(r.out, ctx.datanode(), header.challenge(), block, AgentProof.Purpose.SERVE);
          DataOutputStream out = streamingOut(r);
          participant.serve(req, r.socket, r.in, out, hops, ctx.limits().partMillis());
        } finally {
          if (client) {
            clientParts.release();
          }
        }
        partsServed.increment();
      }
    }
  }

  /**
   * Whether a part counts as a client's read, which the agent limits: its request says so, or,
   * with block tokens, its requester did not prove it holds the block keys (only DataNodes do,
   * whatever user a client runs as). Without block tokens nothing can be proved, and the agent
   * takes the request's word, as HDFS's data transfer trusts the network there.
   */
  private boolean forClient(PlanPartRequest req, boolean fromDataNode) {
    return req.forClient() || (EcRepairDataNodeAccess.blockTokensEnforced(ctx.datanode()) && !fromDataNode);
  }

  /** Flushes what was written and streams from here on through a large buffer. */
  private static DataOutputStream streamingOut(Request r) throws IOException {
    r.out.flush();
    r.out = new DataOutputStream(new BufferedOutputStream(r.channelOut, 128 * 1024));
    return r.out;
  }

  private AgentMemory.Grant reserve(long bytes, String what, int errorCode) throws Refused {
    try {
      return memory.reserve(bytes, what);
    } catch (IOException e) {
      throw new Refused(errorCode, e);
    }
  }

  /**
   * Checks that {@code token} lets its holder read {@code block} and that this DataNode holds its
   * finalized replica of exactly that generation and length; returns the replica's length.
   */
  private long authenticate(org.apache.hadoop.security.token.Token<BlockTokenIdentifier> token, ExtendedBlock block,
                            int errorCode) throws IOException {
    try {
      checkReadAccess(token, block);
    } catch (IOException e) {
      throw new Refused(errorCode, "access to " + block + " refused");
    }
    try {
      return ranges.finalizedLength(block);
    } catch (IOException e) {
      throw new Refused(errorCode, publicReason(e, "no replica of " + block + " to serve"));
    }
  }

  /**
   * A value stream of a distributed repair, for the session that expects it: the handshake
   * proves both ends before anything is read into the session.
   */
  private void serveStream(Request r) throws IOException {
    StreamHandshake.Accepted a;
    try {
      a = StreamHandshake.accept(r.in, r.out, r.socket, ctx.datanode(), ctx.sessions());
    } catch (IOException e) {
      streamsRefused.increment();
      throw e;
    }
    if (a == null) {
      LOG.debug("ec-repair: repair agent on {} got a stream for no session or sender it knows", ctx.name());
      return; // and proves nothing: no proof for whoever asks
    }
    startWork(r, PlanFrames.ERROR);
    a.session().attach(a.from(), r.socket, r.in);
  }

  /** A helper's ranges for a repair done elsewhere, from this DataNode's replica: token first, then the ranges. */
  private void serveRanges(Request r) throws IOException {
    RangeRequest.Header header = RangeRequest.readHeader(r.in);
    authenticate(header.token(), header.block(), RangeRequest.ERROR);
    try (AgentMemory.Grant held = reserve((long) header.count() * RangeRequest.BYTES_PER_RANGE + RANGE_BUFFERS,
        "a request for " + header.count() + " ranges", RangeRequest.ERROR)) {
      RangeRequest req;
      try {
        req = RangeRequest.readRanges(header, r.in);
      } catch (java.io.EOFException cut) {
        throw cut;
      } catch (IOException e) {
        throw new Refused(RangeRequest.ERROR, e);
      }
      startWork(r, RangeRequest.ERROR);
      AgentProof.prove(r.out, ctx.datanode(), header.challenge(), req.block(), AgentProof.Purpose.SERVE);
      DataOutputStream out = streamingOut(r);
      try {
        ranges.serve(req, out);
        rangeRequestsServed.increment();
      } catch (IOException | RuntimeException e) {
        LOG.warn("ec-repair: repair agent on {} could not serve ranges of {}: {}", ctx.name(), req.block(),
            e.toString());
        tell(r, RangeRequest.ERROR, publicReason(e, "could not serve ranges of " + req.block()));
      }
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
  private void answerLoadProbe(Request r) throws IOException {
    DataInputStream in = r.in;
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
    startWork(r, PlanPartRequest.ERROR);
    AgentProof.prove(r.out, ctx.datanode(), challenge, block, AgentProof.Purpose.SERVE);
    r.out.writeLong(ctx.inbound().get() + intents.othersThenAdd(intent, System.currentTimeMillis()));
    r.out.flush();
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
    partThreads.shutdownNow();
    try {
      // The port is free only once the thread blocked in accept() has left it (deferred close).
      acceptor.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
