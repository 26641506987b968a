package io.ecrepair.hdfs.agent;

import io.ecrepair.hdfs.transfer.RepairNice;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.channels.ServerSocketChannel;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.DatanodeID;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.io.IOUtils;
import org.apache.hadoop.security.UserGroupInformation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DataNode's repair agent. It serves, per connection, one of: a helper's part of a
 * distributed repair ({@link PartService}: a ParaRC plan's part, or a hop of a repair chain), a
 * stream of values for a part running here ({@link StreamHandshake}), a helper's many byte
 * ranges for a central repair done elsewhere ({@link RangeService}), or a load probe
 * ({@link LoadProbe}).
 *
 * <p>It is no weaker than the DataNode's own data transfer port (docs/security.md): connections
 * get the same handshake ({@link AgentChannels}) and sockets whose writes time out; a request
 * must arrive whole within its deadline and waiting costs a small fixed buffer, a newcomer
 * cutting the connection that waited longest ({@link Admission}); a request's block token is
 * checked before its body is read, and the memory it may hold is reserved under the agent's caps
 * before anything is allocated ({@link AgentGate}); a value stream is taken only from the
 * DataNode the plan names. Off unless {@code ecrepair.datanode.agent.port-offset} is set.
 */
public final class RepairAgent implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(RepairAgent.class);
  /** Connections whose request is still arriving; a newcomer cuts the one that waited longest. */
  static final int MAX_ARRIVING = 64;
  /** Requests (parts, ranges, probes) served at once; one more is refused. */
  static final int MAX_WORKING = 256;
  /** Value streams received at once (only DataNodes open them). */
  static final int MAX_STREAMS = 1024;
  /** An idle handler thread ends after this; a burst of requests leaves no threads behind for long. */
  static final int HANDLER_KEEP_ALIVE_SECONDS = 10;
  /**
   * Threads the agent's parts use for their reads, streams and watchers (a part takes at most
   * 2 + its outbound peers); a part that gets none fails and its requester falls back. The
   * DataNode's own reconstruction tasks have threads of their own.
   */
  static final int MAX_PART_THREADS = 1024;
  /** Bad requests logged at WARN at most this often; the others at DEBUG, counted in the next WARN. */
  private static final long BAD_REQUEST_WARN_NANOS = TimeUnit.SECONDS.toNanos(10);

  private final AgentContext ctx;
  private final ServerSocketChannel server;
  private final ExecutorService handlers;
  private final ExecutorService partThreads;
  /** Threads at repair's CPU priority: repairs' requests and parts run there, never a client's. */
  private final ExecutorService repairThreads;
  private final ExecutorService repairPartThreads;
  private final ScheduledThreadPoolExecutor alarms;
  private final Admission admission = new Admission(MAX_ARRIVING, MAX_WORKING, MAX_STREAMS);
  private final AgentMemory memory;
  private final AgentGate gate;
  private final PartService parts;
  private final RangeService ranges;
  private final LoadIntents intents = new LoadIntents();
  private final AtomicInteger serving = new AtomicInteger();
  private final LongAdder streamsRefused = new LongAdder();
  private final AtomicLong lastBadRequestWarn = new AtomicLong(System.nanoTime() - 2 * BAD_REQUEST_WARN_NANOS);
  private final LongAdder badRequestsUnlogged = new LongAdder();
  private volatile boolean closed;
  private Thread acceptor;

  private RepairAgent(AgentContext ctx, ServerSocketChannel server) {
    this.ctx = ctx;
    this.server = server;
    AgentLimits limits = ctx.limits();
    this.memory = new AgentMemory(limits.memoryBytes(), limits.partMemoryBytes());
    LocalRangeServer replicas = new LocalRangeServer(ctx.datanode());
    this.gate = new AgentGate(ctx.datanode(), replicas, memory, admission);
    this.alarms = new ScheduledThreadPoolExecutor(1, r -> daemon(r, "ec-repair-alarms-" + ctx.name()));
    alarms.setRemoveOnCancelPolicy(true);
    // Started here: made later by a repair's thread, it would be born at repair's priority.
    alarms.prestartCoreThread();
    this.partThreads = threads("ec-repair-part-" + ctx.name(), MAX_PART_THREADS, 60);
    RepairNice nice = ctx.budget().nice();
    this.repairThreads = nice.pool("ec-repair-lo-agent-" + ctx.name(), MAX_WORKING + MAX_STREAMS,
        HANDLER_KEEP_ALIVE_SECONDS);
    this.repairPartThreads = nice.pool("ec-repair-lo-part-" + ctx.name(), MAX_PART_THREADS, 60);
    HopRule hops = new HopRule(() -> ownAddress(ctx.datanode()), server.socket().getLocalPort(),
        limits.hopsToAnyPort(), ctx.datanode().getDnConf().getConnectToDnViaHostname());
    this.parts = new PartService(ctx, gate, hops, new PlanParticipant(ctx, replicas, ctx.inbound(), partThreads,
        repairThreads, repairPartThreads, alarms));
    this.ranges = new RangeService(ctx, gate, replicas, alarms, repairThreads);
    // Room for every arriving and working connection, and for handlers of cut connections still leaving.
    this.handlers = threads("ec-repair-agent-" + ctx.name(), 2 * MAX_ARRIVING + MAX_WORKING + MAX_STREAMS,
        HANDLER_KEEP_ALIVE_SECONDS);
  }

  /** At most {@code max} daemon threads named {@code prefix}-n, none queued: one more task is refused. */
  private static ThreadPoolExecutor threads(String prefix, int max, int keepAliveSeconds) {
    AtomicInteger count = new AtomicInteger();
    return new ThreadPoolExecutor(0, max, keepAliveSeconds, TimeUnit.SECONDS, new SynchronousQueue<>(),
        r -> daemon(r, prefix + "-" + count.incrementAndGet()));
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  /** The address the NameNode knows this DataNode by (where other DataNodes reach it), else the one it listens on. */
  private static InetAddress ownAddress(DataNode dn) throws IOException {
    DatanodeID id = dn.getDatanodeId();
    return id != null && id.getIpAddr() != null ? InetAddress.getByName(id.getIpAddr())
        : dn.getXferAddress().getAddress();
  }

  /**
   * Why this cluster cannot use the agent (null when it can). Agents protect their connections
   * as the DataNode's data transfer does (SASL, encryption); the one setup they cannot match is a
   * Kerberos cluster whose DataNodes secure data transfer by listening on privileged ports
   * instead: an agent cannot bind one after the DataNode dropped root, so it stays off there.
   */
  public static String unsupportedBecause(Configuration conf) {
    boolean encrypted = conf.getBoolean(DFSConfigKeys.DFS_ENCRYPT_DATA_TRANSFER_KEY, false);
    boolean sasl = !conf.getTrimmed(DFSConfigKeys.DFS_DATA_TRANSFER_PROTECTION_KEY, "").isEmpty();
    if (UserGroupInformation.isSecurityEnabled() && !encrypted && !sasl) {
      return "this Kerberos cluster secures data transfer with privileged ports, which a repair agent cannot "
          + "listen on; set " + DFSConfigKeys.DFS_DATA_TRANSFER_PROTECTION_KEY + " (SASL) to use the agents";
    }
    return null;
  }

  /** Listens on {@code address}:{@code port} and serves requests until {@link #close}. */
  public static RepairAgent start(AgentContext ctx, InetAddress address, int port) throws IOException {
    if (port < 1024) {
      // The handshake of a privileged port is skipped (HDFS trusts the port there): an agent never listens on one.
      throw new IOException("port " + port + " is a privileged port, where the cluster's handshake is skipped");
    }
    ServerSocketChannel s = ServerSocketChannel.open();
    RepairAgent agent;
    try {
      s.socket().setReuseAddress(true);
      if (ctx.helperReceiveBufferBytes() > 0) {
        // Accepted streams inherit it: a part that many agents send to (a ParaRC plan's computing
        // helper, the requestor) must not let their bursts overflow its switch port (incast).
        s.socket().setReceiveBufferSize(ctx.helperReceiveBufferBytes());
      }
      s.socket().bind(new InetSocketAddress(address, port), 128);
      agent = new RepairAgent(ctx, s);
    } catch (IOException | RuntimeException e) {
      s.close();
      throw new IOException("cannot listen on " + address.getHostAddress() + ":" + port + ": " + e.getMessage(), e);
    }
    agent.acceptor = new Thread(agent::acceptLoop, "ec-repair-agent-accept-" + ctx.name());
    agent.acceptor.setDaemon(true);
    agent.acceptor.start();
    return agent;
  }

  public int port() {
    return server.socket().getLocalPort();
  }

  public long partsServed() {
    return parts.served();
  }

  public long rangeRequestsServed() {
    return ranges.served();
  }

  /** Parts of clients' reads refused at the limit ({@code ecrepair.datanode.agent.client-parts}). */
  public long clientPartsRefused() {
    return parts.clientPartsRefused();
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
  public Map<String, Long> counters() {
    return Map.of("AgentPartsServed", partsServed(), "AgentRangeRequestsServed", rangeRequestsServed(),
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
        Socket s = server.accept().socket();
        try {
          handlers.execute(() -> serve(s));
        } catch (java.util.concurrent.RejectedExecutionException full) {
          if (!closed) { // a closing agent's pool refuses too, and that is no limit
            LOG.warn("ec-repair: repair agent on {} has no handler free; refusing a connection", ctx.name());
          }
          IOUtils.closeSocket(s);
        }
      } catch (IOException e) {
        if (!closed) {
          LOG.warn("ec-repair: repair agent on {} failed to accept: {}", ctx.name(), e.toString());
        }
      } catch (Throwable e) { // e.g. no memory for one more thread: the agent goes on after a pause
        LOG.error("ec-repair: repair agent on {} could not take a connection: {}", ctx.name(), e.toString());
        pause();
      }
    }
  }

  private static void pause() {
    try {
      Thread.sleep(100);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** One connection: the handshake, then its request by kind, each authenticated before it is read whole. */
  private void serve(Socket s) {
    serving.incrementAndGet();
    admission.arrive(s);
    AgentRequest r = null;
    try {
      s.setTcpNoDelay(true);
      // The handshake the DataNode's own data transfer does on this cluster (SASL, encryption, or none).
      r = new AgentRequest(s, AgentChannels.accept(ctx.datanode(), s, ctx.stallMillis(), ctx.stallMillis()));
      int magic = r.in.readInt();
      switch (magic) {
        case PlanPartRequest.LOAD_PROBE -> LoadProbe.answer(r, ctx, gate, intents);
        case PlanFrames.STREAM_MAGIC -> serveStream(r);
        case PlanPartRequest.MAGIC -> parts.serve(r);
        case RangeRequest.MAGIC -> ranges.serve(r);
        default -> throw AgentVersions.unknownKind(magic);
      }
    } catch (AgentRequest.Refused e) {
      badRequest(s, "refused a request", e);
      r.tell(e.errorCode, e.getMessage());
    } catch (AgentVersions.Unspoken e) {
      badRequest(s, "refused a request", e);
      r.tell(e);
    } catch (IOException e) {
      if (r != null && r.slot != null) {
        LOG.debug("ec-repair: repair agent connection from {} ended: {}", s.getRemoteSocketAddress(), e.toString());
      } else {
        badRequest(s, "got a bad request", e);
      }
    } catch (RuntimeException e) {
      LOG.warn("ec-repair: repair agent on {} dropped a request from {}: {}", ctx.name(), s.getRemoteSocketAddress(),
          e.toString());
    } finally {
      admission.leave(s, r == null ? null : r.slot);
      IOUtils.closeSocket(s);
      serving.decrementAndGet();
    }
  }

  /**
   * A request refused, or one that never arrived whole or not in a form the agent speaks: one
   * WARN every 10 s at most with how many more there were, so that a flood of them does not
   * flood the DataNode's log.
   */
  private void badRequest(Socket s, String what, IOException e) {
    long now = System.nanoTime();
    long last = lastBadRequestWarn.get();
    String why = e.getMessage() == null ? e.toString() : e.getMessage();
    if (now - last > BAD_REQUEST_WARN_NANOS && lastBadRequestWarn.compareAndSet(last, now)) {
      long more = badRequestsUnlogged.sumThenReset();
      LOG.warn("ec-repair: repair agent on {} {} from {}: {}{}", ctx.name(), what, s.getRemoteSocketAddress(), why,
          more == 0 ? "" : " (and " + more + " more refused or bad requests since the last such message; "
              + admission.cut() + " connections cut while arriving in all)");
    } else {
      badRequestsUnlogged.increment();
      LOG.debug("ec-repair: repair agent on {} {} from {}: {}", ctx.name(), what, s.getRemoteSocketAddress(), why);
    }
  }

  /**
   * A value stream of a distributed repair, for the session that expects it: the handshake
   * proves both ends before anything is read into the session.
   */
  private void serveStream(AgentRequest r) throws IOException {
    StreamHandshake.Accepted a;
    try {
      a = StreamHandshake.accept(r.in, r.out(), r.socket, ctx.datanode(), ctx.sessions());
    } catch (AgentVersions.Unspoken e) {
      throw e; // another release's sender: nothing it failed to prove
    } catch (IOException e) {
      streamsRefused.increment();
      throw e;
    }
    if (a == null) {
      LOG.debug("ec-repair: repair agent on {} got a stream for no session or sender it knows", ctx.name());
      return; // and proves nothing: no proof for whoever asks
    }
    gate.startWork(r, Admission.Slot.STREAM, PlanFrames.ERROR);
    PlanSession session = a.session();
    session.budget().nice().call(repairThreads, () -> {
      session.attach(a.from(), r.socket, r.in);
      return null;
    });
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
    repairThreads.shutdownNow();
    repairPartThreads.shutdownNow();
    alarms.shutdownNow();
    admission.closeAll();
    try {
      // The port is free only once the thread blocked in accept() has left it (deferred close).
      acceptor.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
