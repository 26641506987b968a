package io.ecrepair.exec;

import io.ecrepair.gf.BufferPool;
import io.ecrepair.gf.LinearProgram;
import io.ecrepair.gf.RegionCoder;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

/**
 * Runs one node's {@link NodePart} slice after slice: the row loop of a distributed repair,
 * the same wherever the node is (a simulated node, a DataNode's repair agent, the rebuilding
 * DataNode or a client). A slice is the same byte range of every sub-chunk of a cell row, so
 * every value of a slice is {@code len} bytes; the graph runs on it level by level: first the
 * groups of lower levels are received, then the level's steps run (one native call), then the
 * groups of that level are sent. Since every node follows the same order and a group only
 * waits for groups of lower levels, nodes that feed each other never wait on each other.
 *
 * <p>How bytes arrive and leave is the caller's: {@link Leaves}, {@link Inbox}, {@link Outbox}
 * and {@link Results}. Not thread-safe: one runner per node and repair, closed when it is done.
 */
public final class PartRunner implements AutoCloseable {
  /** Fills the node's own sub-chunks of a slice: sub-chunk j's {@code len} bytes at {@code j * len}. */
  public interface Leaves {
    void fill(int slice, int[] subchunks, ByteBuffer dst, int len) throws IOException, InterruptedException;
  }

  /** Delivers the next frame of group {@code group} from its peer: exactly {@code len} bytes into dst at off. */
  public interface Inbox {
    void receive(int slice, NodePart.Group group, ByteBuffer dst, int off, int len)
        throws IOException, InterruptedException;
  }

  /** Takes a group's frame (src's bytes [off, off+len)); src may be reused once this returns. */
  public interface Outbox {
    void send(int slice, NodePart.Group group, ByteBuffer src, int off, int len) throws IOException, InterruptedException;
  }

  /** Takes a repaired sub-chunk's slice. */
  public interface Results {
    void deliver(int slice, NodePart.Result result, ByteBuffer src, int off, int len)
        throws IOException, InterruptedException;
  }

  private final NodePart part;
  private final RegionCoder coder;
  private final BufferPool pool;
  private final int maxLen;
  private final ByteBuffer leafBuffer;
  private final ByteBuffer values;
  private final ByteBuffer frame;
  private final int[] subchunks;
  private long bytesIn;
  private long bytesOut;

  /** @param maxLen the longest slice (bytes per value) this runner will see */
  public PartRunner(NodePart part, RegionCoder coder, int maxLen) {
    this(part, coder, maxLen, new BufferPool(0));
  }

  /**
   * A runner whose buffers come from {@code pool} (fresh direct buffers cost page faults; a
   * DataNode running many parts reuses them), to be given back with {@link #close}.
   */
  public PartRunner(NodePart part, RegionCoder coder, int maxLen, BufferPool pool) {
    this.part = part;
    this.coder = coder;
    this.maxLen = maxLen;
    this.pool = pool;
    this.subchunks = part.leafSubchunks();
    long[] sizes = bufferSizes(part, maxLen);
    this.leafBuffer = pool.take((int) sizes[0]);
    this.values = pool.take((int) sizes[1]);
    this.frame = pool.take((int) sizes[2]);
  }

  /**
   * The memory a runner of {@code part} for slices of up to {@code maxLen} bytes holds: its three
   * buffers (direct), and its steps compiled for the coder (32 bytes of tables per coefficient,
   * kept once and built once more, and each step's code).
   */
  public static long bytesHeld(NodePart part, int maxLen) {
    long[] sizes = bufferSizes(part, maxLen);
    return sizes[0] + sizes[1] + sizes[2] + 64 * part.coefficients() + 256L * part.steps().size();
  }

