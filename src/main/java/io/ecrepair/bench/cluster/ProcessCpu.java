package io.ecrepair.bench.cluster;

import io.ecrepair.bench.cluster.ClusterHandle.Node;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The CPU a measurement cost, DataNode by DataNode, from each JVM's own accounting
 * ({@link DataNodeJmx#cpuSeconds}): the host's idle share says whether the CPU bound a run, but
 * not which repair costs more CPU per byte, since every JVM of the cluster shares the host. An
 * idle cluster's DataNodes spend CPU too (heartbeats, block reports, JIT), so that background is
 * measured beforehand and taken off.
 */
final class ProcessCpu {
  /** How long the idle background is watched. */
  static final long BACKGROUND_MS = 5_000;

  private ProcessCpu() {}

  /** Each DataNode's CPU seconds so far, by name (asked all at once). */
  static Map<String, Double> now(List<Node> nodes) throws IOException {
    Map<String, Double> out = new ConcurrentHashMap<>();
    try {
      nodes.parallelStream().forEach(n -> {
        try {
          out.put(n.name(), DataNodeJmx.cpuSeconds(n.ip()));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
    return new TreeMap<>(out);
  }

  /** As {@link #now}, or none (said on {@code progress}) when a DataNode does not tell: the run goes on unmeasured. */
  static Map<String, Double> nowOrNone(List<Node> nodes, java.util.function.Consumer<String> progress) {
    try {
      return now(nodes);
    } catch (IOException e) {
      progress.accept("the DataNodes' CPU is not measured: " + e.getMessage());
      return Map.of();
    }
  }

  /**
   * Each DataNode's CPU seconds per second while the cluster idles, watched for
   * {@link #BACKGROUND_MS}; none when a DataNode does not tell.
   */
  static Map<String, Double> background(List<Node> nodes, java.util.function.Consumer<String> progress)
      throws InterruptedException {
    long t0 = System.nanoTime();
    Map<String, Double> before = nowOrNone(nodes, progress);
    if (before.isEmpty()) {
      return Map.of();
    }
    Thread.sleep(BACKGROUND_MS);
    Map<String, Double> after = nowOrNone(nodes, progress);
    double seconds = (System.nanoTime() - t0) / 1e9;
    Map<String, Double> rate = new TreeMap<>();
    after.forEach((n, v) -> rate.put(n, Math.max(0, v - before.getOrDefault(n, v)) / seconds));
    return rate;
  }

  /**
   * What each DataNode spent between {@code before} and {@code after}, {@code seconds} apart,
   * beyond its idle background ({@code background}, CPU seconds per second).
   */
  static Map<String, Double> net(Map<String, Double> before, Map<String, Double> after, Map<String, Double> background,
                                 double seconds) {
    Map<String, Double> out = new TreeMap<>();
    after.forEach((n, v) -> {
      Double b = before.get(n);
      if (b != null) {
        out.put(n, v - b - background.getOrDefault(n, 0.0) * seconds);
      }
    });
    return out;
  }

  /** The sum of {@code perNode}. */
  static double total(Map<String, Double> perNode) {
    return perNode.values().stream().mapToDouble(Double::doubleValue).sum();
  }
}
