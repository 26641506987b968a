package io.ecrepair.hdfs.agent;

import io.ecrepair.hdfs.transfer.RepairBudget;

import io.ecrepair.exec.NodePart;
import io.ecrepair.exec.PartRunner;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.io.IOUtils;

/**
 * The receiving side of one node's part in a distributed repair: one bounded queue of frames
 * per node that sends it values, filled by the agent threads that read those nodes' streams
 * (checksums verified there) and emptied by the part's {@link PartRunner} as its
 * {@link PartRunner.Inbox}. A full queue stops its stream's reader, so a fast sender is held
 * back by TCP; a sender silent for a stall, a bad frame or a stream that ends early fails the
 * part; {@link #cancel} ends it from outside. Each sender's stream is taken only from the
 * DataNode the plan names for it ({@link StreamHandshake}), and only once.
 */
public final class PlanSession implements PartRunner.Inbox {
  /** What every frame received is taken under ({@link RepairBudget#UNLIMITED} for a client's read). */
  private final RepairBudget budget;
  private static final Object END = new Object();

  private final String name;
  private final ExtendedBlock block;
  private final long stallMillis;
  private final FrameBuffers buffers;
  private final Map<Integer, BlockingQueue<Object>> queues = new ConcurrentHashMap<>();
  /** Per sending node: the longest frame it may send, and the DataNode the plan names for it. */
  private final Map<Integer, Integer> maxFrames;
  private final Map<Integer, String> senders;
  private final Set<Integer> attached = ConcurrentHashMap.newKeySet();
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  /** The agent's count of bytes still expected by its repairs (its downlink's backlog). */
  private final AtomicLong inbound;
  private long expected;
  private volatile String cancelled;

  /**
   * @param block a block of the repaired group held or rebuilt here: the challenges this session
   *     makes its senders answer are about it
   * @param senders the DataNode id (UUID) of every node that sends this part values
   * @param expectedBytes what the part will receive in all, counted in {@code inbound} until it arrives
   * @param buffers where the frames' arrays come from and go back to once the part took them
   */
  public PlanSession(String name, NodePart part, ExtendedBlock block, Map<Integer, String> senders, int pieceBytes,
                     long stallMillis, AtomicLong inbound, long expectedBytes, FrameBuffers buffers,
                     RepairBudget budget) {
    this.name = name;
    this.budget = budget;
    this.block = block;
    this.buffers = buffers;
    this.stallMillis = stallMillis;
    this.maxFrames = PlanFrames.maxFrames(part.inbound(), pieceBytes);
    for (Map.Entry<Integer, Integer> e : maxFrames.entrySet()) {
      if (senders.get(e.getKey()) == null) {
        throw new IllegalArgumentException("no DataNode named for node " + e.getKey() + ", which sends " + name);
      }
      queues.put(e.getKey(), new ArrayBlockingQueue<>(PlanFrames.window(e.getValue(), maxFrames.size())));
    }
    this.senders = Map.copyOf(senders);
    this.inbound = inbound;
    this.expected = expectedBytes;
    inbound.addAndGet(expectedBytes);
  }

  /** What its frames are taken under: {@link RepairBudget#UNLIMITED} for a client's read. */
  public RepairBudget budget() {
    return budget;
  }

  /**
   * The most bytes of frames a session of {@code part} holds: per sender its queue full, one
   * frame being read into and one being copied out.
   */
  public static long bytesHeld(NodePart part, int pieceBytes) {
    return PlanFrames.bytesHeld(part.inbound(), pieceBytes, 2);
  }

  String name() {
    return name;
  }

  ExtendedBlock block() {
    return block;
  }

  /** The DataNode that node {@code from} must be to attach its stream; null when it sends none or already attached. */
  String expectedSender(int from) {
    return attached.contains(from) ? null : senders.get(from);
  }

  /** Why the part was cancelled, or null while it was not. */
  public String cancelled() {
    return cancelled;
  }

  /**
   * Reads node {@code from}'s stream into its queue until the stream ends (on the calling
   * thread); a failure is queued for the part to meet and closes {@code socket}. After the end
   * mark the connection stays open for its owner (a control connection carries DONE next).
   */
  public void attach(int from, Socket socket, DataInputStream in) {
    BlockingQueue<Object> q = queues.get(from);
    if (q == null || !attached.add(from)) {
      IOUtils.closeSocket(socket);
      return; // not a sender of this part, or a second stream from it: nobody's frames are taken
    }
    sockets.add(socket);
    String who = "node " + from + " of " + name;
    try {
      int maxFrame = maxFrames.get(from);
      while (cancelled == null) {
        PlanFrames.Frame f = PlanFrames.readFrame(in, maxFrame, who, buffers);
        if (f != null) {
          received(f.length());
          budget.received(f.length());
        }
        if (!q.offer(f == null ? END : f, stallMillis, TimeUnit.MILLISECONDS)) {
          throw new IOException(name + " took no frame from " + who + " for " + stallMillis + " ms");
        }
        if (f == null) {
          return;
        }
      }
    } catch (IOException | InterruptedException e) {
      IOUtils.closeSocket(socket);
      q.clear();
      q.offer(new IOException("the stream from " + who + " failed: " + e, e));
    } finally {
      sockets.remove(socket);
    }
  }

  @Override
  public void receive(int slice, NodePart.Group group, ByteBuffer dst, int off, int len)
      throws IOException, InterruptedException {
    BlockingQueue<Object> q = queues.get(group.peer());
    Object o = q.poll(stallMillis, TimeUnit.MILLISECONDS);
    if (cancelled != null) {
      throw new IOException(name + " was cancelled: " + cancelled);
    }
    if (o == null) {
      throw new IOException("node " + group.peer() + " sent " + name + " nothing for " + stallMillis + " ms");
    }
    if (o instanceof IOException e) {
      throw new PlanFrames.FrameFailure(String.valueOf(e.getMessage()), e);
    }
    if (o == END) {
      throw new PlanFrames.FrameFailure("node " + group.peer() + " ended its stream to " + name + " early", null);
    }
    PlanFrames.Frame f = (PlanFrames.Frame) o;
    if (f.length() != len) {
      throw new PlanFrames.FrameFailure("node " + group.peer() + " sent " + name + " a frame of " + f.length()
          + " bytes where " + len + " were due", null);
    }
    dst.put(off, f.bytes(), 0, len);
    buffers.give(f.bytes());
  }

  /** Every sender's stream must have ended. */
  public void awaitEnds() throws IOException, InterruptedException {
    for (Map.Entry<Integer, BlockingQueue<Object>> e : queues.entrySet()) {
      Object o = e.getValue().poll(stallMillis, TimeUnit.MILLISECONDS);
      if (o != END) {
        throw new PlanFrames.FrameFailure("node " + e.getKey() + " did not end its stream to " + name
            + (o == null ? "" : " after its last frame"), o instanceof Throwable t ? t : null);
      }
    }
  }

  /** Ends the part: the runner's next receive fails, and the senders' streams are closed. */
  public void cancel(String why) {
    if (cancelled == null) {
      cancelled = why;
    }
    for (BlockingQueue<Object> q : queues.values()) {
      q.clear();
      q.offer(new IOException(name + " was cancelled: " + why));
    }
    for (Socket s : sockets) {
      IOUtils.closeSocket(s);
    }
    received(Long.MAX_VALUE);
  }

  private synchronized void received(long bytes) {
    long n = Math.min(bytes, expected);
    expected -= n;
    inbound.addAndGet(-n);
  }
}
