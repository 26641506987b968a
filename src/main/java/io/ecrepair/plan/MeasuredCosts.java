package io.ecrepair.plan;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * What a byte from each node has cost recently, from the reads a client or DataNode made (the
 * cost model of FastDR, measured): per node an average of the time per byte of its reads, as a
 * factor of the typical node's (the median of those measured, so the shared downlink of the
 * reader, which slows every helper alike, cancels out).
 *
 * <p>Robust by construction: a read moves the node's average (kept in the log domain) by at most
 * {@value #STEP} of a factor {@value #MAX_JUMP} either way, so one slow read, or a timeout
 * ({@link #recordFailure}), raises a node's cost by at most {@code MAX_JUMP^STEP} (1.41x),
 * below the {@value #GATE}x a factor must reach to count at all; it takes several slow reads
 * in a row to steer reads away. A node's factor fades back to 1 with the time since its last
 * read (a half-life), is capped at {@value #MAX_FACTOR} and never below 1 (a faster node is
 * not preferred over the typical one: only the slow are avoided), so no node is banned for
 * long and noise between healthy nodes changes nothing. Reads smaller than a minimum (latency
 * rather than throughput) and nodes with fewer than {@value #MIN_SAMPLES} reads are ignored.
 * Thread-safe.
 */
public final class MeasuredCosts {
  /** The weight of one read in a node's average (in the log domain). */
  static final double STEP = 0.25;
  /** The most one read's time per byte counts above or below the node's average. */
  static final double MAX_JUMP = 4;
  /** Factors below this count as 1. */
  public static final double GATE = 1.5;
  /** The largest factor a node gets, however slow. */
  public static final double MAX_FACTOR = 16;
  static final int MIN_SAMPLES = 2;

  private final LongSupplier nanoClock;
  private final long halfLifeNanos;
  private final long minBytes;
  private final Map<String, Node> nodes = new HashMap<>();

  /** Per node: log of its average nanoseconds per byte, reads counted, when last read. */
  private static final class Node {
    double logNanosPerByte;
    int samples;
    long lastNanos;
  }

  /**
   * @param halfLifeNanos how fast a factor fades back to 1 without new reads
   * @param minBytes reads smaller than this are not counted
   */
  public MeasuredCosts(LongSupplier nanoClock, long halfLifeNanos, long minBytes) {
    if (halfLifeNanos <= 0) {
      throw new IllegalArgumentException("a half-life of " + halfLifeNanos + " ns");
    }
    this.nanoClock = nanoClock;
    this.halfLifeNanos = halfLifeNanos;
    this.minBytes = Math.max(1, minBytes);
  }

  /** A read of {@code bytes} from {@code node} that took {@code nanos}. */
  public synchronized void record(String node, long bytes, long nanos) {
    if (bytes < minBytes || nanos <= 0) {
      return;
    }
    double sample = Math.log((double) nanos / bytes);
    Node n = nodes.computeIfAbsent(node, x -> new Node());
    if (n.samples == 0) {
      n.logNanosPerByte = sample;
    } else {
      double jump = Math.log(MAX_JUMP);
      n.logNanosPerByte += STEP * Math.max(-jump, Math.min(jump, sample - n.logNanosPerByte));
    }
    n.samples++;
    n.lastNanos = nanoClock.getAsLong();
  }

  /** A read from {@code node} that failed or timed out: counted as one read {@value #MAX_JUMP}x its average. */
  public synchronized void recordFailure(String node) {
    Node n = nodes.get(node);
    if (n == null || n.samples == 0) {
      return; // nothing to compare with; the failure itself is handled by the reader
    }
    n.logNanosPerByte += STEP * Math.log(MAX_JUMP);
    n.samples++;
    n.lastNanos = nanoClock.getAsLong();
  }

  /** The factor of a byte from {@code node}: 1 for the typical or an unknown node, up to {@value #MAX_FACTOR}. */
  public synchronized double factor(String node) {
    Node n = nodes.get(node);
    if (n == null || n.samples < MIN_SAMPLES) {
      return 1;
    }
    double raw = Math.exp(n.logNanosPerByte - medianLog());
    double age = (double) (nanoClock.getAsLong() - n.lastNanos) / halfLifeNanos;
    double faded = 1 + (Math.min(MAX_FACTOR, raw) - 1) * Math.pow(0.5, Math.max(0, age));
    return faded < GATE ? 1 : faded;
  }

  /** How many reads of {@code node} were counted. */
  public synchronized int reads(String node) {
    Node n = nodes.get(node);
    return n == null ? 0 : n.samples;
  }

  /** The nodes whose factor is above 1 now, by name, the factors rounded to 0.01 (what steers reads away). */
  public synchronized Map<String, Double> slowNodes() {
    Map<String, Double> out = new TreeMap<>();
    for (String name : nodes.keySet()) {
      double f = factor(name);
      if (f > 1) {
        out.put(name, Math.round(f * 100) / 100.0);
      }
    }
    return out;
  }

  /** The median of the averages of the nodes with enough reads. */
  private double medianLog() {
    double[] logs = nodes.values().stream().filter(n -> n.samples >= MIN_SAMPLES)
        .mapToDouble(n -> n.logNanosPerByte).sorted().toArray();
    int m = logs.length;
    return m % 2 == 1 ? logs[m / 2] : (logs[m / 2 - 1] + logs[m / 2]) / 2;
  }

  @Override
  public synchronized String toString() {
    return "MeasuredCosts" + slowNodes();
  }
}