  /** Its three buffers: the node's own sub-chunks of a slice, every value's slot, one outgoing frame. */
  private static long[] bufferSizes(NodePart part, int maxLen) {
    int largest = 0;
    for (NodePart.Group g : part.outbound()) {
      largest = Math.max(largest, g.vertices().length);
    }
    long[] sizes = {pooled((long) part.alpha() * maxLen), pooled((long) part.slots() * maxLen),
        pooled((long) largest * maxLen)};
    for (long size : sizes) {
      if (size > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("a part of " + part.slots() + " values of " + maxLen
            + " bytes needs a buffer of " + size + " bytes");
      }
    }
    return sizes;
  }

  /** A buffer size that parts of different plans share (a power of two), so pooled buffers are reused. */
  private static long pooled(long bytes) {
    return bytes <= 1 ? 1 : Long.highestOneBit(bytes - 1) << 1;
  }

  /** Gives the buffers back to the pool; the runner is not used after. */
  @Override
  public void close() {
    pool.give(leafBuffer);
    pool.give(values);
    pool.give(frame);
  }

  public NodePart part() {
    return part;
  }

  /** Bytes received and sent so far. */
  public long bytesIn() {
    return bytesIn;
  }

  public long bytesOut() {
    return bytesOut;
  }

  /** Runs slice {@code slice}, whose values are {@code len} bytes each. */
  public void runSlice(int slice, int len, Leaves leaves, Inbox inbox, Outbox outbox, Results results)
      throws IOException, InterruptedException {
    if (len < 1 || len > maxLen) {
      throw new IllegalArgumentException("slice of " + len + " bytes per value, runner sized for 1.." + maxLen);
    }
    if (subchunks.length > 0) {
      leaves.fill(slice, subchunks, leafBuffer, len);
    }
    List<NodePart.Group> in = part.inbound();
    List<NodePart.Group> out = part.outbound();
    int nextIn = 0;
    int nextOut = 0;
    ByteBuffer[] buffers = {leafBuffer, values};
    int[] bases = {0, 0};
    int level = 0;
    for (Map.Entry<Integer, LinearProgram> step : part.programs().entrySet()) {
      level = step.getKey();
      nextOut = send(slice, out, nextOut, level - 1, len, outbox);
      nextIn = receive(slice, in, nextIn, level - 1, len, inbox);
      coder.run(step.getValue(), buffers, bases, len);
    }
    send(slice, out, nextOut, Integer.MAX_VALUE, len, outbox);
    receive(slice, in, nextIn, Integer.MAX_VALUE, len, inbox);
    for (NodePart.Result r : part.results()) {
      LinearProgram.Ref ref = part.ref(r.vertex());
      results.deliver(slice, r, buffers[ref.buffer()], ref.unit() * len, len);
    }
  }

  /** Receives the groups up to {@code maxLevel} from index {@code next}; returns the next index. */
  private int receive(int slice, List<NodePart.Group> in, int next, int maxLevel, int len, Inbox inbox)
      throws IOException, InterruptedException {
    while (next < in.size() && in.get(next).level() <= maxLevel) {
      NodePart.Group g = in.get(next++);
      int n = g.vertices().length * len;
      inbox.receive(slice, g, values, part.slotOf(g.vertices()[0]) * len, n);
      bytesIn += n;
    }
    return next;
  }

  /** Sends the groups up to {@code maxLevel} (their values exist by now); returns the next index. */
  private int send(int slice, List<NodePart.Group> out, int next, int maxLevel, int len, Outbox outbox)
      throws IOException, InterruptedException {
    while (next < out.size() && out.get(next).level() <= maxLevel) {
      NodePart.Group g = out.get(next++);
      int at = 0;
      for (int v : g.vertices()) {
        LinearProgram.Ref ref = part.ref(v);
        ByteBuffer src = ref.buffer() == 0 ? leafBuffer : values;
        frame.put(at, src, ref.unit() * len, len);
        at += len;
      }
      outbox.send(slice, g, frame, 0, at);
      bytesOut += at;
    }
    return next;
  }
}
