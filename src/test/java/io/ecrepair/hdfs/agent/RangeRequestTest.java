package io.ecrepair.hdfs.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.List;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.security.token.Token;
import org.junit.jupiter.api.Test;

/** The agent's range request: its round trip, what it refuses, and the chunk spans it serves. */
class RangeRequestTest {
  private static final ExtendedBlock BLOCK = new ExtendedBlock("BP-1", 42, 10_000, 7);

  private static byte[] bytes(RangeRequest r) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    r.write(new DataOutputStream(b), AgentProof.Challenge.of(new Token<>()));
    return b.toByteArray();
  }

  private static RangeRequest parse(byte[] b) throws IOException {
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(b));
    assertEquals(RangeRequest.MAGIC, in.readInt());
    return RangeRequest.readRanges(RangeRequest.readHeader(in), in);
  }

  @Test
  void roundTrip() throws IOException {
    RangeRequest r = new RangeRequest(BLOCK, new Token<>(), List.of(new long[] {0, 100}, new long[] {2048, 4096}));
    RangeRequest back = parse(bytes(r));
    assertEquals(BLOCK, back.block());
    assertEquals(BLOCK.getNumBytes(), back.block().getNumBytes());
    assertEquals(BLOCK.getGenerationStamp(), back.block().getGenerationStamp());
    assertEquals(2, back.ranges().size());
    assertArrayEquals(new long[] {2048, 4096}, back.ranges().get(1));
  }

  /** The token, the challenge and the count come first: an agent checks them before it reads a range. */
  @Test
  void theHeaderComesBeforeTheRanges() throws IOException {
    byte[] all = bytes(new RangeRequest(BLOCK, new Token<>(), List.of(new long[] {0, 100}, new long[] {2048, 4096})));
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(all));
    in.readInt();
    RangeRequest.Header header = RangeRequest.readHeader(in);
    assertEquals(2, header.count());
    assertEquals(BLOCK, header.block());
    assertEquals(2 * 16, in.available(), "only the ranges are left to read");
    byte[] huge = all.clone();
    java.nio.ByteBuffer.wrap(huge).putInt(all.length - 2 * 16 - 4, RangeRequest.MAX_RANGES + 1);
    DataInputStream tooMany = new DataInputStream(new ByteArrayInputStream(huge));
    tooMany.readInt();
    assertThrows(IOException.class, () -> RangeRequest.readHeader(tooMany));
  }

  @Test
  void refusesRangesThatAreUnsortedOverlappingEmptyOrOutside() {
    for (List<long[]> bad : List.of(List.<long[]>of(), List.of(new long[] {100, 10}, new long[] {0, 10}),
        List.of(new long[] {0, 10}, new long[] {5, 10}), List.of(new long[] {0, 0}),
        List.of(new long[] {9_990, 11}), List.of(new long[] {-1, 5}))) {
      assertThrows(IllegalArgumentException.class, () -> new RangeRequest(BLOCK, new Token<>(), bad));
    }
  }

  @Test
  void aMalformedRequestIsAnIOException() throws IOException {
    byte[] good = bytes(new RangeRequest(BLOCK, new Token<>(), List.of(new long[] {0, 100})));
    byte[] version = good.clone();
    version[7] = 9;
    assertThrows(IOException.class, () -> parse(version));
    byte[] truncated = java.util.Arrays.copyOf(good, good.length - 3);
    assertThrows(IOException.class, () -> parse(truncated));
    // A range past the block's end, as a peer might send it.
    byte[] outside = good.clone();
    outside[outside.length - 10] = 0x7f; // the range's offset (the 8 bytes before its length) becomes 32512
    IOException e = assertThrows(IOException.class, () -> parse(outside));
    assertTrue(e.getMessage().contains("bad range request"), e.getMessage());
  }

  @Test
  void chunkSpansCoverEveryRangeAndMergeWhereTheyShareAChunk() {
    RangeRequest r = new RangeRequest(BLOCK, new Token<>(), List.of(new long[] {100, 10}, new long[] {600, 10},
        new long[] {1024, 512}, new long[] {5000, 100}, new long[] {9_900, 100}));
    List<long[]> spans = r.chunkSpans(512);
    // [0,512) and [512,1024) touch, and [1024,1536) follows: one span; then [4608,5120); then the short last chunk.
    assertEquals(3, spans.size());
    assertArrayEquals(new long[] {0, 1536}, spans.get(0));
    assertArrayEquals(new long[] {4608, 512}, spans.get(1));
    assertArrayEquals(new long[] {9728, 272}, spans.get(2));
  }
}
