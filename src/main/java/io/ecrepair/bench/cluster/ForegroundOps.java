package io.ecrepair.bench.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The foreground client's log of operations, one line per operation, and the latency and
 * throughput of the operations that were due in a window of time.
 */
public final class ForegroundOps {
  /** What a client operation did. */
  public enum Kind { READ, WRITE }

  /**
   * One operation: when it was due (epoch ms), its latency from then to its end (so time spent
   * waiting for a free client thread counts, as an application's queue would), its bytes, and
   * {@code ok}, {@code wrong} (bytes read differ from the file's) or {@code failed}.
   */
  public record Op(long dueMs, Kind kind, double latencyMs, long bytes, String outcome) {
    public boolean ok() {
      return outcome.equals("ok");
    }

    public boolean failed() {
      return outcome.startsWith("failed");
    }

    /** When it ended (epoch ms). */
    public long endMs() {
      return dueMs + (long) latencyMs;
    }

    String line() {
      return String.format(Locale.ROOT, "%d %s %.3f %d %s", dueMs, kind.name().toLowerCase(Locale.ROOT), latencyMs,
          bytes, outcome);
    }

    static Op parse(String line) {
      String[] f = line.strip().split(" ", 5);
      if (f.length != 5) {
        throw new IllegalArgumentException("not a foreground log line: '" + line + "'");
      }
      return new Op(Long.parseLong(f[0]), Kind.valueOf(f[1].toUpperCase(Locale.ROOT)), Double.parseDouble(f[2]),
          Long.parseLong(f[3]), f[4]);
    }
  }

  /** Latency percentiles (ms) and throughput (MB/s of completed operations) of one kind in a window. */
  public record Latency(int ops, double p50Ms, double p99Ms, double p999Ms, double mbPerSec) {}

  /** A window's reads and writes, and its operations that failed or read wrong bytes. */
  public record Window(double seconds, Latency reads, Latency writes, int failed, int wrong) {}

  private ForegroundOps() {}

  public static List<Op> read(Path log) throws IOException {
    List<Op> ops = new ArrayList<>();
    for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
      if (!line.isBlank()) {
        ops.add(Op.parse(line));
      }
    }
    return ops;
  }

  /**
   * The window [fromMs, toMs): latency of the operations due in it (an open-loop client's
   * operations fall due at the offered rate whatever the cluster does, so a slow one counts
   * where it was due), throughput of those that completed in it, right (so a slowdown shows).
   */
  public static Window window(List<Op> ops, long fromMs, long toMs) {
    if (toMs <= fromMs) {
      throw new IllegalArgumentException("an empty window: " + fromMs + " to " + toMs);
    }
    double seconds = (toMs - fromMs) / 1000.0;
    List<Op> due = ops.stream().filter(o -> o.dueMs() >= fromMs && o.dueMs() < toMs).toList();
    List<Op> done = ops.stream().filter(o -> o.ok() && o.endMs() >= fromMs && o.endMs() < toMs).toList();
    int failed = (int) due.stream().filter(Op::failed).count();
    int wrong = (int) due.stream().filter(o -> o.outcome().equals("wrong")).count();
    return new Window(seconds, latency(due, done, Kind.READ, seconds), latency(due, done, Kind.WRITE, seconds), failed,
        wrong);
  }

  /**
   * Percentiles over every operation of the kind due in the window (a failed one counts with the
   * time it took to fail), throughput over those completed right in it.
   */
  static Latency latency(List<Op> due, List<Op> done, Kind kind, double seconds) {
    double[] ms = due.stream().filter(o -> o.kind() == kind).mapToDouble(Op::latencyMs).sorted().toArray();
    long bytes = done.stream().filter(o -> o.kind() == kind).mapToLong(Op::bytes).sum();
    return new Latency(ms.length, percentile(ms, 0.50), percentile(ms, 0.99), percentile(ms, 0.999),
        bytes / seconds / 1e6);
  }

  /** Operations from {@code fromMs} on that failed, and that read wrong bytes: {failed, wrong}. */
  public static int[] failures(List<Op> ops, long fromMs) {
    int failed = 0;
    int wrong = 0;
    for (Op o : ops) {
      if (o.dueMs() >= fromMs) {
        failed += o.failed() ? 1 : 0;
        wrong += o.outcome().equals("wrong") ? 1 : 0;
      }
    }
    return new int[] {failed, wrong};
  }

  /** The nearest-rank percentile of sorted values; NaN for none. */
  static double percentile(double[] sorted, double p) {
    return sorted.length == 0 ? Double.NaN : io.ecrepair.harness.DegradedReadProbe.percentile(sorted, p);
  }
}
