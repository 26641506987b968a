/**
 * The in-process HDFS that the demo, the benchmarks and the tests share: a MiniDFSCluster with
 * the DataNode plugin ({@link io.ecrepair.harness.MiniHdfs}), the repair and degraded-read
 * runs made on it ({@link io.ecrepair.harness.MiniClusterRepairs}), the read probe that
 * measures a degraded read (in-process or in the benchmark cluster's client namespace) and the
 * shipped policies. Above the HDFS adapters, below {@code cli}, {@code bench} and {@code demo}.
 */
package io.ecrepair.harness;
