package io.ecrepair.bench;

/** One measured point, in the bench JSON shape of docs/architecture.md#command-line-contract (plus erasures). */
public record BenchResult(String suite, String codec, int k, int m, String op, int erasures, String impl,
                         int threads, int cellBytes, double mbPerSec) {}
