package io.ecrepair;

/**
 * The JVM system properties ({@code -D}) we read, in one place. They live here, outside
 * {@code io.ecrepair.hdfs}, because Hadoop-free packages such as {@code gf} read them too.
 * docs/configuration.md says what each does.
 */
public final class SystemProperties {
  private SystemProperties() {}

  /** The distribution's directory (set by bin/ec-repair): where the CLI finds conf/, libexec/ and dev-support/. */
  public static final String HOME_PROPERTY = "ecrepair.home";
  /** Whether a missing native ISA-L library is an error instead of a fall back to the Java coder. */
  public static final String NATIVE_REQUIRED_PROPERTY = "ecrepair.native.required";
  /** The environment variable that does the same as {@link #NATIVE_REQUIRED_PROPERTY} when that is unset. */
  public static final String NATIVE_REQUIRED_ENV = "EC_REPAIR_NATIVE_REQUIRED";
  /** Whether the native ISA-L library is never loaded (the Java coder runs; for comparisons and tests). */
  public static final String NATIVE_DISABLE_PROPERTY = "ecrepair.native.disable";
  /** Range requests kept in flight on one connection to a DataNode's transfer port. */
  public static final String READ_WINDOW_PROPERTY = "ecrepair.read.window";
  public static final int READ_WINDOW_DEFAULT = 32;
  /** The isal-bench binary the bench command compares with (else the one in the distribution's libexec/). */
  public static final String ISAL_BENCH_PROPERTY = "ecrepair.isal.bench";
  /** "i/n": the in-process HDFS of JVM i of n side by side picks DataNode ports from the i-th of n slices. */
  public static final String PORT_SLICE_PROPERTY = "ecrepair.harness.port-slice";
}
