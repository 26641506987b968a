package io.ecrepair.hdfs.agent;

import io.ecrepair.hdfs.transfer.RepairBudget;

import io.ecrepair.exec.NodePart;
import io.ecrepair.exec.PartRunner;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.io.IOUtils;

/**
 * The sending side of one node's part in a distributed repair, as its {@link PartRunner.Outbox}:
 * one stream to the repair agent of each node it sends values to, each written by a thread of
 * its own from a bounded queue, so a slow receiver holds back only its own stream until the
 * queue is full. Every frame carries its CRC32C, and a stream carries values only once its
 * receiver proved it is the agent of the DataNode the plan names ({@link StreamHandshake}).
 */
public final class PeerSenders implements PartRunner.Outbox, Closeable {
  private final RepairBudget budget;
  private static final Object END = new Object();

  private final String name;
  private final String datanode;
  private final long sessionHi;
  private final long sessionLo;
  private final NodePart part;
  private final int pieceBytes;
  private final int controlPeer;
  private final DataOutputStream control;
  private final int node;
  private final long stallMillis;
  private final ExecutorService threads;
  private final FrameBuffers buffers;
  private final Map<Integer, Stream> streams = new java.util.concurrent.ConcurrentSkipListMap<>();
  private volatile boolean closed;
  private int framesSent;

  /** Where a node's values go: its agent, and the DataNode (UUID) that agent must prove it is. */
  public record Receiver(InetSocketAddress agent, String datanodeId) {}

  /** A frame (its first {@code length} bytes of an array of {@link #buffers}) and its checksum. */
  private record Frame(byte[] bytes, int length, int crc) {}

  private static final class Stream {
    final BlockingQueue<Object> queue;
    volatile Socket socket;
    volatile Future<?> writer;
    volatile IOException failure;

    Stream(int window) {
      queue = new ArrayBlockingQueue<>(window);
    }
  }

  /**
   * The senders of {@code part}, which {@link #open} connects.
   *
   * @param datanode names this DataNode for fault injection
   * @param buffers where the frames' arrays come from and go back to once written
   * @param budget what every frame is sent under ({@link RepairBudget#UNLIMITED} for a client's read)
   */
  public PeerSenders(String name, String datanode, long sessionHi, long sessionLo, NodePart part, int pieceBytes,
                     long stallMillis, ExecutorService threads, FrameBuffers buffers, RepairBudget budget) {
    this(name, datanode, sessionHi, sessionLo, part, pieceBytes, -1, null, stallMillis, threads, buffers, budget);
  }

  /**
   * As above, except that the values for node {@code controlPeer} (the requester, a client that
   * listens nowhere) go into {@code control}, the open connection its request came on: no
   * stream header and no proof there, since the requester itself dialled this agent and
   * authenticated with a token for its block. The caller writes on {@code control} again only
   * after {@link #finish}.
   */
  PeerSenders(String name, String datanode, long sessionHi, long sessionLo, NodePart part, int pieceBytes,
              int controlPeer, DataOutputStream control, long stallMillis, ExecutorService threads,
              FrameBuffers buffers, RepairBudget budget) {
    this.budget = budget;
    this.name = name;
    this.datanode = datanode;
    this.sessionHi = sessionHi;
    this.sessionLo = sessionLo;
    this.part = part;
    this.pieceBytes = pieceBytes;
    this.controlPeer = controlPeer;
    this.control = control;
    this.node = part.node();
    this.stallMillis = stallMillis;
    this.threads = threads;
    this.buffers = buffers;
  }

