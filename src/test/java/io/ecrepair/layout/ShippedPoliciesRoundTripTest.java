package io.ecrepair.layout;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.ecrepair.gf.RegionCoders;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.util.ECPolicyLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every policy in conf/user_ec_policies.xml (with small cells, so the test is quick):
 * encode, rebuild every internal block with `repair`, and decode after losing as many
 * blocks as the code always survives.
 */
class ShippedPoliciesRoundTripTest {
  @TempDir
  Path tmp;

  @Test
  void everyShippedPolicyRepairsAndDecodes() throws Exception {
    List<ErasureCodingPolicy> shipped = new ECPolicyLoader().loadPolicy(
        Path.of("conf/user_ec_policies.xml").toAbsolutePath().toString());
    assertFalse(shipped.isEmpty());
    Random rnd = new Random(5);
    for (ErasureCodingPolicy p : shipped) {
      Policy policy = Policy.parse(p.getName()).withCellSize(4096);
      int k = policy.code().k();
      int n = policy.code().n();
      long block = 3 * 4096;
      byte[] data = new byte[(int) (k * block + 5000)]; // a full group and a partial one
      rnd.nextBytes(data);
      Path in = tmp.resolve(policy.name() + ".bin");
      Files.write(in, data);
      Path dir = tmp.resolve(policy.name());
      new StripedFileEncoder(policy, block, policy.code().create(RegionCoders.best())).encode(in, dir, x -> { });

      StripedBlockRepairer repairer = new StripedBlockRepairer(RegionCoders.best());
      for (int lost = 0; lost < n; lost++) {
        byte[][] before = {Files.readAllBytes(dir.resolve("g0_b" + lost)), Files.readAllBytes(dir.resolve("g1_b" + lost))};
        Files.delete(dir.resolve("g0_b" + lost));
        Files.delete(dir.resolve("g1_b" + lost));
        repairer.repair(dir, lost, false, x -> { });
        assertArrayEquals(before[0], Files.readAllBytes(dir.resolve("g0_b" + lost)), policy + " repair of " + lost);
        assertArrayEquals(before[1], Files.readAllBytes(dir.resolve("g1_b" + lost)), policy + " repair of " + lost);
      }

      for (int trial = 0; trial < 3; trial++) {
        List<Integer> order = new ArrayList<>(IntStream.range(0, n).boxed().toList());
        Collections.shuffle(order, rnd);
        Path copy = tmp.resolve(policy.name() + "-lost" + trial);
        Files.createDirectories(copy);
        for (Path f : Files.list(dir).toList()) {
          Files.copy(f, copy.resolve(f.getFileName()));
        }
        List<Integer> lost = order.subList(0, policy.code().faultTolerance());
        for (int i : lost) {
          Files.delete(copy.resolve("g0_b" + i));
          Files.delete(copy.resolve("g1_b" + i));
        }
        Path out = tmp.resolve(policy.name() + "-" + trial + ".out");
        new StripedFileDecoder(s -> s.create(RegionCoders.best())).decode(copy, out, false, x -> { });
        assertArrayEquals(data, Files.readAllBytes(out), policy + " decode without " + lost);
      }
    }
  }
}
