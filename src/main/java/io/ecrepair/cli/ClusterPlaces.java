package io.ecrepair.cli;

import io.ecrepair.SystemProperties;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** Where a command on the benchmark cluster finds its script and keeps its state (--scripts, --state). */
final class ClusterPlaces {
  @Option(names = "--scripts", description = "Directory of cluster.sh (default: dev-support/cluster next to the "
      + "distribution).")
  Path scripts;

  @Option(names = "--state", description = "Working directory for confs, data and logs (default: a new one under "
      + "/tmp); its logs stay after the run.")
  Path state;

  /** cluster.sh in --scripts, or in dev-support/cluster next to the distribution. */
  Path script() {
    if (scripts != null) {
      return scripts.toAbsolutePath().resolve("cluster.sh");
    }
    String home = System.getProperty(SystemProperties.HOME_PROPERTY);
    Path base = home != null ? Path.of(home).toAbsolutePath().getParent() : Path.of("").toAbsolutePath();
    return base.resolve("dev-support").resolve("cluster").resolve("cluster.sh");
  }

  /** --state, or a new directory {@code /tmp/PREFIX-PID}. */
  Path stateDir(String prefix) {
    return state != null ? state.toAbsolutePath()
        : Path.of(System.getProperty("java.io.tmpdir"), prefix + "-" + ProcessHandle.current().pid());
  }
}
