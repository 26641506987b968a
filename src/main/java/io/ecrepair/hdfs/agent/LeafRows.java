package io.ecrepair.hdfs.agent;

import io.ecrepair.exec.PartRunner;
import io.ecrepair.exec.SliceGeometry;
import io.ecrepair.gf.BufferPool;
import io.ecrepair.gf.Buffers;
import io.ecrepair.hdfs.transfer.BlockRangeReader;
import io.ecrepair.hdfs.transfer.RangeSource;
import io.ecrepair.layout.ByteRanges;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * A participant's own sub-chunks for its part of a distributed repair, as the runner's
 * {@link PartRunner.Leaves}: a reader thread reads just those sub-chunks of every row from the
 * replica (checksums verified) into compact row buffers (sub-chunk after sub-chunk, nothing
 * else), a few rows ahead of their use. Bytes past the end of the replica, or past what the
 * repair needs of it (the read limit), are zeros, as the striped layout pads short cells.
 */
final class LeafRows implements PartRunner.Leaves, BlockRangeReader.Sink {
  /**
   * Rows read ahead: three, fewer where rows are large (a Butterfly helper reads whole 4 MiB
   * cells), at most {@link #AHEAD_BYTES} of them beyond the first two.
   */
  private static final int DEPTH = 3;
  private static final long AHEAD_BYTES = 8L << 20;

  private final RangeSource source;
  private final SliceGeometry geometry;
  private final int cellSize;
  private final int s;
  /** Sub-chunk -> its place in a compact row (-1 when not read). */
  private final int[] place;
  private final int rowBytes;
  private final long stallMillis;
  private final BlockingQueue<Object> ready;
  private final BlockingQueue<ByteBuffer> free;
  private final List<ByteBuffer> owned = new ArrayList<>();
  private final BufferPool pool;
  /** The replica ranges read, runs of adjacent sub-chunks merged. */
  private final ByteRanges ranges = new ByteRanges();
  /** Bytes read per row (those inside the replica), from the first row on. */
  private final int[] rowReads;
  private Future<?> task;
  private volatile boolean startedRunning;
  private final java.util.concurrent.CountDownLatch readerDone = new java.util.concurrent.CountDownLatch(1);
  private ByteBuffer filling;
  private int filled;
  private int fillingRow;
  private ByteBuffer current;

  LeafRows(RangeSource source, int[] subchunks, int alpha, SliceGeometry geometry, int cellSize, long readLimit,
           long stallMillis, BufferPool pool) {
    this.pool = pool;
    this.source = source;
    this.geometry = geometry;
    this.cellSize = cellSize;
    this.s = geometry.subchunkBytes();
    this.place = new int[alpha];
    Arrays.fill(place, -1);
    for (int i = 0; i < subchunks.length; i++) {
      place[subchunks[i]] = i;
    }
    this.rowBytes = subchunks.length * s;
    this.stallMillis = stallMillis;
    this.rowReads = new int[geometry.rows()];
    this.fillingRow = geometry.firstRow();
    for (int r = geometry.firstRow(); r < geometry.firstRow() + geometry.rows(); r++) {
      for (int i = 0; i < subchunks.length; ) {
        int j = i;
        while (j + 1 < subchunks.length && subchunks[j + 1] == subchunks[j] + 1) {
          j++;
        }
        long off = (long) r * cellSize + (long) subchunks[i] * s;
        long len = Math.min((long) (j - i + 1) * s, readLimit - off);
        i = j + 1;
        if (len <= 0) {
          continue;
        }
        rowReads[r - geometry.firstRow()] += (int) len;
        ranges.add(off, len);
      }
    }
    int depth = depth(rowBytes);
    ready = new ArrayBlockingQueue<>(depth + 1);
    free = new ArrayBlockingQueue<>(depth + 1);
    for (int i = 0; i < depth; i++) {
      ByteBuffer b = pool.take(Math.max(1, rowBytes));
      owned.add(b);
      free.add(b);
    }
  }

  /** Memory a range to read takes: its array in the list here and in the merged spans of the read, with slack. */
  private static final int BYTES_PER_RANGE = 96;

