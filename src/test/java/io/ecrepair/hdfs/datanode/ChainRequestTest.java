package io.ecrepair.hdfs.datanode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.security.token.Token;
import org.junit.jupiter.api.Test;

/** The repair chain's wire format: requests survive a round trip, frames say what went wrong. */
class ChainRequestTest {
  private static ChainRequest.Hop hop(int unit, int coef) {
    Token<BlockTokenIdentifier> t = new Token<>(new byte[] {1, 2, (byte) unit}, new byte[] {9, 8}, new Text("kind"),
        new Text("svc"));
    return new ChainRequest.Hop(unit, "10.0.0." + unit, 9866, 9876, 1000L + unit, 7, 4096L * unit, coef, t);
  }

  private static byte[] bytes(ChainRequest r) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    r.write(new DataOutputStream(b));
    return b.toByteArray();
  }

  @Test
  void requestRoundTripAndUpstream() throws IOException {
    ChainRequest r = new ChainRequest("BP-1", 123_456, 16 * 1024, List.of(hop(1, 5), hop(2, 255), hop(3, 1)));
    ChainRequest back = ChainRequest.read(new DataInputStream(new ByteArrayInputStream(bytes(r))));
    assertEquals(r.blockPoolId(), back.blockPoolId());
    assertEquals(r.length(), back.length());
    assertEquals(r.sliceBytes(), back.sliceBytes());
    for (int i = 0; i < 3; i++) {
      ChainRequest.Hop a = r.hops().get(i);
      ChainRequest.Hop b = back.hops().get(i);
      assertEquals(List.of(a.unit(), a.host(), a.xferPort(), a.agentPort(), a.blockId(), a.genStamp(), a.numBytes(),
          a.coef()), List.of(b.unit(), b.host(), b.xferPort(), b.agentPort(), b.blockId(), b.genStamp(), b.numBytes(),
          b.coef()));
      assertArrayEquals(a.token().getIdentifier(), b.token().getIdentifier());
      assertArrayEquals(a.token().getPassword(), b.token().getPassword());
    }
    assertEquals(3, back.self().unit());
    assertEquals(List.of(1, 2), back.upstream().hops().stream().map(ChainRequest.Hop::unit).toList());
    assertNull(back.upstream().upstream().upstream());
    // The first slice may take a stall per hop to set up; the answer of hop 1 alone, one stall.
    assertEquals(30_000, back.firstSliceMillis(10_000));
    assertEquals(10_000, back.upstream().upstream().firstSliceMillis(10_000));
  }

  @Test
  void malformedRequestsAreRefused() throws IOException {
    byte[] good = bytes(new ChainRequest("BP-1", 10, 4096, List.of(hop(1, 1))));
    byte[] badMagic = good.clone();
    badMagic[0] ^= 1;
    IOException e = assertThrows(IOException.class,
        () -> ChainRequest.read(new DataInputStream(new ByteArrayInputStream(badMagic))));
    assertTrue(e.getMessage().contains("not a repair chain request"), e.getMessage());
    byte[] badVersion = good.clone();
    badVersion[7] = 9;
    assertThrows(IOException.class, () -> ChainRequest.read(new DataInputStream(new ByteArrayInputStream(badVersion))));
    byte[] cut = java.util.Arrays.copyOf(good, good.length - 3);
    assertThrows(IOException.class, () -> ChainRequest.read(new DataInputStream(new ByteArrayInputStream(cut))));
    assertThrows(IllegalArgumentException.class, () -> new ChainRequest("BP-1", 10, 1024, List.of(hop(1, 1))));
    assertThrows(IllegalArgumentException.class, () -> new ChainRequest("BP-1", 10, 4096, List.of()));
  }

  @Test
  void framesCarryDataEndAndErrors() throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(b);
    ChainFrames.writeData(out, ByteBuffer.wrap(new byte[] {1, 2, 3, 4}), 3);
    ChainFrames.writeEnd(out);
    ChainFrames.writeData(out, ByteBuffer.wrap(new byte[] {5, 6}), 2);
    ChainFrames.writeError(out, 7, "disk gone");
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(b.toByteArray()));
    byte[] dst = new byte[4];
    ChainFrames.readData(in, dst, 3, "x");
    assertArrayEquals(new byte[] {1, 2, 3, 0}, dst);
    ChainFrames.readEnd(in, "x");
    ChainFrames.ChainFailure wrongLength = assertThrows(ChainFrames.ChainFailure.class,
        () -> ChainFrames.readData(in, dst, 3, "x"));
    assertTrue(wrongLength.getMessage().contains("2 bytes where 3"), wrongLength.getMessage());
    in.skipBytes(2);
    ChainFrames.ChainFailure error = assertThrows(ChainFrames.ChainFailure.class,
        () -> ChainFrames.readData(in, dst, 3, "x"));
    assertEquals(7, error.unit);
    assertEquals("disk gone", error.getMessage());
    ChainFrames.ChainFailure broken = assertThrows(ChainFrames.ChainFailure.class,
        () -> ChainFrames.readEnd(in, "x"));
    assertTrue(broken.getMessage().contains("broke"), broken.getMessage());
  }
}
