package io.ecrepair.hdfs.agent;

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
import java.util.TreeMap;
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
 * receiver proved it is the agent of a DataNode of this cluster.
 */
public final class PeerSenders implements PartRunner.Outbox, Closeable {
  private static final int WINDOW = 16;
  private static final Object END = new Object();

  private final String name;
  private final String datanode;
  private final int node;
  private final long stallMillis;
  private final FrameBuffers buffers;
  private final Map<Integer, Stream> streams = new TreeMap<>();
  private int framesSent;

  /** A frame (its first {@code length} bytes of an array of {@link #buffers}) and its checksum. */
  private record Frame(byte[] bytes, int length, int crc) {}

  private static final class Stream {
    final BlockingQueue<Object> queue = new ArrayBlockingQueue<>(WINDOW);
    Socket socket;
    Future<?> writer;
    volatile IOException failure;
  }

  /**
   * Connects to every node {@code part} sends to and starts their writers.
   *
   * @param datanode names this DataNode for fault injection
   * @param buffers where the frames' arrays come from and go back to once written
   */
  public PeerSenders(String name, String datanode, long sessionHi, long sessionLo, NodePart part,
              Map<Integer, InetSocketAddress> agents, AgentChannels.Dialer dialer, int connectTimeoutMs,
              long stallMillis, ExecutorService threads, FrameBuffers buffers) throws IOException {
    this(name, datanode, sessionHi, sessionLo, part, agents, -1, null, dialer, connectTimeoutMs, stallMillis, threads,
        buffers);
  }

  /**
   * As above, except that the values for node {@code controlPeer} (the requester, a client that
   * listens nowhere) go into {@code control}, the open connection its request came on: no
   * stream header and no proof there, since the requester itself dialled this agent and
   * authenticated with a token for its block. The caller writes on {@code control} again only
   * after {@link #finish}.
   */
  PeerSenders(String name, String datanode, long sessionHi, long sessionLo, NodePart part,
              Map<Integer, InetSocketAddress> agents, int controlPeer, DataOutputStream control,
              AgentChannels.Dialer dialer, int connectTimeoutMs, long stallMillis, ExecutorService threads,
              FrameBuffers buffers) throws IOException {
    this.name = name;
    this.datanode = datanode;
    this.node = part.node();
    this.stallMillis = stallMillis;
    this.buffers = buffers;
    try {
      for (NodePart.Group g : part.outbound()) {
        if (streams.containsKey(g.peer())) {
          continue;
        }
        InetSocketAddress to = agents.get(g.peer());
        Stream st = new Stream();
        streams.put(g.peer(), st);
        if (g.peer() == controlPeer) {
          st.writer = threads.submit(() -> write(st, control, g.peer()));
          continue;
        }
        AgentChannels.Channel c;
        try {
          c = dialer.dial(to, connectTimeoutMs, (int) stallMillis, 0);
        } catch (IOException e) {
          throw new IOException(name + " cannot reach the repair agent of node " + g.peer() + " at " + to + ": " + e, e);
        }
        st.socket = c.socket();
        DataOutputStream out = new DataOutputStream(new BufferedOutputStream(c.out(), 128 * 1024));
        PlanFrames.writeStreamHeader(out, sessionHi, sessionLo, node);
        // No value leaves before the receiver proved it is a DataNode's agent (AgentProof): the
        // challenge is minted here, so whoever sent the part request cannot answer it.
        AgentProof.Challenge challenge = dialer.challenge();
        challenge.write(out);
        out.flush();
        challenge.expect(new DataInputStream(c.in()), null, "the repair agent of node " + g.peer() + " at " + to,
            PlanFrames.ERROR, AgentProof.Purpose.RECEIVE);
        st.writer = threads.submit(() -> write(st, out, g.peer()));
      }
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
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
    if (!st.queue.offer(o, stallMillis, TimeUnit.MILLISECONDS)) {
      throw new IOException(name + ": node " + peer + " took nothing for " + stallMillis + " ms");
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
