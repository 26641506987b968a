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
 * in a row to steer reads away. A node's first read starts it at the typical node's average
 * (when there is one) and moves it as any other read, so a cold first read does not count
 * either. What a node's factor holds above 1 (at most {@value #MAX_FACTOR}) halves in the log
 * domain with every half-life since its last read, and that faded value is what its next read
 * starts from, so a node that was slow and is no longer is back to 1 after a few half-lives and
 * stays there. Factors below 1 count as 1 (a faster node is not preferred over the typical one:
 * only the slow are avoided), so noise between healthy nodes changes nothing. Reads smaller than
 * a minimum (latency rather than throughput) and nodes with fewer than {@value #MIN_SAMPLES}
 * reads are ignored.
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
  private double medianLog = Double.NaN;

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
    step(nodes.computeIfAbsent(node, x -> new Node()), Math.log((double) nanos / bytes));
  }

  /** A read from {@code node} that failed or timed out: counted as one read {@value #MAX_JUMP}x its average. */
  public synchronized void recordFailure(String node) {
    Node n = nodes.get(node);
    if (n == null || n.samples == 0) {
      return; // nothing to compare with; the failure itself is handled by the reader
    }
    step(n, n.logNanosPerByte + Math.log(MAX_JUMP));
  }

  /** Moves {@code n}'s average towards {@code sample}, from its faded value (a new node: from the median). */
  private void step(Node n, double sample) {
    double median = medianLog();
    long now = nanoClock.getAsLong();
    if (n.samples == 0) {
      n.logNanosPerByte = Double.isNaN(median) ? sample : median;
    } else if (!Double.isNaN(median)) {
      n.logNanosPerByte = median + fadedExcess(n, median, now);
    }
    double jump = Math.log(MAX_JUMP);
    n.logNanosPerByte += STEP * Math.max(-jump, Math.min(jump, sample - n.logNanosPerByte));
    n.samples++;
    n.lastNanos = now;
    medianLog = Double.NaN; // the averages moved
  }

  /** How far {@code n} stands above the median now (log domain): capped and halved per half-life; as is if below. */
  private double fadedExcess(Node n, double median, long now) {
    double excess = Math.min(n.logNanosPerByte - median, Math.log(MAX_FACTOR));
    if (excess <= 0) {
      return excess;
    }
    double age = Math.max(0, (double) (now - n.lastNanos) / halfLifeNanos);
    return excess * Math.pow(0.5, age);
  }

  /** The factor of a byte from {@code node}: 1 for the typical or an unknown node, up to {@value #MAX_FACTOR}. */
  public synchronized double factor(String node) {
    Node n = nodes.get(node);
    if (n == null || n.samples < MIN_SAMPLES) {
      return 1;
    }
    double faded = Math.exp(fadedExcess(n, medianLog(), nanoClock.getAsLong()));
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

  /** The median of the averages of the nodes with enough reads (NaN: none yet), kept until one moves. */
  private double medianLog() {
    if (Double.isNaN(medianLog)) {
      double[] logs = nodes.values().stream().filter(n -> n.samples >= MIN_SAMPLES)
          .mapToDouble(n -> n.logNanosPerByte).sorted().toArray();
      int m = logs.length;
      medianLog = m == 0 ? Double.NaN : m % 2 == 1 ? logs[m / 2] : (logs[m / 2 - 1] + logs[m / 2]) / 2;
    }
    return medianLog;
  }

  @Override
  public synchronized String toString() {
    return "MeasuredCosts" + slowNodes();
  }
}
