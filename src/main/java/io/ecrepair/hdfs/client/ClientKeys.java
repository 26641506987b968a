package io.ecrepair.hdfs.client;

/**
 * The client side's settings ({@code core-site.xml} or {@code hdfs-site.xml} of a client of
 * {@link EcRepairDistributedFileSystem}), in one place. A client also reads the DataNodes'
 * {@link io.ecrepair.hdfs.task.DataNodeKeys#AGENT_PORT_OFFSET_KEY} (to find their agents) and
 * the cost model's {@link io.ecrepair.hdfs.CostKeys}. docs/configuration.md says what each does.
 */
public final class ClientKeys {
  private ClientKeys() {}

  /** Whether degraded reads ask the helpers' repair agents to rebuild the lost cells first. */
  public static final String AGENT_READS_KEY = "ecrepair.client.agent-reads";
  public static final boolean AGENT_READS_DEFAULT = true;
  /** KiB per slice of a repair chain ending at the client: a read waits hops x slice for its first bytes. */
  public static final String AGENT_READS_SLICE_KB_KEY = "ecrepair.client.agent-reads.slice.kb";
  public static final int AGENT_READS_SLICE_KB_DEFAULT = 128;
  /** KiB of each sub-chunk per slice of a Clay or Butterfly plan to the client: smaller brings first bytes sooner. */
  public static final String AGENT_READS_PIECE_KB_KEY = "ecrepair.client.agent-reads.piece.kb";
  public static final int AGENT_READS_PIECE_KB_DEFAULT = 1;
  /** Milliseconds the agents may send a read nothing before the client fetches the read set itself. */
  public static final String AGENT_READS_STALL_MS_KEY = "ecrepair.client.agent-reads.stall.ms";
  public static final long AGENT_READS_STALL_MS_DEFAULT = 10_000;
  /** KiB of a lost block one request to the agents covers when reads walk through it (a stream holds two). */
  public static final String AGENT_READS_AHEAD_KB_KEY = "ecrepair.client.agent-reads.ahead.kb";
  public static final int AGENT_READS_AHEAD_KB_DEFAULT = 16384;
  /**
   * KiB: a read of part of a lost cell whose read set is smaller is fetched, not asked of the
   * agents (their set-up costs tens of milliseconds, what a few hundred KiB take on a 100 Mbit/s link).
   */
  public static final String AGENT_READS_MIN_READ_SET_KB_KEY = "ecrepair.client.agent-reads.min-read-set.kb";
  public static final int AGENT_READS_MIN_READ_SET_KB_DEFAULT = 1024;
  /** Milliseconds the client waits for a connection to an agent, so a firewalled port falls back in seconds. */
  public static final String AGENT_READS_CONNECT_MS_KEY = "ecrepair.client.agent-reads.connect.ms";
  public static final int AGENT_READS_CONNECT_MS_DEFAULT = 3_000;
  /** Milliseconds an agent that could not be reached is left out of this JVM's reads. */
  public static final String AGENT_READS_UNREACHABLE_MS_KEY = "ecrepair.client.agent-reads.unreachable.ms";
  public static final long AGENT_READS_UNREACHABLE_MS_DEFAULT = 300_000;
  /** Whether the client publishes its degraded-read metrics (metrics2 source or JMX bean). */
  public static final String METRICS_ENABLED_KEY = "ecrepair.client.metrics.enabled";
  public static final boolean METRICS_ENABLED_DEFAULT = true;
}
