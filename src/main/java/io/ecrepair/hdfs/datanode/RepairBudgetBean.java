package io.ecrepair.hdfs.datanode;

import io.ecrepair.hdfs.transfer.RepairBudget;
import javax.management.ObjectName;
import org.apache.hadoop.metrics2.util.MBeans;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Puts one DataNode's {@link RepairBudget} on JMX, so an operator changes it without a restart. */
final class RepairBudgetBean implements RepairBudgetMXBean {
  private static final Logger LOG = LoggerFactory.getLogger(RepairBudgetBean.class);
  private final String datanode;
  private final RepairBudget budget;
  private final boolean adaptive;
  private ObjectName name;

  RepairBudgetBean(String datanode, RepairBudget budget, boolean adaptive) {
    this.datanode = datanode;
    this.budget = budget;
    this.adaptive = adaptive;
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
  public synchronized void setRepairBandwidthIn(long bytesPerSecond) {
    long was = budget.inBytesPerSecond();
    budget.setIn(bytesPerSecond);
    LOG.info("ec-repair: inbound repair bandwidth of {} changed over JMX to {} (was {}) bytes/s, 0 = unlimited",
        datanode, bytesPerSecond, was);
  }

  @Override
  public boolean isAdaptive() {
    return adaptive;
  }

  @Override
  public long getRepairBandwidthInNow() {
    return budget.inBytesPerSecondNow();
  }

  @Override
  public long getRepairBandwidthOutNow() {
    return budget.outBytesPerSecondNow();
  }

  @Override
  public long getRepairBandwidthOut() {
    return budget.outBytesPerSecond();
  }

  @Override
  public synchronized void setRepairBandwidthOut(long bytesPerSecond) {
    long was = budget.outBytesPerSecond();
    budget.setOut(bytesPerSecond);
    LOG.info("ec-repair: outbound repair bandwidth of {} changed over JMX to {} (was {}) bytes/s, 0 = unlimited",
        datanode, bytesPerSecond, was);
  }

  @Override
  public synchronized void setRepairBandwidth(long inBytesPerSecond, long outBytesPerSecond) {
    RepairBudget.check(inBytesPerSecond);
    RepairBudget.check(outBytesPerSecond);
    setRepairBandwidthIn(inBytesPerSecond);
    setRepairBandwidthOut(outBytesPerSecond);
  }
}
