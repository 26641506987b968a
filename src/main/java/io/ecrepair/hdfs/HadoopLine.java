package io.ecrepair.hdfs;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import org.apache.hadoop.util.VersionInfo;

/**
 * The Hadoop line (major.minor) this build is for. The plugin reaches into HDFS internals that
 * change between lines, and each line's build carries that line's shims, so a build runs only on
 * its own line: the plugins and the client check {@link #mismatch()} when they start.
 */
public final class HadoopLine {
  private static final Properties BUILT = load();

  private HadoopLine() {}

  /** The line built for, e.g. {@code 3.3}. */
  public static String built() {
    return BUILT.getProperty("line");
  }

  /** The Hadoop version built and tested against, e.g. {@code 3.3.6}. */
  public static String builtVersion() {
    return BUILT.getProperty("version");
  }

  /** Why this build cannot run on the Hadoop it runs in, or null when it can. */
  public static String mismatch() {
    return mismatch(built(), builtVersion(), VersionInfo.getVersion());
  }

  static String mismatch(String line, String builtVersion, String running) {
    if (running.equals(line) || running.startsWith(line + ".")) {
      return null;
    }
    return "this build of hadoop-ec-repair is for Hadoop " + line + " (built against " + builtVersion
        + ") and this is Hadoop " + running + ": install the build for this Hadoop's line (mvn -Dhadoop.version=X "
        + "package; see docs/operating.md)";
  }

  private static Properties load() {
    Properties p = new Properties();
    try (InputStream in = HadoopLine.class.getResourceAsStream("/io/ecrepair/hadoop-line.properties")) {
      if (in == null) {
        throw new IllegalStateException("io/ecrepair/hadoop-line.properties is missing from the plugin jar");
      }
      p.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return p;
  }
}