  /**
   * The memory reading sub-chunks {@code subchunks} (ascending) of every row of {@code geometry}
   * holds: its row buffers (direct), the ranges it reads (a run of adjacent sub-chunks per row is
   * one), and its count of bytes per row.
   */
  static long bytesHeld(int[] subchunks, SliceGeometry geometry) {
    int runs = 0;
    for (int i = 0; i < subchunks.length; i++) {
      if (i == 0 || subchunks[i] != subchunks[i - 1] + 1) {
        runs++;
      }
    }
    long rows = geometry.rows();
    long rowBytes = Math.max(1L, (long) subchunks.length * geometry.subchunkBytes());
    return depth(rowBytes) * rowBytes
        + rows * runs * BYTES_PER_RANGE + rows * Integer.BYTES;
  }

  /** Row buffers for rows of {@code rowBytes}: {@link #DEPTH}, or two where three would pass {@link #AHEAD_BYTES}. */
  private static int depth(long rowBytes) {
    return DEPTH * rowBytes <= AHEAD_BYTES ? DEPTH : 2;
  }

  /** Starts reading on one of {@code threads}. */
  LeafRows start(ExecutorService threads) {
    if (rowBytes > 0) {
      task = threads.submit(() -> {
        startedRunning = true;
        try {
          source.read(ranges.ranges(), this);
          completeRowsBefore(geometry.firstRow() + geometry.rows()); // rows past the replica's end: zeros
        } catch (Throwable t) {
          ready.clear();
          ready.offer(t instanceof IOException e ? e : new IOException("reading the local sub-chunks: " + t, t));
        } finally {
          readerDone.countDown();
        }
      });
    }
    return this;
  }

  /** Hands on every row before {@code row} whose reads are all in (their unread bytes zeros). */
  private void completeRowsBefore(int row) throws IOException, InterruptedException {
    while (fillingRow < row) {
      if (filling == null) {
        take();
      }
      if (filled != rowReads[fillingRow - geometry.firstRow()]) {
        throw new IOException("row " + fillingRow + " of the local sub-chunks got " + filled + " of "
            + rowReads[fillingRow - geometry.firstRow()] + " bytes");
      }
      ready.put(filling);
      filling = null;
      fillingRow++;
    }
  }

  /** A free row buffer, all zeros. */
  private void take() throws IOException, InterruptedException {
    filling = free.poll(stallMillis, TimeUnit.MILLISECONDS);
    if (filling == null) {
      throw new IOException("the repair took no row of local sub-chunks for " + stallMillis + " ms");
    }
    Buffers.zero(filling, 0, filling.capacity());
    filled = 0;
  }

  @Override
  public void accept(long blockOffset, ByteBuffer data) throws IOException, InterruptedException {
    ByteBuffer src = data.duplicate();
    long off = blockOffset;
    while (src.hasRemaining()) {
      completeRowsBefore((int) (off / cellSize));
      if (filling == null) {
        take();
      }
      int inRow = (int) (off % cellSize);
      int j = inRow / s;
      int within = inRow % s;
      int n = Math.min(src.remaining(), s - within);
      if (place[j] < 0) {
        throw new IOException("the local read delivered sub-chunk " + j + ", which the part does not read");
      }
      filling.put(place[j] * s + within, src, src.position(), n);
      src.position(src.position() + n);
      off += n;
      filled += n;
    }
  }

  @Override
  public void fill(int slice, int[] subchunks, ByteBuffer dst, int len) throws IOException, InterruptedException {
    if (current == null) {
      Object o = ready.poll(stallMillis, TimeUnit.MILLISECONDS);
      if (o == null) {
        throw new IOException("reading the local sub-chunks delivered nothing for " + stallMillis + " ms");
      }
      if (o instanceof IOException e) {
        throw e;
      }
      current = (ByteBuffer) o;
    }
    int off = geometry.offset(slice);
    for (int j : subchunks) {
      dst.put(j * len, current, place[j] * s + off, len);
    }
    if (geometry.endsRow(slice)) {
      free.offer(current);
      current = null;
    }
  }

  /**
   * Stops the reader; its row buffers go back to the pool once it has stopped (a short wait).
   * Returns whether it stopped.
   */
  boolean close() {
    source.close();
    boolean stopped = true;
    if (task != null) {
      task.cancel(true);
      try {
        // A task cancelled before it started never runs its body (and a closed source gives it nothing).
        stopped = !startedRunning || readerDone.await(stallMillis, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        stopped = false;
      }
    }
    if (stopped) {
      owned.forEach(pool::give);
    }
    return stopped;
  }
}
