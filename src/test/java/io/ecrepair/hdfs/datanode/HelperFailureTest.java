package io.ecrepair.hdfs.datanode;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.hdfs.agent.ReadFaults;
import io.ecrepair.hdfs.task.ReconstructionLog;
import io.ecrepair.hdfs.task.TaskReport;
import io.ecrepair.testing.ClusterTest;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A helper DataNode killed while a Clay repair reads from it: the task replaces it (Clay's
 * repair needs every other block, so it goes on with a decode from k blocks from the row
 * where the helper stopped), or fails and the NameNode's retry succeeds. Either way every
 * internal block ends up equal to the original. The kill happens at a fixed point, right
 * after the helper delivered its first range ({@link ReadFaults}): the helper's DataNode is
 * stopped and its read fails, whatever the machine's speed.
 */
@ClusterTest
class HelperFailureTest {
  private static final int CELL = 64 * 1024;

  @TempDir
  Path tmp;

  @Test
  void helperStoppedMidRepair() throws Exception {
    ReconstructionLog.clear();
    Configuration extra = new Configuration(false);
    extra.setLong(DFSConfigKeys.DFS_DATANODE_EC_RECONSTRUCT_READ_BANDWIDTHPERSEC_KEY, 512 * 1024);
    extra.setInt(DFSConfigKeys.DFS_DN_EC_RECONSTRUCTION_STRIPED_READ_TIMEOUT_MILLIS_KEY, 2000);
    // CLAY-5-3, 8 cells per block: a lost block reads 7/3 x 512 KiB, about 2.3 s at 512 KiB/s.
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), 8 + 2, "clay", 5, 3, CELL, 8, extra)) {
      org.apache.hadoop.fs.Path file = c.write("one-group", 5 * 8 * CELL, 7);
      DatanodeInfo lost = c.holder(file, 0, 0);
      DatanodeInfo helper = c.holder(file, 0, 3);
      java.util.concurrent.atomic.AtomicBoolean killing = new java.util.concurrent.atomic.AtomicBoolean();
      java.util.concurrent.atomic.AtomicBoolean killed = new java.util.concurrent.atomic.AtomicBoolean();
      ReadFaults.set(new ReadFaults.Hook() {
        @Override
        public void afterRange(org.apache.hadoop.hdfs.protocol.DatanodeInfo source, int ranges)
            throws java.io.IOException {
          if (source.getXferPort() == helper.getXferPort() && killing.compareAndSet(false, true)) {
            try {
              c.stop(helper);
            } finally {
              killed.set(true); // only now may the test thread look at the cluster again
            }
            throw new java.io.IOException("test: helper " + source + " killed after its first range");
          }
        }
      });
      List<TaskReport> reports = c.loseWithFault(lost, killed::get, "no repair read from the helper");
      boolean replaced = reports.stream().anyMatch(r -> r.succeeded() && r.helperReplacements() > 0);
      boolean retried = reports.stream().anyMatch(r -> !r.succeeded())
          && reports.stream().anyMatch(r -> r.succeeded() && r.lost()[0] == 0);
      assertTrue(replaced || retried, "the helper's failure was handled: " + reports);
    }
  }
}
