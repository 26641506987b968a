package io.ecrepair.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.ecrepair.hdfs.task.DataNodeKeys;
import io.ecrepair.testing.ClusterTest;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.HdfsConstants;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stopped DataNode whose old ports another socket took meanwhile still comes back, on new
 * ports, with its repair agent beside its transfer port.
 */
@ClusterTest
class MiniHdfsRestartTest {
  @TempDir
  Path tmp;

  @Test
  void aDataNodeWhosePortsWereTakenRestartsOnNewOnes() throws Exception {
    Configuration agents = new Configuration(false);
    agents.setInt(DataNodeKeys.AGENT_PORT_OFFSET_KEY, 7);
    try (MiniHdfs hdfs = new MiniHdfs(tmp.toFile(), 2, MiniHdfs.pluginConf(agents), x -> { })) {
      DataNode victim = hdfs.cluster().getDataNodes().get(0);
      int oldTransfer = victim.getXferPort();
      int oldIpc = victim.getIpcPort();
      DatanodeInfo info = java.util.Arrays.stream(hdfs.fileSystem().getDataNodeStats(HdfsConstants.DatanodeReportType.LIVE))
          .filter(d -> d.getXferPort() == oldTransfer).findFirst().orElseThrow();
      List<MiniDFSCluster.DataNodeProperties> stopped = hdfs.stop(info);
      InetAddress loopback = InetAddress.getByName("127.0.0.1");
      try (ServerSocket squatter = new ServerSocket(oldIpc, 1, loopback);
           ServerSocket squatter2 = new ServerSocket(oldTransfer, 1, loopback)) {
        hdfs.restart(stopped);
      }
      List<DataNode> dns = hdfs.cluster().getDataNodes();
      DataNode back = dns.get(dns.size() - 1); // a restarted DataNode is appended
      assertEquals(2, hdfs.cluster().getDataNodes().size());
      assertNotEquals(oldTransfer, back.getXferPort());
      assertEquals(back.getXferPort() + 7, io.ecrepair.hdfs.datanode.EcRepairDataNodePlugin.agentPort(back),
          "the agent listens beside the new transfer port");
      assertEquals(2, hdfs.fileSystem().getDataNodeStats(HdfsConstants.DatanodeReportType.LIVE).length,
          "the NameNode knows the restarted DataNode");
    }
  }
}
