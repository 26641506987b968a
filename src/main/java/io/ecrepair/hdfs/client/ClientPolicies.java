package io.ecrepair.hdfs.client;

import io.ecrepair.hdfs.RepairCatalog;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;

/** Which files the client FileSystem reads itself when a block is missing: the DataNode plugin's choice. */
public final class ClientPolicies {
  private ClientPolicies() {}

  /**
   * Whether degraded reads of files under {@code policy} always go through hadoop-ec-repair:
   * clay, butterfly and lrc-*; Hadoop's rs (whatever coder serves it) only while the cost model
   * is active ({@link #owns(ErasureCodingPolicy, boolean)}, as the client FileSystem asks).
   */
  public static boolean owns(ErasureCodingPolicy policy) {
    return owns(policy, false);
  }

  /** As {@link #owns(ErasureCodingPolicy)}, Hadoop's rs included when {@code rsToo}. */
  public static boolean owns(ErasureCodingPolicy policy, boolean rsToo) {
    return RepairCatalog.owns(policy, rsToo);
  }
}
