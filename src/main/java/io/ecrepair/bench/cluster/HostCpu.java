package io.ecrepair.bench.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The host's CPU time counters (/proc/stat): every JVM of the benchmark cluster shares this
 * machine's cores, so a measurement taken while they were all busy is bound by the CPU, not by
 * the emulated links, and is reported as such.
 */
record HostCpu(long idle, long total) {
  /** Below this idle share a measurement counts as CPU-bound. */
  static final double SATURATED = 0.10;

  static HostCpu now() {
    try {
      String line = Files.readAllLines(Path.of("/proc/stat")).get(0);
      String[] f = line.trim().split("\\s+");
      long total = 0;
      for (int i = 1; i < f.length; i++) {
        total += Long.parseLong(f[i]);
      }
      // idle + iowait
      return new HostCpu(Long.parseLong(f[4]) + (f.length > 5 ? Long.parseLong(f[5]) : 0), total);
    } catch (IOException | RuntimeException e) {
      return new HostCpu(0, 0);
    }
  }

  /** CPU seconds the host's processes spent since {@code before}, all of them (USER_HZ ticks of 1/100 s); NaN where unknown. */
  double busySecondsSince(HostCpu before) {
    long dt = total - before.total;
    return dt <= 0 ? Double.NaN : (dt - (idle - before.idle)) / 100.0;
  }

  /** The share of CPU time spent idle since {@code before}; NaN where /proc/stat cannot be read. */
  double idleShareSince(HostCpu before) {
    long dt = total - before.total;
    return dt <= 0 ? Double.NaN : (double) (idle - before.idle) / dt;
  }
}
