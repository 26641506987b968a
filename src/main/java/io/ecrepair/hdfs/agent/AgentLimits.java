package io.ecrepair.hdfs.agent;

/**
 * The bounds a repair agent holds every request to (the DataNode's {@code ecrepair.datanode.agent.*}
 * settings, read by the plugin).
 *
 * @param memoryBytes memory the agent's requests and parts may hold at once
 * @param partMemoryBytes memory one part may hold: a part needing more is refused
 * @param partMillis how long a part may run before it is ended
 * @param maxCellBytes the largest cell a request may name (HDFS's largest policy cell)
 * @param hopsToAnyPort whether a part may send to an agent on another port than this one's
 */
public record AgentLimits(long memoryBytes, long partMemoryBytes, long partMillis, int maxCellBytes,
                          boolean hopsToAnyPort) {
  public AgentLimits {
    if (memoryBytes < 1 || partMemoryBytes < 1 || partMillis < 1 || maxCellBytes < 1) {
      throw new IllegalArgumentException("agent limits must be positive: " + memoryBytes + " bytes, " + partMemoryBytes
          + " bytes per part, " + partMillis + " ms per part, cells of " + maxCellBytes + " bytes");
    }
  }
}
