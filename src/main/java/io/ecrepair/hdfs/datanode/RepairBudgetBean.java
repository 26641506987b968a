package io.ecrepair.hdfs.datanode;

import io.ecrepair.hdfs.transfer.RepairBudget;
import javax.management.ObjectName;
import org.apache.hadoop.metrics2.util.MBeans;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Puts one DataNode's {@link RepairBudget} on JMX, so an operator changes it without a restart. */
final class RepairBudgetBean implements RepairBudgetMXBean {
  private static final Logger LOG = LoggerFactory.getLogger(RepairBudgetBean.class);
  /** The bean's name after {@code name=}; the DataNode's host and port follow. */
  static final String NAME_PREFIX = "EcRepairBudget-";

  private final String datanode;
  private final RepairBudget budget;
  private ObjectName name;

  RepairBudgetBean(String datanode, RepairBudget budget) {
    this.datanode = datanode;
    this.budget = budget;
  }

  RepairBudgetBean register() {
    name = MBeans.register("DataNode", NAME_PREFIX + datanode.replace(':', '-'), this);
    return this;
  }

  /** The registered name (null when JMX refused it: logged by Hadoop). */
  ObjectName objectName() {
    return name;
  }

  void unregister() {
    if (name != null) {
      MBeans.unregister(name);
      name = null;
    }
  }

  @Override
  public String getDataNode() {
    return datanode;
  }

  @Override
  public long getRepairBandwidthIn() {
    return budget.inBytesPerSecond();
  }

  @Override
  public void setRepairBandwidthIn(long bytesPerSecond) {
    change(bytesPerSecond, budget.outBytesPerSecond());
  }

  @Override
  public long getRepairBandwidthOut() {
    return budget.outBytesPerSecond();
  }

  @Override
  public void setRepairBandwidthOut(long bytesPerSecond) {
    change(budget.inBytesPerSecond(), bytesPerSecond);
  }

  @Override
  public void setRepairBandwidth(long inBytesPerSecond, long outBytesPerSecond) {
    change(inBytesPerSecond, outBytesPerSecond);
  }

  private synchronized void change(long in, long out) {
    long wasIn = budget.inBytesPerSecond();
    long wasOut = budget.outBytesPerSecond();
    budget.set(in, out);
    LOG.info("ec-repair: repair bandwidth of {} changed over JMX: in {} (was {}), out {} (was {}) bytes/s, 0 = unlimited",
        datanode, in, wasIn, out, wasOut);
  }
}
