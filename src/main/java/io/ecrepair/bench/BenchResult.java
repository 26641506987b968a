package io.ecrepair.bench;

/** One measured point, in the JSON shape of DESIGN.md section 6 (plus erasures). */
public record BenchResult(String suite, String codec, int k, int m, String op, int erasures, String impl,
                         int threads, int cellBytes, double mbPerSec) {}
