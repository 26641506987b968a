package io.ecrepair.exec;

import io.ecrepair.ecdag.Ecdag;
import io.ecrepair.gf.RegionCoder;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.LongAdder;

/**
 * Runs a colored repair graph across simulated nodes in one JVM, on real bytes: every node
 * runs its {@link NodePart} with the same {@link PartRunner} the DataNodes' repair agents run,
 * on a thread of its own, and a group of values reaches another node only through an
 * in-memory link between the two (once per value, destination node and slice). It counts the
 * bytes each node sends and receives, so a test can hold them against the plan's traffic
 * table, and the requestor's output against the lost block.
 *
 * <p>Blocks are sequences of cell rows; a cell holds alpha sub-chunks of {@code s} bytes
 * (docs/architecture.md#cell-layout, without tail). The graph describes one cell row and runs on every
 * row, each sub-chunk cut into slices of at most {@code sliceBytes} that flow through the
 * nodes one after another (the slices of repair pipelining); within a slice the nodes run
 * level by level of the graph.
 */
public final class SimulatedCluster {
  /** The rebuilt blocks (by lost block, ascending) and the bytes each node sent and received. */
  public record Result(int[] lostBlocks, ByteBuffer[] repaired, long[] bytesIn, long[] bytesOut, long transfers) {
    public ByteBuffer repaired(int block) {
      for (int i = 0; i < lostBlocks.length; i++) {
        if (lostBlocks[i] == block) {
          return repaired[i];
        }
      }
      throw new IllegalArgumentException("block " + block + " is not rebuilt by this graph");
    }

    public long totalBytes() {
      long t = 0;
      for (long b : bytesOut) {
        t += b;
      }
      return t;
    }
  }

  private final RegionCoder coder;

  public SimulatedCluster(RegionCoder coder) {
    this.coder = coder;
  }

  /**
   * Runs the graph colored by {@code color} over nodes 0..nodeCount-1.
   *
   * @param blocks block b's bytes (node b holds block b); null where a block is not stored
   * @param subchunkBytes s, bytes per sub-chunk; a cell row is alpha x s bytes
   * @param sliceBytes the largest piece of a sub-chunk moved at once
   */
  public Result run(Ecdag graph, int[] color, int nodeCount, ByteBuffer[] blocks, int subchunkBytes, int sliceBytes) {
    if (subchunkBytes < 1 || sliceBytes < 1) {
      throw new IllegalArgumentException("sub-chunk and slice sizes must be positive");
    }
    int alpha = graph.subchunkCount();
    long cell = (long) alpha * subchunkBytes;
    long rowsL = -1;
    for (Ecdag.Vertex v : graph.leaves()) {
      ByteBuffer b = v.block() < blocks.length ? blocks[v.block()] : null;
      if (b == null) {
        throw new IllegalArgumentException("the graph reads block " + v.block() + ", which is not stored");
      }
      if (b.limit() % cell != 0) {
        throw new IllegalArgumentException("block " + v.block() + " is " + b.limit()
            + " bytes, not whole cell rows of " + cell);
      }
      long r = b.limit() / cell;
      if (rowsL >= 0 && r != rowsL) {
        throw new IllegalArgumentException("blocks differ in length");
      }
      rowsL = r;
    }
    int rows = (int) Math.max(0, rowsL);
    Map<Integer, NodePart> parts = NodePart.compile(graph, color);
    TreeSet<Integer> lost = new TreeSet<>();
    for (Ecdag.Vertex v : graph.repaired()) {
      lost.add(v.block());
    }
    int[] lostBlocks = lost.stream().mapToInt(Integer::intValue).toArray();
    ByteBuffer[] out = new ByteBuffer[lostBlocks.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = ByteBuffer.allocate((int) (rows * cell));
    }
    int slice = Math.min(sliceBytes, subchunkBytes);
    int slicesPerSubchunk = (subchunkBytes + slice - 1) / slice;
    long[] in = new long[nodeCount];
    long[] sent = new long[nodeCount];
    LongAdder transfers = new LongAdder();
    // One FIFO per (from, to): a node's frames to another arrive in the order it sent them.
    Map<Long, BlockingQueue<byte[]>> links = new ConcurrentHashMap<>();
    java.util.function.BiFunction<Integer, Integer, BlockingQueue<byte[]>> link =
        (from, to) -> links.computeIfAbsent((long) from * nodeCount + to, x -> new LinkedBlockingQueue<>());
    ExecutorService threads = Executors.newFixedThreadPool(Math.max(1, parts.size()));
    try {
      List<Future<?>> running = new ArrayList<>();
      for (NodePart part : parts.values()) {
        int node = part.node();
        running.add(threads.submit(() -> {
          try (PartRunner runner = new PartRunner(part, coder, slice)) {
          for (int row = 0; row < rows; row++) {
            long rowBase = row * cell;
            for (int piece = 0; piece < slicesPerSubchunk; piece++) {
              int o = piece * slice;
              int len = Math.min(slice, subchunkBytes - o);
              PartRunner.Leaves leaves = (t, subs, dst, l) -> {
                for (int j : subs) {
                  dst.put(j * l, blocks[node], (int) (rowBase + (long) j * subchunkBytes + o), l);
                }
              };
              PartRunner.Inbox inbox = (t, g, dst, off, l) -> {
                byte[] f = link.apply(g.peer(), node).take();
                if (f.length != l) {
                  throw new IllegalStateException("frame of " + f.length + " bytes where " + l + " were due");
                }
                dst.put(off, f);
              };
              PartRunner.Outbox outbox = (t, g, src, off, l) -> {
                byte[] f = new byte[l];
                src.get(off, f);
                transfers.add(g.vertices().length);
                link.apply(node, g.peer()).put(f);
              };
              PartRunner.Results results = (t, r, src, off, l) -> {
                int i = java.util.Arrays.binarySearch(lostBlocks, r.block());
                synchronized (out[i]) {
                  out[i].put((int) (rowBase + (long) r.subchunk() * subchunkBytes + o), src, off, l);
                }
              };
              runner.runSlice(row * slicesPerSubchunk + piece, len, leaves, inbox, outbox, results);
            }
          }
          synchronized (in) {
            in[node] += runner.bytesIn();
            sent[node] += runner.bytesOut();
          }
          }
          return null;
        }));
      }
      for (Future<?> f : running) {
        try {
          f.get();
        } catch (ExecutionException e) {
          Throwable c = e.getCause();
          if (c instanceof RuntimeException re) {
            throw re;
          }
          throw new IllegalStateException("a simulated node failed: " + c, c);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted", e);
        }
      }
    } finally {
      threads.shutdownNow();
    }
    return new Result(lostBlocks, out, in, sent, transfers.sum());
  }
}
