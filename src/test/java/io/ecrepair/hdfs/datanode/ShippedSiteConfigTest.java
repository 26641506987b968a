package io.ecrepair.hdfs.datanode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.hdfs.task.DataNodeKeys;
import io.ecrepair.hdfs.task.ReconstructionLog;
import io.ecrepair.hdfs.task.TaskReport;
import io.ecrepair.testing.ClusterTest;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped {@code conf/hdfs-site.ec-repair.xml}, as an operator merges it, turns the repair
 * agents on: every DataNode runs one at its transfer port plus the file's offset, and a lost Clay
 * block is rebuilt by parallel repair across them.
 */
@ClusterTest
class ShippedSiteConfigTest {
  @TempDir
  Path tmp;

  @Test
  void theShippedSiteFileRunsTheAgents() throws Exception {
    Configuration shipped = new Configuration(false);
    shipped.addResource(new org.apache.hadoop.fs.Path(Path.of("conf/hdfs-site.ec-repair.xml").toAbsolutePath().toUri()));
    int offset = shipped.getInt(DataNodeKeys.AGENT_PORT_OFFSET_KEY, 0);
    assertEquals(10, offset, "the shipped file turns the agents on");
    ReconstructionLog.clear();
    RepairCatalog.searchParallelPlans(new CodeSpec("clay", 4, 2));
    try (RepairCluster c = new RepairCluster(tmp.resolve("dfs").toFile(), 8, "clay", 4, 2, 64 * 1024, 4, shipped)) {
      for (DataNode dn : c.cluster.getDataNodes()) {
        assertEquals(dn.getXferPort() + offset, EcRepairDataNodePlugin.agentPort(dn), dn + "'s agent");
      }
      org.apache.hadoop.fs.Path file = c.write("f", 4 * 4 * 64 * 1024, 8);
      c.awaitHealthy();
      List<TaskReport> reports = c.loseAndVerify(c.holder(file, 0, 2));
      assertTrue(reports.stream().anyMatch(r -> r.route().equals("parallel")), "a parallel repair ran: " + reports);
    }
  }
}
