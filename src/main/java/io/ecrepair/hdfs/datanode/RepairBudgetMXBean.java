package io.ecrepair.hdfs.datanode;

/**
 * A DataNode's repair budget over JMX, as
 * {@code Hadoop:service=DataNode,name=EcRepairBudget-<host>-<port>}: read it (also through the
 * DataNode's {@code /jmx} page), and change it on the live DataNode ({@code ec-repair budget},
 * or any JMX client). Rates in bytes per second, 0 meaning unlimited; a change holds until the
 * DataNode restarts, when its configuration applies again.
 */
public interface RepairBudgetMXBean {
  /** The bean's name after {@code name=}; the DataNode's host and port follow. */
  String NAME_PREFIX = "EcRepairBudget-";

  /** The DataNode, as host:port of its data transfer. */
  String getDataNode();

  long getRepairBandwidthIn();

  void setRepairBandwidthIn(long bytesPerSecond);

  long getRepairBandwidthOut();

  void setRepairBandwidthOut(long bytesPerSecond);

  /** Whether the budget adapts to the DataNode's foreground traffic (then the limits above cap it). */
  boolean isAdaptive();

  /** The inbound limit in force now: the lower of the one above and the adaptive one (0 = unlimited). */
  long getRepairBandwidthInNow();

  /** The outbound limit in force now. */
  long getRepairBandwidthOutNow();

  /** Both limits at once. */
  void setRepairBandwidth(long inBytesPerSecond, long outBytesPerSecond);
}
