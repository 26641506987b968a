package io.ecrepair.hdfs;

/**
 * The cost model's settings, in one place: {@link StaticCosts} and {@link NodeCosts} read them
 * for clients (all three) and DataNodes ({@value #COSTS_KEY} only; a DataNode's helper reads
 * share one row window, so measuring them would tell the helpers apart by nothing).
 * docs/configuration.md says what each does.
 */
public final class CostKeys {
  private CostKeys() {}

  /** Slower DataNodes or racks, {@code name=factor,...}: reads and repairs avoid them when the code allows. */
  public static final String COSTS_KEY = "ecrepair.costs";
  public static final String COSTS_DEFAULT = "";
  /** Whether a client measures the DataNodes' throughput from its own reads and avoids the slow ones. */
  public static final String COSTS_MEASURED_KEY = "ecrepair.costs.measured";
  public static final boolean COSTS_MEASURED_DEFAULT = true;
  /** Seconds after which a measured factor has faded half way back to 1 without new reads. */
  public static final String COSTS_MEASURED_HALF_LIFE_SECONDS_KEY = "ecrepair.costs.measured.half-life.seconds";
  public static final long COSTS_MEASURED_HALF_LIFE_SECONDS_DEFAULT = 300;
}
