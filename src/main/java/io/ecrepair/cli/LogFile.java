package io.ecrepair.cli;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.apache.log4j.Level;
import org.apache.log4j.LogManager;
import org.apache.log4j.Logger;
import org.apache.log4j.PatternLayout;
import org.apache.log4j.WriterAppender;

/**
 * Sends log lines to a file for the commands that run HDFS (the demo and the benchmarks): their
 * console then shows only their own progress and results, and an operator still finds every
 * line of the in-process NameNode and DataNodes, and of our plugin, in the file. What those
 * threads print straight to the JVM's standard error (stack traces of threads stopped during a
 * shutdown, for example) goes there too; the command's own console output was bound to the
 * real standard error before. Only the command line's {@code main} turns this on: the same
 * commands run inside a test keep the test's logging.
 */
final class LogFile {
  private static volatile boolean enabled;
  private static volatile Path current;

  private LogFile() {}

  /** Called by the command line's main: commands may divert their logs from now on. */
  static void enable() {
    enabled = true;
  }

  /** The log file of this run, once a command diverted its logs. */
  static Optional<Path> current() {
    return Optional.ofNullable(current);
  }

  /**
   * Diverts log4j's lines (WARN and above from HDFS, INFO and above from hadoop-ec-repair) and
   * the JVM's standard error to a new file, and says where on {@code console}. Does nothing
   * when not enabled, or when already diverted.
   */
  static synchronized void divert(String command, PrintWriter console) throws IOException {
    if (!enabled || current != null) {
      return;
    }
    Path file = Files.createTempFile("ec-repair-" + command.replace(' ', '-') + "-", ".log");
    PrintStream stream = new PrintStream(new FileOutputStream(file.toFile(), true), true, "UTF-8");
    Logger root = LogManager.getRootLogger();
    root.removeAllAppenders();
    WriterAppender appender = new WriterAppender(new PatternLayout("%d{ISO8601} %p %c{1} [%t]: %m%n"), stream);
    appender.setImmediateFlush(true);
    root.addAppender(appender);
    LogManager.getLogger("io.ecrepair").setLevel(Level.INFO);
    System.setErr(stream);
    current = file;
    console.println(command + ": log lines (HDFS's and hadoop-ec-repair's) go to " + file);
    console.flush();
  }

  /** The failure a command ends on, whole, in the log its one-line message points to. */
  static void failed(Throwable t) {
    LogManager.getLogger("io.ecrepair.cli").error("the command failed", t);
  }
}
