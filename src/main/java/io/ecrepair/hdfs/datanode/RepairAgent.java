package io.ecrepair.hdfs.datanode;

import io.ecrepair.gf.CodingTables;
import io.ecrepair.gf.GFMatrix;
import io.ecrepair.hdfs.transfer.BlockRangeReader;
import io.ecrepair.hdfs.transfer.RangeListener;
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
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo.DatanodeInfoBuilder;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.io.IOUtils;
import org.apache.hadoop.net.NetUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DataNode's repair agent: serves one hop of a repair chain ({@link ChainRequest}) per
 * connection. It checks the request's block access token for this DataNode's block before
 * doing anything else, asks the hop before it for the partial sum, reads its own block
 * through this DataNode's block read (checksums verified), adds its term slice by slice and
 * streams the sum on ({@link ChainFrames}). It also serves a helper's many byte ranges for
 * a repair done elsewhere in one request ({@link RangeRequest}, {@link LocalRangeServer}),
 * after the same token check.
 *
 * <p>Off unless {@value EcRepairDataNodePlugin#AGENT_PORT_OFFSET_KEY} is set; it refuses to
 * start where the cluster protects data transfer (SASL or encryption), because its streams are
 * plain TCP.
 */
final class RepairAgent implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(RepairAgent.class);
  /** Slices read ahead of their use, from the local block and from the hop before (2 MiB at 128 KiB). */
  private static final int READ_AHEAD = 16;

  private final ReconstructionContext ctx;
  private final ServerSocket server;
  private final ExecutorService handlers;
  private final boolean checkTokens;
  private final LongAdder hopsServed = new LongAdder();
  private final LongAdder rangeRequestsServed = new LongAdder();
  private final LocalRangeServer ranges;
  private final PlanParticipant participant;
  private final LongAdder partsServed = new LongAdder();
  /** Bytes this agent's hops still expect from the hops before them (what its downlink still has to carry). */
  private final java.util.concurrent.atomic.AtomicLong inbound = new java.util.concurrent.atomic.AtomicLong();
  private volatile boolean closed;

  private RepairAgent(ReconstructionContext ctx, ServerSocket server) {
    this.ctx = ctx;
    this.server = server;
    this.ranges = new LocalRangeServer(ctx.datanode());
    this.participant = new PlanParticipant(ctx, ranges, inbound);
    this.checkTokens = ctx.conf().getBoolean(DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY,
        DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_DEFAULT);
    AtomicInteger threads = new AtomicInteger();
    this.handlers = new ThreadPoolExecutor(0, 256, 60, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
      Thread t = new Thread(r, "ec-repair-agent-" + ctx.name() + "-" + threads.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
  }

  /** Why this cluster cannot use the agent (null when it can). */
  static String unsupportedBecause(org.apache.hadoop.conf.Configuration conf) {
    if (conf.getBoolean(DFSConfigKeys.DFS_ENCRYPT_DATA_TRANSFER_KEY, false)) {
      return DFSConfigKeys.DFS_ENCRYPT_DATA_TRANSFER_KEY + " is on and the agent's streams are not encrypted";
    }
    String protection = conf.getTrimmed(DFSConfigKeys.DFS_DATA_TRANSFER_PROTECTION_KEY, "");
    if (!protection.isEmpty()) {
      return DFSConfigKeys.DFS_DATA_TRANSFER_PROTECTION_KEY + " is " + protection
          + " and the agent's streams are not SASL-protected";
    }
    return null;
  }

  /** Listens on {@code address}:{@code port} and serves chains until {@link #close}. */
  static RepairAgent start(ReconstructionContext ctx, InetAddress address, int port) throws IOException {
    ServerSocket s = new ServerSocket();
    try {
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress(address, port), 128);
    } catch (IOException e) {
      s.close();
      throw new IOException("cannot listen on " + address.getHostAddress() + ":" + port + ": " + e.getMessage(), e);
    }
    RepairAgent agent = new RepairAgent(ctx, s);
    Thread t = new Thread(agent::acceptLoop, "ec-repair-agent-accept-" + ctx.name());
    t.setDaemon(true);
    t.start();
    return agent;
  }

  int port() {
    return server.getLocalPort();
  }

  long hopsServed() {
    return hopsServed.sum();
  }

  long partsServed() {
    return partsServed.sum();
  }

  long rangeRequestsServed() {
    return rangeRequestsServed.sum();
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
    try {
      s.setTcpNoDelay(true);
      s.setSoTimeout((int) ctx.stallMillis());
      DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream(), 8 * 1024));
      DataOutputStream out = new DataOutputStream(new BufferedOutputStream(
          NetUtils.getOutputStream(s, ctx.datanode().getDnConf().getSocketWriteTimeout()), 128 * 1024));
      ChainRequest req = null;
      RangeRequest rangeReq = null;
      PlanPartRequest partReq = null;
      try {
        int magic = in.readInt();
        if (magic == ChainRequest.LOAD_PROBE) {
          out.writeLong(inbound.get());
          out.flush();
          return;
        }
        if (magic == PlanFrames.STREAM_MAGIC) {
          serveStream(s, in);
          return;
        }
        if (magic == PlanPartRequest.MAGIC) {
          partReq = PlanPartRequest.readAfterMagic(in);
        } else if (magic == RangeRequest.MAGIC) {
          rangeReq = RangeRequest.readAfterMagic(in);
        } else if (magic == ChainRequest.MAGIC) {
          req = ChainRequest.readAfterMagic(in);
        } else {
          throw new IOException("not a repair agent request (magic " + Integer.toHexString(magic) + ")");
        }
      } catch (IOException e) {
        LOG.warn("ec-repair: repair agent on {} got a bad request from {}: {}", ctx.name(),
            s.getRemoteSocketAddress(), e.getMessage());
        return;
      }
      if (rangeReq != null) {
        serveRanges(rangeReq, out);
        return;
      }
      if (partReq != null) {
        try {
          checkReadAccess(partReq.token(), partReq.block());
        } catch (IOException e) {
          LOG.warn("ec-repair: repair agent on {} refused a plan part for {}: {}", ctx.name(), partReq.block(),
              e.getMessage());
          out.writeInt(PlanPartRequest.ERROR);
          out.writeUTF("access to " + partReq.block() + " refused");
          out.flush();
          return;
        }
        participant.serve(partReq, s, in, out);
        partsServed.increment();
        return;
      }
      ChainRequest.Hop self = req.self();
      try {
        serveHop(req, out);
        hopsServed.increment();
      } catch (ChainFrames.ChainFailure f) {
        ChainFrames.writeError(out, f.unit, f.getMessage());
      } catch (Exception e) {
        LOG.warn("ec-repair: repair agent on {} failed serving {}: {}", ctx.name(), self, e.toString());
        ChainFrames.writeError(out, self.unit(), "helper " + self + ": " + e);
      }
    } catch (IOException e) {
      LOG.debug("ec-repair: repair agent connection from {} ended: {}", s.getRemoteSocketAddress(), e.toString());
    } finally {
      IOUtils.closeSocket(s);
    }
  }

  /** A value stream of a distributed repair, for the session that expects it (unknown sessions are dropped). */
  private void serveStream(Socket s, DataInputStream in) throws IOException {
    int version = in.readInt();
    if (version != PlanFrames.VERSION) {
      throw new IOException("value stream version " + version + ", this agent speaks " + PlanFrames.VERSION);
    }
    long hi = in.readLong();
    long lo = in.readLong();
    int from = in.readInt();
    PlanSession session = ctx.sessions().get(hi, lo);
    if (session == null) {
      LOG.debug("ec-repair: repair agent on {} got a stream for no session it knows", ctx.name());
      return;
    }
    s.setSoTimeout((int) ctx.stallMillis());
    session.attach(from, s, in);
  }

  /** A helper's ranges for a repair done elsewhere, from this DataNode's replica. */
  private void serveRanges(RangeRequest req, DataOutputStream out) throws IOException {
    try {
      checkReadAccess(req.token(), req.block());
      ranges.serve(req, out);
      rangeRequestsServed.increment();
    } catch (Exception e) {
      LOG.warn("ec-repair: repair agent on {} could not serve ranges of {}: {}", ctx.name(), req.block(), e.toString());
      out.writeInt(RangeRequest.ERROR);
      out.writeUTF(String.valueOf(e.getMessage()));
      out.flush();
    }
  }

  /** Before an agent reads or connects anywhere: the request must carry a valid token for our block. */
  private void checkReadAccess(org.apache.hadoop.security.token.Token<BlockTokenIdentifier> token, ExtendedBlock block)
      throws IOException {
    if (checkTokens) {
      ctx.datanode().getBlockPoolTokenSecretManager().checkAccess(token, null, block,
          BlockTokenIdentifier.AccessMode.READ);
    }
  }

  /** One hop: partial sum in (unless the head), own term added, sum out. */
  private void serveHop(ChainRequest req, DataOutputStream out) throws IOException, InterruptedException {
    ChainRequest.Hop self = req.self();
    ExtendedBlock block = self.block(req.blockPoolId());
    checkReadAccess(self.token(), block);
    int slice = req.sliceBytes();
    long localLength = Math.min(self.numBytes(), req.length());
    LocalSlices local = new LocalSlices(block, localLength, slice);
    UpstreamSlices upstream = null;
    try {
      if (req.upstream() != null) {
        upstream = new UpstreamSlices(req.upstream(), slice);
      }
      CodingTables term = ctx.coder().prepare(new GFMatrix(1, 1, new byte[] {(byte) self.coef()}));
      byte[] headSum = upstream == null ? new byte[slice] : null;
      int slices = 0;
      for (long pos = 0; pos < req.length(); pos += slice) {
        int len = (int) Math.min(slice, req.length() - pos);
        byte[] sum;
        if (upstream != null) {
          sum = upstream.next();
        } else {
          sum = headSum;
          Arrays.fill(sum, 0, len, (byte) 0);
        }
        ByteBuffer sumBuf = ByteBuffer.wrap(sum);
        if (pos < localLength) {
          byte[] mine = local.next();
          ctx.coder().encode(term, new ByteBuffer[] {ByteBuffer.wrap(mine)}, new int[1], new ByteBuffer[] {sumBuf},
              new int[1], len, true);
          local.recycle(mine);
        }
        ChainFrames.writeData(out, sumBuf, len);
        if (upstream != null) {
          upstream.recycle(sum);
        }
        ReadFaults.afterChainSlice(ctx.name(), self.unit(), ++slices);
      }
      if (upstream != null) {
        upstream.awaitEnd();
      }
      ChainFrames.writeEnd(out);
    } finally {
      if (upstream != null) {
        upstream.close();
      }
      local.close();
    }
  }

  /**
   * Connects to the agent of {@code req}'s last hop and sends it the request; the answer's
   * frames follow on the socket's input.
   */
  static Socket open(ChainRequest req, int readTimeoutMs, int connectTimeoutMs) throws ChainFrames.ChainFailure {
    ChainRequest.Hop hop = req.self();
    Socket s = new Socket();
    try {
      s.setTcpNoDelay(true);
      NetUtils.connect(s, new InetSocketAddress(hop.host(), hop.agentPort()), connectTimeoutMs);
      s.setSoTimeout(readTimeoutMs);
      DataOutputStream out = new DataOutputStream(new BufferedOutputStream(s.getOutputStream(), 8 * 1024));
      req.write(out);
      out.flush();
      return s;
    } catch (IOException e) {
      IOUtils.closeSocket(s);
      throw new ChainFrames.ChainFailure(hop.unit(), "cannot reach the repair agent of " + hop + " at port "
          + hop.agentPort() + ": " + e, e);
    }
  }

  /**
   * The bytes the agent of {@code hop} still expects from upstream hops of the chains it serves
   * (its downlink's backlog), or -1 when it does not answer within {@code timeoutMs}.
   */
  static long inboundLoad(ChainRequest.Hop hop, int timeoutMs) {
    try (Socket s = new Socket()) {
      NetUtils.connect(s, new InetSocketAddress(hop.host(), hop.agentPort()), timeoutMs);
      s.setSoTimeout(timeoutMs);
      DataOutputStream out = new DataOutputStream(s.getOutputStream());
      out.writeInt(ChainRequest.LOAD_PROBE);
      out.flush();
      return new DataInputStream(s.getInputStream()).readLong();
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
  }

  /**
   * Slices a reader thread delivers ahead of their use, or the reader's failure: a stall on one
   * side of a hop (its disk, or the link from the hop before) does not stop the other until
   * the queue runs dry or full.
   */
  private final class SliceQueue {
    private final BlockingQueue<Object> ready = new ArrayBlockingQueue<>(READ_AHEAD);
    /** Slices the hop is done with, for the reader to fill again (no allocation per slice). */
    private final BlockingQueue<byte[]> free = new ArrayBlockingQueue<>(READ_AHEAD + 2);
    private final String what;
    private final int slice;
    private long waitMillis;

    /** {@code firstWaitMillis}: how long the first slice may take (later ones: a stall). */
    SliceQueue(String what, int slice, long firstWaitMillis) {
      this.what = what;
      this.slice = slice;
      this.waitMillis = firstWaitMillis;
    }

    /** A slice buffer to fill (its old bytes are not cleared). */
    byte[] buffer() {
      byte[] b = free.poll();
      return b != null ? b : new byte[slice];
    }

    void recycle(byte[] b) {
      free.offer(b);
    }

    void put(Object sliceOrEnd) throws InterruptedException {
      ready.put(sliceOrEnd);
    }

    void fail(Throwable t) {
      ready.clear();
      ready.offer(t);
    }

    Object next() throws IOException, InterruptedException {
      Object o = ready.poll(waitMillis, TimeUnit.MILLISECONDS);
      if (o == null) {
        throw new IOException(what + " delivered nothing for " + waitMillis + " ms");
      }
      waitMillis = ctx.stallMillis();
      if (o instanceof ChainFrames.ChainFailure f) {
        throw f;
      }
      if (o instanceof Throwable t) {
        throw new IOException(what + " failed: " + t, t);
      }
      return o;
    }
  }

  /** The partial sums of the hops before this one, read off their stream on a reader thread. */
  private final class UpstreamSlices implements Closeable {
    private static final Object END = new Object();
    private final SliceQueue queue;
    private final Socket socket;
    private final Future<?> task;
    /** Bytes still expected, counted in the agent's inbound load until received or given up. */
    private long expected;

    UpstreamSlices(ChainRequest upstream, int slice) throws IOException {
      String from = upstream.self().toString();
      int firstWait = upstream.firstSliceMillis(ctx.stallMillis());
      this.queue = new SliceQueue("the chain from " + from, slice, firstWait);
      this.socket = open(upstream, firstWait, ctx.datanode().getDnConf().getSocketTimeout());
      this.expected = upstream.length();
      inbound.addAndGet(expected);
      DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 128 * 1024));
      this.task = ctx.readPool().submit(() -> {
        try {
          for (long pos = 0; pos < upstream.length(); pos += slice) {
            byte[] b = queue.buffer();
            ChainFrames.readData(in, b, (int) Math.min(slice, upstream.length() - pos), from);
            if (pos == 0) {
              socket.setSoTimeout((int) ctx.stallMillis());
            }
            received((int) Math.min(slice, upstream.length() - pos));
            queue.put(b);
          }
          ChainFrames.readEnd(in, from);
          queue.put(END);
        } catch (Throwable t) {
          queue.fail(t);
        }
      });
    }

    byte[] next() throws IOException, InterruptedException {
      Object o = queue.next();
      if (o == END) {
        throw new IOException("the chain ended early");
      }
      return (byte[]) o;
    }

    void recycle(byte[] b) {
      queue.recycle(b);
    }

    void awaitEnd() throws IOException, InterruptedException {
      if (queue.next() != END) {
        throw new IOException("the chain sent more than asked for");
      }
    }

    private synchronized void received(long bytes) {
      long n = Math.min(bytes, expected);
      expected -= n;
      inbound.addAndGet(-n);
    }

    @Override
    public void close() {
      IOUtils.closeSocket(socket);
      task.cancel(true);
      received(Long.MAX_VALUE);
    }
  }

  /** This DataNode's block, read ahead in slices on a reader thread (zeros past its length). */
  private final class LocalSlices implements BlockRangeReader.Sink, Closeable {
    private final SliceQueue ready;
    private final BlockRangeReader reader;
    private final int slice;
    private final long length;
    private final Future<?> task;
    private byte[] filling;
    private int filled;

    LocalSlices(ExtendedBlock block, long length, int slice) {
      this.ready = new SliceQueue("its own block read", slice, ctx.stallMillis());
      this.slice = slice;
      this.length = length;
      DatanodeInfo self = new DatanodeInfoBuilder().setNodeID(ctx.datanode().getDatanodeId()).build();
      DataNodeConnector connector = new DataNodeConnector(ctx.datanode(), ctx.conf(), ctx.readTimeoutMillis(), 0);
      this.reader = new BlockRangeReader(connector, self, block, new RangeListener() {
        @Override
        public void delivered(long bytes) {
        }
      });
      this.task = length == 0 ? null : ctx.readPool().submit(this::readAll);
    }

    private void readAll() {
      try {
        reader.read(List.of(new long[] {0, length}), this);
        if (filling != null) {
          Arrays.fill(filling, filled, slice, (byte) 0); // zeros past the block's end
          ready.put(filling);
        }
      } catch (Throwable t) {
        ready.fail(t);
      } finally {
        reader.close();
      }
    }

    @Override
    public void accept(long blockOffset, ByteBuffer data) throws InterruptedException {
      ByteBuffer src = data.duplicate();
      while (src.hasRemaining()) {
        if (filling == null) {
          filling = ready.buffer();
          filled = 0;
        }
        int n = Math.min(src.remaining(), slice - filled);
        src.get(filling, filled, n);
        filled += n;
        if (filled == slice) {
          ready.put(filling);
          filling = null;
        }
      }
    }

    /** The next slice of the block. */
    byte[] next() throws IOException, InterruptedException {
      return (byte[]) ready.next();
    }

    void recycle(byte[] b) {
      ready.recycle(b);
    }

    @Override
    public void close() {
      reader.close();
      if (task != null) {
        task.cancel(true);
      }
    }
  }
}