  /**
   * Connects to every node the part sends to (at {@code receivers}) and starts their writers;
   * {@link #close}, from any thread, ends it.
   *
   * @param dialer dials as this DataNode, with a token it minted for its own block of the group
   */
  public void open(Map<Integer, Receiver> receivers, AgentChannels.Dialer dialer, int connectTimeoutMs)
      throws IOException {
    Map<Integer, Integer> frames = PlanFrames.maxFrames(part.outbound(), pieceBytes);
    try {
      for (NodePart.Group g : part.outbound()) {
        if (closed) {
          throw new IOException(name + ": the streams were closed");
        }
        if (streams.containsKey(g.peer())) {
          continue;
        }
        Stream st = new Stream(PlanFrames.window(frames.get(g.peer()), frames.size()));
        streams.put(g.peer(), st);
        if (g.peer() == controlPeer) {
          st.writer = threads.submit(() -> write(st, control, g.peer()));
          continue;
        }
        Receiver to = receivers.get(g.peer());
        AgentChannels.Channel c;
        try {
          c = dialer.dial(to.agent(), connectTimeoutMs, (int) stallMillis, 0);
        } catch (IOException e) {
          throw new IOException(name + " cannot reach the repair agent of node " + g.peer() + " at " + to.agent()
              + ": " + e, e);
        }
        st.socket = c.socket();
        budget.mark(c.socket());
        if (closed) {
          c.close();
          throw new IOException(name + ": the streams were closed");
        }
        DataOutputStream out = new DataOutputStream(new BufferedOutputStream(c.out(), 128 * 1024));
        // No value leaves before the receiver proved it is the DataNode the plan names, at the
        // address dialled: the challenge is minted here, so whoever sent the part request cannot answer it.
        dialer.openStream(c, out, new DataInputStream(c.in()), sessionHi, sessionLo, node, to.datanodeId(),
            "the repair agent of node " + g.peer() + " at " + to.agent());
        st.writer = threads.submit(() -> write(st, out, g.peer()));
      }
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
  }

  /**
   * The most bytes of frames the senders of {@code part} hold: per stream its queue full, one
   * frame being written and one waiting to be queued.
   */
  public static long bytesHeld(NodePart part, int pieceBytes) {
    return PlanFrames.bytesHeld(part.outbound(), pieceBytes, 2);
  }

  private void write(Stream st, DataOutputStream out, int peer) {
    try {
      while (true) {
        Object o = st.queue.take();
        if (o == END) {
          PlanFrames.writeEnd(out);
          return;
        }
        Frame f = (Frame) o;
        budget.sending(f.length());
        PlanFrames.writeFrame(out, f.bytes(), f.length(), f.crc());
        buffers.give(f.bytes());
        if (st.queue.isEmpty()) {
          out.flush();
        }
      }
    } catch (IOException e) {
      st.failure = new IOException(name + ": the stream to node " + peer + " broke: " + e, e);
    } catch (InterruptedException e) {
      st.failure = new IOException(name + ": the stream to node " + peer + " was stopped");
    }
  }

  @Override
  public void send(int slice, NodePart.Group group, ByteBuffer src, int off, int len)
      throws IOException, InterruptedException {
    Stream st = streams.get(group.peer());
    byte[] b = buffers.take(len);
    src.get(off, b, 0, len);
    int crc = PlanFrames.crc(b, 0, len);
    ReadFaults.beforeFrameSent(datanode, node, ++framesSent, b, len);
    put(st, new Frame(b, len, crc), group.peer());
  }

  private void put(Stream st, Object o, int peer) throws IOException, InterruptedException {
    if (st.failure != null) {
      throw st.failure;
    }
    // In short waits, so that a part cancelled while its receiver holds back notices soon.
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(stallMillis);
    while (!st.queue.offer(o, Math.min(stallMillis, 100), TimeUnit.MILLISECONDS)) {
      if (closed) {
        throw new IOException(name + ": the streams were closed");
      }
      if (st.failure != null) {
        throw st.failure;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IOException(name + ": node " + peer + " took nothing for " + stallMillis + " ms");
      }
    }
  }

  /** Ends every stream and waits until all was written. */
  public void finish() throws IOException, InterruptedException {
    for (Map.Entry<Integer, Stream> e : streams.entrySet()) {
      put(e.getValue(), END, e.getKey());
    }
    for (Map.Entry<Integer, Stream> e : streams.entrySet()) {
      Stream st = e.getValue();
      try {
        st.writer.get(stallMillis, TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException x) {
        throw new IOException(name + ": the stream to node " + e.getKey() + " did not finish: " + x, x);
      }
      if (st.failure != null) {
        throw st.failure;
      }
    }
  }

  @Override
  public void close() {
    closed = true;
    List<Future<?>> writers = new ArrayList<>();
    for (Stream st : streams.values()) {
      IOUtils.closeSocket(st.socket);
      if (st.writer != null) {
        writers.add(st.writer);
      }
    }
    writers.forEach(w -> w.cancel(true));
  }
}
