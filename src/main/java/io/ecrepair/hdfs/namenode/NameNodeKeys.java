package io.ecrepair.hdfs.namenode;

/**
 * The NameNode side's settings ({@code hdfs-site.xml} of the NameNode, and of the Balancer and
 * Mover, which load the same placement policy), in one place. docs/configuration.md says what
 * each does.
 */
public final class NameNodeKeys {
  private NameNodeKeys() {}

  /** Path prefixes (comma-separated) whose files keep HDFS's own placement instead of combined or topology locality. */
  public static final String COMBINED_LOCALITY_SKIP_PATHS_KEY = "ecrepair.namenode.combined-locality.skip-paths";
  /** EC policies without local groups (comma-separated names) whose groups get topology locality: m blocks a rack. */
  public static final String TOPOLOGY_LOCALITY_POLICIES_KEY = "ecrepair.namenode.topology-locality.policies";
  /** Seconds a reconstruction target counts towards its node's load (one monitor pass and more; 0 = not at all). */
  public static final String REPAIR_SPREAD_WINDOW_SECONDS_KEY = "ecrepair.namenode.repair.spread.window.seconds";
  public static final long REPAIR_SPREAD_WINDOW_SECONDS_DEFAULT = 30;
}
