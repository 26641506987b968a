package io.ecrepair.bench.thrash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.ecrepair.gf.RegionCoders;
import io.ecrepair.harness.PatternData;
import io.ecrepair.harness.ShippedPolicies;
import io.ecrepair.layout.Manifest;
import io.ecrepair.layout.Policy;
import io.ecrepair.layout.StripedFileEncoder;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replica audit's expectation of every internal block (data cells and HDFS's raw coder's
 * parity) equals what {@code ec-repair encode} writes, which its own tests hold to HDFS's layout.
 */
class ExpectedBlocksTest {
  @ParameterizedTest
  @CsvSource({"RS-6-3-64k, 2000000", "CLAY-6-3-1024k, 13000000", "BUTTERFLY-4-2-1024k, 300000",
      "LRC-L2-10-4-1024k, 21500000"})
  void everyInternalBlockMatchesTheEncoder(String name, long length, @TempDir Path dir) throws Exception {
    long blockSize = 2L << 20;
    long seed = 11;
    Path in = dir.resolve("in");
    byte[] bytes = new byte[(int) length];
    new PatternData(seed).fill(0, bytes, 0, bytes.length);
    Files.write(in, bytes);
    Policy policy = Policy.parse(name);
    Manifest m = new StripedFileEncoder(policy, blockSize, policy.code().create(RegionCoders.best()))
        .encode(in, dir.resolve("out"), x -> { });
    Configuration conf = new Configuration();
    for (int g = 0; g < m.groups(); g++) {
      String[] expected = ExpectedBlocks.digests(conf, ShippedPolicies.byName(name), blockSize, length, seed, g);
      for (Manifest.BlockEntry e : m.blocks()) {
        if (e.group() == g) {
          if (e.length() == 0) {
            assertNull(expected[e.index()]);
          } else {
            assertEquals(e.sha256(), expected[e.index()], name + " group " + g + " unit " + e.index());
          }
        }
      }
    }
  }
}
