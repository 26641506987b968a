package io.ecrepair.cli;

import io.ecrepair.SystemProperties;
import io.ecrepair.hdfs.HadoopLine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The distribution a benchmark cluster's JVMs run. The build for each Hadoop line is its own
 * directory side by side ({@code hadoop-ec-repair} for 3.3, {@code hadoop-ec-repair-hadoop3.4},
 * {@code hadoop-ec-repair-hadoop3.5}), since the plugin is compiled against that line's HDFS.
 */
final class LineDistribution {
  static final List<String> LINES = List.of("3.3", "3.4", "3.5");

  private LineDistribution() {
  }

  /** This distribution's directory, or null when not run from one (the script then picks). */
  static Path home() {
    String home = System.getProperty(SystemProperties.HOME_PROPERTY);
    return home == null ? null : Path.of(home).toAbsolutePath().normalize();
  }

  /** The directory of the build for {@code line}; null for this one when not run from a distribution. */
  static Path of(String line) {
    if (line == null || line.equals(HadoopLine.built())) {
      return home();
    }
    if (!LINES.contains(line)) {
      throw new IllegalArgumentException("--hadoop-line must be one of " + String.join(", ", LINES) + ", not " + line);
    }
    Path here = home();
    Path base = here != null ? here.getParent() : Path.of("").toAbsolutePath();
    Path dir = base.resolve(line.equals("3.3") ? "hadoop-ec-repair" : "hadoop-ec-repair-hadoop" + line);
    if (!Files.isRegularFile(dir.resolve("lib").resolve("hadoop-ec-repair.jar"))) {
      throw new IllegalArgumentException("no build for Hadoop " + line + " in " + dir + ": build it with "
          + "mvn -DskipTests package -Dhadoop.version=" + example(line));
    }
    return dir;
  }

  private static String example(String line) {
    return switch (line) {
      case "3.3" -> "3.3.6";
      case "3.4" -> "3.4.2";
      default -> "3.5.0";
    };
  }
}
