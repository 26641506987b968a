package io.ecrepair.hdfs.datanode;

import io.ecrepair.hdfs.RepairCatalog;
import java.io.IOException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicyInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Readies the repairs of the policies of ours that the NameNode has enabled, before their
 * first failure: it lists the cluster's policies now and then (the default file system's
 * NameNode, as this DataNode's own user) and hands each enabled one it has not seen to
 * {@link RepairCatalog#prepare}, which works in the background on one low-priority thread.
 * A NameNode that cannot be reached is asked again at the next look.
 */
final class PolicyPreparer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PolicyPreparer.class);
  /** The first look, after start-up: the DataNode registers meanwhile. */
  private static final long FIRST_LOOK_SECONDS = 5;

  private final Configuration conf;
  private final boolean includeRs;
  private final String datanode;
  private final Set<String> seen = ConcurrentHashMap.newKeySet();
  private final ScheduledExecutorService timer;

  private PolicyPreparer(Configuration conf, boolean includeRs, String datanode, long intervalSeconds) {
    this.conf = conf;
    this.includeRs = includeRs;
    this.datanode = datanode;
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "ec-repair-policy-preparer");
      t.setDaemon(true);
      return t;
    });
    timer.scheduleWithFixedDelay(this::look, Math.min(FIRST_LOOK_SECONDS, intervalSeconds), intervalSeconds,
        TimeUnit.SECONDS);
  }

  /** Starts looking every {@code intervalSeconds}; null when that is 0 (never). */
  static PolicyPreparer start(Configuration conf, boolean includeRs, String datanode, long intervalSeconds) {
    if (intervalSeconds < 0) {
      throw new IllegalArgumentException("ec-repair: a negative policy look interval: " + intervalSeconds + " s");
    }
    return intervalSeconds == 0 ? null : new PolicyPreparer(conf, includeRs, datanode, intervalSeconds);
  }

  private void look() {
    try (FileSystem fs = FileSystem.newInstance(FileSystem.getDefaultUri(conf), conf)) {
      if (!(fs instanceof DistributedFileSystem dfs)) {
        LOG.info("ec-repair: {} does not look for enabled policies: the default file system {} is not HDFS",
            datanode, fs.getUri());
        timer.shutdown();
        return;
      }
      for (ErasureCodingPolicyInfo info : dfs.getAllErasureCodingPolicies()) {
        ErasureCodingPolicy policy = info.getPolicy();
        if (info.isEnabled() && RepairCatalog.owns(policy, includeRs) && seen.add(policy.getName())) {
          LOG.info("ec-repair: {} readies the repairs of {} (enabled on the NameNode) in the background", datanode,
              policy.getName());
          RepairCatalog.prepare(RepairCatalog.spec(policy));
        }
      }
    } catch (IOException | RuntimeException e) {
      LOG.debug("ec-repair: {} could not list the NameNode's policies: {}; trying again later", datanode, e.toString());
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
