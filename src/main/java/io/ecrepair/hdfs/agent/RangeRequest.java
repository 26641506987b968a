package io.ecrepair.hdfs.agent;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.security.token.Token;

/**
 * A request for many byte ranges of one internal block, served by the repair agent of the
 * DataNode that holds it. HDFS's block read serves one range per request, and a Clay or
 * Butterfly repair reads a helper's cells in many sub-chunk runs (64 per cell row for some
 * lost blocks), each costing the helper a whole read operation; the agent serves them all
 * from one request.
 *
 * <p>On the wire the block, its token and the requester's challenge come before the ranges,
 * so the agent checks the token before it reads them. The answer: {@link #OK}, the block's
 * checksum type and bytes per checksum, then data frames in block order, each
 * {@code int length > 0, long offset}, the checksums of its chunks and its bytes; then
 * {@code int 0}. Frames are whole checksum chunks (the last one of the block may be short) and
 * cover every requested byte. An error at any point is {@code int -1} and a message.
 */
record RangeRequest(ExtendedBlock block, Token<BlockTokenIdentifier> token, List<long[]> ranges) {
  static final int MAGIC = 0x45435052; // "ECPR"
  // 2: followed by the requester's challenge (AgentProof); 3: the challenge and the range count before the ranges
  static final int VERSION = 3;
  /** Ranges one request may hold; a reader with more sends several requests. */
  static final int MAX_RANGES = 1 << 16;
  /** Bytes a range takes once read: its array in the request's list and in the merged spans, with the lists' slack. */
  static final int BYTES_PER_RANGE = 128;
  static final int OK = 1;
  static final int END = 0;
  static final int ERROR = -1;

  RangeRequest {
    if (ranges.isEmpty() || ranges.size() > MAX_RANGES) {
      throw new IllegalArgumentException("a request has 1.." + MAX_RANGES + " ranges, not " + ranges.size());
    }
    long end = 0;
    for (long[] r : ranges) {
      if (r[0] < end || r[1] <= 0 || r[0] > block.getNumBytes() - r[1]) { // no overflow in r[0] + r[1]
        throw new IllegalArgumentException("range [" + r[0] + ", +" + r[1] + ") is not sorted, disjoint and inside the "
            + block.getNumBytes() + " bytes of " + block);
      }
      end = r[0] + r[1];
    }
    ranges = List.copyOf(ranges);
  }

  /** What the agent reads before the ranges: enough to authenticate the request and bound them. */
  record Header(ExtendedBlock block, Token<BlockTokenIdentifier> token, AgentProof.Received challenge, int count) {}

  void write(DataOutput out, AgentProof.Challenge challenge) throws IOException {
    out.writeInt(MAGIC);
    out.writeInt(VERSION);
    WireBlocks.write(out, block);
    token.write(out);
    challenge.write(out);
    out.writeInt(ranges.size());
    for (long[] r : ranges) {
      out.writeLong(r[0]);
      out.writeLong(r[1]);
    }
  }

  /** Reads a request's header after its magic number; anything malformed is an IOException. */
  static Header readHeader(DataInput in) throws IOException {
    AgentVersions.check(MAGIC, in.readInt());
    ExtendedBlock block = WireBlocks.read(in);
    Token<BlockTokenIdentifier> token = WireTokens.read(in);
    AgentProof.Received challenge = AgentProof.Received.read(in);
    int count = in.readInt();
    if (count < 1 || count > MAX_RANGES) {
      throw new IOException("a range request has 1.." + MAX_RANGES + " ranges, not " + count);
    }
    return new Header(block, token, challenge, count);
  }

  /** Reads the ranges of a request whose header checked out. */
  static RangeRequest readRanges(Header header, DataInput in) throws IOException {
    List<long[]> ranges = new ArrayList<>(Math.min(header.count(), 1024)); // grows as the bytes arrive
    for (int i = 0; i < header.count(); i++) {
      ranges.add(new long[] {in.readLong(), in.readLong()});
    }
    try {
      return new RangeRequest(header.block(), header.token(), ranges);
    } catch (IllegalArgumentException e) {
      throw new IOException("bad range request: " + e.getMessage(), e);
    }
  }

  /**
   * The chunk-aligned spans {offset, length} that cover the requested ranges, merged where
   * they touch or share a chunk, so the agent reads its files strictly forward.
   */
  List<long[]> chunkSpans(int bytesPerChecksum) {
    return chunkSpans(ranges, block.getNumBytes(), bytesPerChecksum);
  }

  /** The chunk-aligned spans covering {@code ranges} of a block of {@code length} bytes, merged. */
  static List<long[]> chunkSpans(List<long[]> ranges, long length, int bytesPerChecksum) {
    List<long[]> spans = new ArrayList<>();
    for (long[] r : ranges) {
      long start = r[0] - r[0] % bytesPerChecksum;
      long end = Math.min(length, ceil(r[0] + r[1], bytesPerChecksum));
      long[] last = spans.isEmpty() ? null : spans.get(spans.size() - 1);
      if (last != null && start <= last[0] + last[1]) {
        last[1] = Math.max(last[1], end - last[0]);
      } else {
        spans.add(new long[] {start, end - start});
      }
    }
    return spans;
  }

  private static long ceil(long x, long unit) {
    return (x + unit - 1) / unit * unit;
  }
}
