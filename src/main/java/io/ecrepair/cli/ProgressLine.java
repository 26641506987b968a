package io.ecrepair.cli;

import java.io.PrintWriter;
import java.util.function.LongConsumer;

/**
 * A one-line progress display on stderr for long commands, redrawn at most five times a
 * second and only on a terminal (logs and pipes stay clean).
 */
final class ProgressLine implements LongConsumer, AutoCloseable {
  private final PrintWriter err;
  private final String label;
  private final long total;
  private final boolean enabled;
  private long lastDraw;
  private boolean drawn;

  ProgressLine(PrintWriter err, String label, long total) {
    this.err = err;
    this.label = label;
    this.total = total;
    this.enabled = System.console() != null && total > 0;
  }

  @Override
  public void accept(long done) {
    long now = System.nanoTime();
    if (!enabled || (now - lastDraw < 200_000_000L && done < total)) {
      return;
    }
    lastDraw = now;
    drawn = true;
    err.printf("\r%s: %3d%% (%d / %d MiB)", label, done * 100 / total, done >> 20, total >> 20);
    err.flush();
  }

  /** A free-text status, e.g. which benchmark runs now. */
  void status(String text) {
    if (System.console() != null) {
      err.print("\r\033[K" + text);
      err.flush();
      drawn = true;
    }
  }

  @Override
  public void close() {
    if (drawn) {
      err.print("\r\033[K");
      err.flush();
    }
  }
}
