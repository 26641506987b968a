package io.ecrepair.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ecrepair.SystemProperties;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** Runs native/isal_bench.c, raw ISA-L with no JVM in the way, as the ceiling. */
final class IsalCBench {
  private final Path binary;

  IsalCBench(Path binary) {
    this.binary = binary;
  }

  /** The isal-bench next to the launcher ({@code libexec/}), or the one named by a property. */
  static Optional<IsalCBench> locate() {
    String explicit = System.getProperty(SystemProperties.ISAL_BENCH_PROPERTY);
    String home = System.getProperty(SystemProperties.HOME_PROPERTY);
    for (String candidate : new String[] {explicit, home == null ? null : home + "/libexec/isal-bench"}) {
      if (candidate != null && Files.isExecutable(Path.of(candidate))) {
        return Optional.of(new IsalCBench(Path.of(candidate)));
      }
    }
    return Optional.empty();
  }

  double mbPerSec(int k, int m, int cell, String op, int erasures, int threads, double seconds)
      throws IOException, InterruptedException {
    List<String> cmd = List.of(binary.toString(), "--k", "" + k, "--m", "" + m, "--cell", "" + cell,
        "--op", op, "--erasures", "" + Math.max(1, erasures), "--threads", "" + threads, "--seconds", "" + seconds);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    if (!p.waitFor((long) (seconds * threads * 5 + 60), TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException("isal-bench did not finish");
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    if (p.exitValue() != 0) {
      throw new IOException("isal-bench failed: " + out);
    }
    JsonNode json = new ObjectMapper().readTree(out);
    return json.get("mbPerSec").asDouble();
  }
}
