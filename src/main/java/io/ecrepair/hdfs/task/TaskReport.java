package io.ecrepair.hdfs.task;

import java.util.Map;

/**
 * What one reconstruction task of the plugin did, for metrics, tests and {@code ec-repair demo}.
 *
 * @param engine {@code ec-repair} for our tasks, {@code hdfs} for HDFS's own (timed only when
 *     {@value DataNodeKeys#TIME_STOCK_TASKS_KEY} is set)
 * @param datanode the reconstructing DataNode (host:port)
 * @param blockGroupId the block group's id
 * @param lost the internal block indices rebuilt
 * @param route how: {@code central} (the rebuilding DataNode read the helpers), {@code chain}
 *     (repair pipelining through the helpers' agents), {@code chain+central} (a chain that broke,
 *     finished centrally), {@code parallel} (a plan run across the helpers' agents; a group's
 *     short last row, if any, rebuilt centrally), {@code parallel+central} (a parallel repair
 *     that stopped early, finished centrally), {@code hdfs} for HDFS's own tasks
 * @param helperBytes bytes read per helper internal block index (payload, checksums excluded)
 * @param bytesRead all bytes read from helpers
 * @param bytesWritten bytes sent to the targets
 * @param lostBytes the rebuilt internal blocks' lengths together
 * @param seconds wall time of the task
 * @param helperReplacements how often a failed or stalled helper was replaced
 * @param validated whether the rebuilt cells were checked by an independent decode
 * @param error null on success, else why the task failed
 * @param nodeTraffic for a parallel repair, per internal block index of the plan (the lowest
 *     rebuilt one is this DataNode) {bytes received, bytes sent, bytes read from its replica};
 *     empty otherwise
 * @param crossRackHops for a chain, its hops (the last into the rebuilding DataNode) from one
 *     rack to another, each carrying one block; -1 for other routes
 */
public record TaskReport(String engine, String datanode, String policy, String codec, long blockGroupId, int[] lost,
                         String route,
                         Map<Integer, Long> helperBytes, long bytesRead, long bytesWritten, long lostBytes,
                         double seconds, int helperReplacements, boolean validated, String error,
                         Map<Integer, long[]> nodeTraffic, int crossRackHops) {
  public boolean succeeded() {
    return error == null;
  }

  @Override
  public String toString() {
    return "TaskReport[" + engine + " " + policy + " group " + blockGroupId + " lost " + java.util.Arrays.toString(lost) + " on "
        + datanode + " (" + route + "): read " + bytesRead + " " + helperBytes + ", wrote " + bytesWritten + " of " + lostBytes
        + " in " + String.format("%.3f", seconds) + " s, replacements " + helperReplacements
        + (validated ? ", validated" : "") + (crossRackHops >= 0 ? ", " + crossRackHops + " cross-rack hops" : "")
        + (error == null ? "" : ", FAILED: " + error) + "]";
  }
}
