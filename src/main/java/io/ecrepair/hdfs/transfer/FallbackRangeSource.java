package io.ecrepair.hdfs.transfer;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.hadoop.fs.ChecksumException;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.util.DataChecksum;

/**
 * Reads through a preferred source and, if it fails for any reason but bad bytes, goes on
 * through a fallback from the first byte the preferred one did not deliver. A checksum error
 * is the helper's replica, not the way it was read, and fails the read as it would have
 * failed through the fallback.
 */
public final class FallbackRangeSource implements RangeSource {
  private final RangeSource preferred;
  private final RangeSource fallback;
  private final Consumer<IOException> onFallback;
  private volatile RangeSource current;
  private volatile boolean closed;

  public FallbackRangeSource(RangeSource preferred, RangeSource fallback, Consumer<IOException> onFallback) {
    this.preferred = preferred;
    this.fallback = fallback;
    this.onFallback = onFallback;
    this.current = preferred;
  }

  @Override
  public void read(List<long[]> ranges, BlockRangeReader.Sink sink) throws IOException, InterruptedException {
    long[] deliveredTo = {-1};
    try {
      preferred.read(ranges, (offset, data) -> {
        long end = offset + data.remaining();
        try {
          sink.accept(offset, data);
        } catch (IOException e) {
          throw new SinkFailure(e);
        }
        deliveredTo[0] = end;
      });
      return;
    } catch (SinkFailure e) {
      throw (IOException) e.getCause(); // the reader's consumer gave up: nothing to fall back for
    } catch (ChecksumException e) {
      throw e;
    } catch (IOException e) {
      if (closed) {
        throw e;
      }
      onFallback.accept(e);
    } finally {
      preferred.close();
    }
    current = fallback;
    fallback.read(remaining(ranges, deliveredTo[0]), sink);
  }

  /** The sink's own failure, passed through the preferred source unchanged. */
  private static final class SinkFailure extends IOException {
    SinkFailure(IOException cause) {
      super(cause);
    }
  }

  /** The parts of {@code ranges} at or after block offset {@code from}. */
  static List<long[]> remaining(List<long[]> ranges, long from) {
    List<long[]> out = new ArrayList<>();
    for (long[] r : ranges) {
      long end = r[0] + r[1];
      if (end > from) {
        long start = Math.max(r[0], from);
        out.add(new long[] {start, end - start});
      }
    }
    return out;
  }

  @Override
  public DataChecksum checksum() {
    DataChecksum cs = current.checksum();
    return cs != null ? cs : preferred.checksum();
  }

  @Override
  public DatanodeInfo source() {
    return preferred.source();
  }

  @Override
  public void close() {
    closed = true;
    preferred.close();
    fallback.close();
  }
}
