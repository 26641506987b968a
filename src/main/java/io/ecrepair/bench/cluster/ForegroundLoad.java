package io.ecrepair.bench.cluster;

import io.ecrepair.bench.cluster.ClusterHandle.Node;
import io.ecrepair.bench.cluster.ForegroundOps.Op;
import io.ecrepair.bench.cluster.ForegroundOps.Window;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Runs the foreground workload ({@link ForegroundClient}) through one recovery: started once the
 * victim is known, measured for a window before the failure, during the repair (from the
 * NameNode dropping the dead node's replicas until nothing is left to rebuild) and for a window
 * after it.
 */
public final class ForegroundLoad {
  /**
   * {@code loadPercent}: the offered load as a share of the client's link (two thirds of it
   * reads, one third writes); {@code windowSeconds}: the before and after windows.
   */
  public record Settings(int loadPercent, int windowSeconds) {
    public Settings {
      if (loadPercent < 1 || loadPercent > 90) {
        throw new IllegalArgumentException("--foreground-load must be between 1 and 90 (% of the client's link)");
      }
      if (windowSeconds < 3 || windowSeconds > 600) {
        throw new IllegalArgumentException("--foreground-window must be between 3 and 600 seconds");
      }
    }
  }

  /**
   * What the workload saw through one recovery: the offered load, the three windows, every
   * operation (for the chart), and the recovery's marks (epoch ms).
   */
  public record Result(double offeredReadMBps, double offeredWriteMBps, Window before, Window during, Window after,
                       List<Op> ops, long killMs, long dropMs, long recoveredMs, int failed, int wrong) {
    /** Operations that failed or read wrong bytes, from the before window on (the failure's detection included). */
    public int failedOrWrong() {
      return failed + wrong;
    }

    /** Whether no operation read wrong bytes. */
    public boolean verified() {
      return wrong == 0;
    }
  }

  /** The client's first seconds are its JIT's and connections' warm-up (about 3 s here), not the cluster's state. */
  static final long WARMUP_MS = 5000;

  private final ClusterHandle cluster;
  private final org.apache.hadoop.hdfs.DistributedFileSystem fs;
  private final Settings settings;
  private final int clientMbit;
  private final Consumer<String> progress;

  public ForegroundLoad(ClusterHandle cluster, org.apache.hadoop.hdfs.DistributedFileSystem fs, Settings settings,
                        int clientMbit, Consumer<String> progress) {
    this.cluster = cluster;
    this.fs = fs;
    this.settings = settings;
    this.clientMbit = clientMbit;
    this.progress = progress;
  }

  /** Starts the workload with files that avoid {@code victim}, and waits until it runs. */
  public Running start(String scenario, Node victim, long seed) throws IOException, InterruptedException {
    double link = clientMbit * 1e6 / 8;
    double reads = link * settings.loadPercent() / 100.0 * 2 / 3;
    double writes = link * settings.loadPercent() / 100.0 / 3;
    String name = scenario.replaceAll("[^A-Za-z0-9-]", "_");
    Path state = cluster.state();
    Path log = state.resolve("foreground-" + name + ".log");
    Path ready = state.resolve("foreground-" + name + ".ready");
    Path stop = state.resolve("foreground-" + name + ".stop");
    Files.deleteIfExists(log);
    Files.deleteIfExists(ready);
    Files.deleteIfExists(stop);
    progress.accept(String.format(Locale.ROOT, "%s: foreground load from the client namespace: %.1f MB/s of "
        + "%d KiB reads and %.1f MB/s of %d KiB file writes (%d%% of its link), replicated files away from %s; "
        + "writing its read set", scenario, reads / 1e6, ForegroundClient.READ_BYTES >> 10, writes / 1e6,
        ForegroundClient.WRITE_BYTES >> 10, settings.loadPercent(), victim.name()));
    Path out = cluster.logDir().resolve("foreground-" + name + ".out");
    org.apache.hadoop.fs.Path dir = new org.apache.hadoop.fs.Path("/foreground/" + name);
    Process p = cluster.startJava("client", ForegroundClient.class.getName(), List.of(cluster.nameNodeUri(),
        dir.toString(), log.toString(), ready.toString(), stop.toString(), victim.ip(),
        Double.toString(reads), Double.toString(writes), Long.toString(seed),
        Long.toString(ProcessHandle.current().pid())), out);
    Running running = new Running(p, dir, log, stop, out, reads / 1e6, writes / 1e6);
    long deadline = System.currentTimeMillis() + 180_000;
    while (!Files.exists(ready)) {
      if (!p.isAlive() || System.currentTimeMillis() > deadline) {
        running.close();
        throw new IOException(scenario + ": the foreground client did not start (log: " + out + ")");
      }
      Thread.sleep(100);
    }
    running.readyMs = System.currentTimeMillis();
    return running;
  }

  /** The workload of one recovery, from its start to its result. */
  public final class Running implements AutoCloseable {
    private final Process process;
    private final org.apache.hadoop.fs.Path dir;
    private final Path log;
    private final Path stop;
    private final Path out;
    private final double readMBps;
    private final double writeMBps;
    private long readyMs;
    private long killMs;
    private long dropMs;
    private long recoveredMs;

    private Running(Process process, org.apache.hadoop.fs.Path dir, Path log, Path stop, Path out, double readMBps,
                    double writeMBps) {
      this.process = process;
      this.dir = dir;
      this.log = log;
      this.stop = stop;
      this.out = out;
      this.readMBps = readMBps;
      this.writeMBps = writeMBps;
    }

    /** Waits until the window before the failure is full; call just before the failure. */
    public void awaitBefore() throws InterruptedException {
      long full = readyMs + WARMUP_MS + settings.windowSeconds() * 1000L;
      long wait = full - System.currentTimeMillis();
      if (wait > 0) {
        Thread.sleep(wait);
      }
    }

    public void killed() {
      killMs = System.currentTimeMillis();
    }

    public void dropped() {
      dropMs = System.currentTimeMillis();
    }

    public void recovered() {
      recoveredMs = System.currentTimeMillis();
    }

    /** Runs the window after the recovery, stops the client and reads its log. */
    public Result finish() throws IOException, InterruptedException {
      if (killMs == 0 || dropMs == 0 || recoveredMs == 0) {
        throw new IllegalStateException("the recovery's marks are not all set");
      }
      long afterEnd = recoveredMs + settings.windowSeconds() * 1000L;
      long wait = afterEnd - System.currentTimeMillis();
      if (wait > 0) {
        Thread.sleep(wait);
      }
      stopClient();
      List<Op> ops = ForegroundOps.read(log);
      long beforeStart = Math.max(readyMs + WARMUP_MS, killMs - settings.windowSeconds() * 1000L);
      int[] failures = ForegroundOps.failures(ops, beforeStart);
      return new Result(readMBps, writeMBps, ForegroundOps.window(ops, beforeStart, killMs),
          ForegroundOps.window(ops, dropMs, Math.max(recoveredMs, dropMs + 1)),
          ForegroundOps.window(ops, recoveredMs, afterEnd), ops, killMs, dropMs, recoveredMs, failures[0],
          failures[1]);
    }

    private void stopClient() throws IOException, InterruptedException {
      Files.writeString(stop, "stop\n");
      if (!process.waitFor(90, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
        throw new IOException("the foreground client did not stop within 90 s (log: " + out + ")");
      }
      if (process.exitValue() != 0) {
        throw new IOException("the foreground client exited with status " + process.exitValue() + " (log: " + out
            + ")");
      }
    }

    /** Stops the client if it still runs (a failed recovery) and deletes its files. */
    @Override
    public void close() throws IOException, InterruptedException {
      if (process.isAlive()) {
        Files.writeString(stop, "stop\n");
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
          process.destroyForcibly().waitFor();
        }
      }
      fs.delete(dir, true);
    }
  }
}
