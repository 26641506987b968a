package io.ecrepair.bench.thrash;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The thrash workload's record, one tab-separated line per event, appended as it happens (a
 * killed workload leaves every line it finished):
 * <pre>
 * S  ms path policy length           a write started
 * W  ms path policy length seed sha  a write completed (closed), its SHA-256
 * X  ms path error                   a write failed
 * D  ms path                         a file deleted
 * R  ms path mode client outcome bytes error   a read: ok, wrong (bytes that differ) or failed (why)
 * T  ms key=value...                 the client's degraded-read totals at the end
 * </pre>
 */
public final class WorkloadLog {
  /** A completed write. */
  public record Written(String path, String policy, long length, long seed, String sha256) {}

  /** What the log says, folded: the files that exist (last completed write of a path not deleted after). */
  public record Summary(Map<String, Written> live, int written, int writeFailures, int deleted, List<String> started,
                        Map<String, Long> readsByOutcome, long wrongReadBytes, Map<String, Long> readsByMode,
                        Map<String, Long> clientTotals) {}

  private WorkloadLog() {}

  static String started(long ms, String path, String policy, long length) {
    return String.join("\t", "S", Long.toString(ms), path, policy, Long.toString(length));
  }

  static String written(long ms, Written w) {
    return String.join("\t", "W", Long.toString(ms), w.path(), w.policy(), Long.toString(w.length()),
        Long.toString(w.seed()), w.sha256());
  }

  static String failed(long ms, String path, String error) {
    return String.join("\t", "X", Long.toString(ms), path, clean(error));
  }

  static String deleted(long ms, String path) {
    return String.join("\t", "D", Long.toString(ms), path);
  }

  static String read(long ms, String path, String mode, String client, String outcome, long bytes, String error) {
    return String.join("\t", "R", Long.toString(ms), path, mode, client, outcome, Long.toString(bytes),
        clean(error));
  }

  static String totals(long ms, Map<String, Long> totals) {
    StringBuilder b = new StringBuilder("T\t").append(ms);
    totals.forEach((k, v) -> b.append('\t').append(k).append('=').append(v));
    return b.toString();
  }

  private static String clean(String s) {
    return s == null ? "" : s.replace('\t', ' ').replace('\n', ' ');
  }

  public static Summary read(Path file) throws IOException {
    return parse(Files.exists(file) ? Files.readAllLines(file) : List.of());
  }

  /** Folds the lines; a torn last line (the workload killed mid-write) is skipped. */
  public static Summary parse(List<String> lines) {
    Map<String, Written> live = new LinkedHashMap<>();
    List<String> started = new ArrayList<>();
    Map<String, Long> outcomes = new TreeMap<>();
    Map<String, Long> modes = new TreeMap<>();
    Map<String, Long> totals = new HashMap<>();
    int written = 0;
    int failed = 0;
    int deleted = 0;
    long wrongBytes = 0;
    for (String line : lines) {
      String[] f = line.split("\t", -1);
      try {
        switch (f[0]) {
          case "S" -> started.add(f[2]);
          case "W" -> {
            if (f.length == 7) {
              live.put(f[2], new Written(f[2], f[3], Long.parseLong(f[4]), Long.parseLong(f[5]), f[6]));
              written++;
            }
          }
          case "X" -> failed++;
          case "D" -> {
            live.remove(f[2]);
            deleted++;
          }
          case "R" -> {
            if (f.length == 8) {
              outcomes.merge(f[5], 1L, Long::sum);
              modes.merge(f[3] + "/" + f[4], 1L, Long::sum);
              if (f[5].equals("wrong")) {
                wrongBytes += Long.parseLong(f[6]);
              }
            }
          }
          case "T" -> {
            for (int i = 2; i < f.length; i++) {
              int eq = f[i].indexOf('=');
              if (eq > 0) {
                totals.put(f[i].substring(0, eq), Long.parseLong(f[i].substring(eq + 1)));
              }
            }
          }
          default -> { }
        }
      } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
        // a line cut short by a kill
      }
    }
    return new Summary(live, written, failed, deleted, started, outcomes, wrongBytes, modes, totals);
  }
}
