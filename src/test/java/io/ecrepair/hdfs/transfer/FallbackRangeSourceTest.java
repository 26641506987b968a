package io.ecrepair.hdfs.transfer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.ChecksumException;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.util.DataChecksum;
import org.junit.jupiter.api.Test;

/**
 * The preferred source fails: the fallback serves exactly the bytes it did not deliver; a
 * checksum error or the consumer's own failure is not a reason to read again.
 */
class FallbackRangeSourceTest {
  /** Delivers each range's bytes (byte at offset o = (byte) o) in pieces of 10, failing with {@code fault} after {@code failAfter} bytes. */
  private static final class Fake implements RangeSource {
    final long failAfter;
    final IOException fault;
    final List<long[]> asked = new ArrayList<>();
    boolean closed;

    Fake(long failAfter, IOException fault) {
      this.failAfter = failAfter;
      this.fault = fault;
    }

    @Override
    public void read(List<long[]> ranges, BlockRangeReader.Sink sink) throws IOException, InterruptedException {
      asked.addAll(ranges);
      long sent = 0;
      for (long[] r : ranges) {
        for (long o = r[0]; o < r[0] + r[1]; o += 10) {
          int n = (int) Math.min(10, r[0] + r[1] - o);
          if (sent + n > failAfter) {
            throw fault;
          }
          byte[] b = new byte[n];
          for (int i = 0; i < n; i++) {
            b[i] = (byte) (o + i);
          }
          sink.accept(o, ByteBuffer.wrap(b));
          sent += n;
        }
      }
    }

    @Override
    public DataChecksum checksum() {
      return null;
    }

    @Override
    public DatanodeInfo source() {
      return null;
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  private static final List<long[]> RANGES = List.of(new long[] {0, 25}, new long[] {100, 30}, new long[] {200, 5});

  /** Every byte the sink got, checked against its offset; returns the offsets in order. */
  private static List<Long> collect(RangeSource s, List<long[]> ranges) throws Exception {
    List<Long> got = new ArrayList<>();
    s.read(ranges, (offset, data) -> {
      for (int i = 0; data.hasRemaining(); i++) {
        assertEquals((byte) (offset + i), data.get(), "byte at " + (offset + i));
        got.add(offset + i);
      }
    });
    return got;
  }

  private static List<Long> all(List<long[]> ranges) {
    List<Long> out = new ArrayList<>();
    for (long[] r : ranges) {
      for (long o = r[0]; o < r[0] + r[1]; o++) {
        out.add(o);
      }
    }
    return out;
  }

  @Test
  void theFallbackReadsOnFromTheFirstByteNotDelivered() throws Exception {
    for (long failAfter : new long[] {0, 10, 25, 35, 50, 55}) {
      Fake preferred = new Fake(failAfter, new IOException("agent gone"));
      Fake fallback = new Fake(Long.MAX_VALUE, null);
      List<IOException> reported = new ArrayList<>();
      FallbackRangeSource s = new FallbackRangeSource(preferred, fallback, reported::add);
      assertEquals(all(RANGES), collect(s, RANGES), "after " + failAfter + " bytes");
      assertEquals(1, reported.size());
      assertTrue(preferred.closed);
      // Every byte arrived once and in order (collect), so the fallback was asked for the rest only.
    }
  }

  @Test
  void noFallbackWhenThePreferredOneServesAll() throws Exception {
    Fake fallback = new Fake(Long.MAX_VALUE, null);
    FallbackRangeSource s = new FallbackRangeSource(new Fake(Long.MAX_VALUE, null), fallback, e -> {
      throw new AssertionError(e);
    });
    assertEquals(all(RANGES), collect(s, RANGES));
    assertTrue(fallback.asked.isEmpty());
  }

  @Test
  void badBytesAndTheConsumersFailureAreNotReadAgain() {
    Fake fallback = new Fake(Long.MAX_VALUE, null);
    FallbackRangeSource bad = new FallbackRangeSource(new Fake(30, new ChecksumException("bad chunk", 20)), fallback,
        e -> { });
    assertThrows(ChecksumException.class, () -> collect(bad, RANGES));
    FallbackRangeSource cancelled = new FallbackRangeSource(new Fake(Long.MAX_VALUE, null), fallback, e -> { });
    IOException stop = assertThrows(IOException.class, () -> cancelled.read(RANGES, (o, d) -> {
      throw new IOException("repair cancelled");
    }));
    assertEquals("repair cancelled", stop.getMessage());
    assertTrue(fallback.asked.isEmpty(), "the fallback was never asked");
  }
}
