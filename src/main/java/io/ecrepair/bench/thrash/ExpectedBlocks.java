package io.ecrepair.bench.thrash;

import io.ecrepair.harness.PatternData;
import io.ecrepair.layout.StripedLayout;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.io.erasurecode.CodecUtil;
import org.apache.hadoop.io.erasurecode.ErasureCoderOptions;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureEncoder;

/**
 * What every internal block of a written file must hold, from the file's bytes alone: data
 * blocks are its cells, parity blocks the re-encoding of each cell row with the raw coder HDFS
 * uses for the policy's codec (HDFS pads a short row's data cells with zeros to its first
 * cell's length, and its parity cells have that length).
 */
final class ExpectedBlocks {
  private ExpectedBlocks() {}

  /** SHA-256 (hex) of each internal block of group {@code g}, by unit; null where the unit holds no bytes. */
  static String[] digests(Configuration conf, ErasureCodingPolicy policy, long blockSize, long fileLength, long seed,
                          int g) throws IOException {
    int k = policy.getNumDataUnits();
    int m = policy.getNumParityUnits();
    int cell = policy.getCellSize();
    StripedLayout layout = new StripedLayout(k, m, cell, blockSize);
    long groupLength = layout.groupLength(fileLength, g);
    PatternData data = new PatternData(seed);
    MessageDigest[] md = new MessageDigest[k + m];
    for (int u = 0; u < md.length; u++) {
      md[u] = ThrashWorkload.sha256();
    }
    RawErasureEncoder encoder = CodecUtil.createRawEncoder(conf, policy.getCodecName(), new ErasureCoderOptions(k, m));
    try {
      byte[] bytes = new byte[cell];
      ByteBuffer[] in = new ByteBuffer[k];
      ByteBuffer[] out = new ByteBuffer[m];
      for (int u = 0; u < k; u++) {
        in[u] = ByteBuffer.allocateDirect(cell);
      }
      for (int j = 0; j < m; j++) {
        out[j] = ByteBuffer.allocateDirect(cell);
      }
      for (int r = 0; r < layout.rowCount(groupLength); r++) {
        int coding = layout.codingLength(groupLength, r);
        for (int u = 0; u < k; u++) {
          int len = layout.cellLength(groupLength, r, u);
          java.util.Arrays.fill(bytes, 0, coding, (byte) 0);
          data.fill(layout.fileOffset(g, r, u), bytes, 0, len);
          md[u].update(bytes, 0, len);
          in[u].clear();
          in[u].put(bytes, 0, coding).flip();
        }
        for (int j = 0; j < m; j++) {
          out[j].clear().limit(coding);
        }
        encoder.encode(in, out);
        for (int j = 0; j < m; j++) {
          ByteBuffer p = out[j].position(0).limit(coding);
          md[k + j].update(p);
        }
      }
    } finally {
      encoder.release();
    }
    String[] hex = new String[k + m];
    for (int u = 0; u < hex.length; u++) {
      hex[u] = layout.internalBlockLength(groupLength, u) == 0 ? null : HexFormat.of().formatHex(md[u].digest());
    }
    return hex;
  }
}
