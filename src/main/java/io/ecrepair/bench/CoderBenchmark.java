package io.ecrepair.bench;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.codes.rs.RsFamily;
import io.ecrepair.layout.Policy;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.function.Consumer;

/**
 * Encode, decode and repair throughput of our native and Java paths, Hadoop's rs_java and
 * raw ISA-L, measured one after another in the same run so the ratios between them hold even
 * on a noisy shared machine. MB = 10^6 bytes: of data for encode and decode (k cells per
 * stripe), of rebuilt data for repair (one cell per repair).
 */
public final class CoderBenchmark {
  public static final String SUITE = "coder";
  public static final String ISAL_C = "isal-c";

  /** The operations, in the order they are measured. */
  public static final List<String> OPS = List.of("encode", "decode", "repair");

  /** What to measure. */
  public record Config(List<Policy> policies, List<String> ops, List<Integer> threads,
                       double seconds, double warmupSeconds) {}

  private final Config config;
  private final Optional<IsalCBench> isal;

  public CoderBenchmark(Config config) {
    this.config = config;
    this.isal = IsalCBench.locate();
  }

  /** Whether raw ISA-L (isal-bench) was found; without it that column is left out. */
  public boolean hasRawIsal() {
    return isal.isPresent();
  }

  public List<BenchResult> run(Consumer<String> status) throws IOException, InterruptedException {
    List<BenchResult> results = new ArrayList<>();
    for (Policy policy : config.policies()) {
      CodeSpec spec = policy.code();
      int k = spec.k();
      int m = spec.m();
      int cell = policy.cellSize();
      for (String op : config.ops()) {
        for (int erasures : erasureCounts(op, spec.faultTolerance())) {
          for (int threads : config.threads()) {
            for (CoderImpl impl : CoderImpl.values()) {
              if (!impl.supports(spec, op)) {
                continue;
              }
              status.accept(String.format("%s %s%s, %d thread(s): %s", policy.name(), op,
                  erasures > 0 ? " (" + erasures + " lost)" : "", threads, impl.label));
              double mbps = measure(impl, spec, cell, op, erasures, threads);
              results.add(new BenchResult(SUITE, policy.code().codec(), k, m, op, erasures, impl.label, threads, cell, mbps));
            }
            if (isal.isPresent() && spec.codec().equals(RsFamily.CODEC) && !op.equals("repair")) {
              status.accept(String.format("%s %s, %d thread(s): %s", policy.name(), op, threads, ISAL_C));
              double mbps = isal.get().mbPerSec(k, m, cell, op, erasures, threads, config.seconds());
              results.add(new BenchResult(SUITE, policy.code().codec(), k, m, op, erasures, ISAL_C, threads, cell, mbps));
            }
          }
        }
      }
    }
    return results;
  }

  /** Decode every number of lost data units from 1 to as many as the code always survives (m for MDS codes). */
  static List<Integer> erasureCounts(String op, int tolerated) {
    if (!op.equals("decode")) {
      return List.of(0);
    }
    return java.util.stream.IntStream.rangeClosed(1, tolerated).boxed().toList();
  }

  private double measure(CoderImpl impl, CodeSpec spec, int cell, String op, int erasures, int threads)
      throws InterruptedException {
    List<StripeOperation> ops = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      ops.add(switch (op) {
        case "encode" -> impl.encode(spec, cell, t);
        case "decode" -> impl.decode(spec, cell, erasures, t);
        case "repair" -> impl.repair(spec, cell, t);
        default -> throw new IllegalArgumentException("unknown op " + op);
      });
    }
    long bytesPerOp = op.equals("repair") ? cell : (long) spec.k() * cell;
    DoubleAdder total = new DoubleAdder();
    List<Thread> workers = new ArrayList<>();
    List<Throwable> failures = new ArrayList<>();
    long start = System.nanoTime();
    long warmEnd = start + (long) (config.warmupSeconds() * 1e9);
    long end = warmEnd + (long) (config.seconds() * 1e9);
    for (StripeOperation o : ops) {
      Thread th = new Thread(() -> {
        try {
          while (System.nanoTime() < warmEnd) {
            o.run();
          }
          long count = 0;
          long t0 = System.nanoTime();
          long now;
          do { // at least one timed operation, even when a slow warm-up overran the window
            o.run();
            count++;
            now = System.nanoTime();
          } while (now < end);
          total.add(count * bytesPerOp / ((now - t0) / 1e9) / 1e6);
        } catch (Throwable e) {
          synchronized (failures) {
            failures.add(e);
          }
        }
      }, "bench-" + impl.label);
      workers.add(th);
      th.start();
    }
    for (Thread th : workers) {
      th.join();
    }
    if (!failures.isEmpty()) {
      throw new IllegalStateException(impl.label + " " + op + " failed: " + failures.get(0), failures.get(0));
    }
    return total.sum();
  }
}
