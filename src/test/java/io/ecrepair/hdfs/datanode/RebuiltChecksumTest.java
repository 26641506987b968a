package io.ecrepair.hdfs.datanode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.hdfs.task.DataNodeKeys;
import io.ecrepair.hdfs.task.ReconstructionLog;
import io.ecrepair.hdfs.task.TaskReport;
import io.ecrepair.testing.ClusterTest;
import java.io.DataInputStream;
import java.io.File;
import java.io.FileInputStream;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Options.ChecksumOpt;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.datanode.BlockMetadataHeader;
import org.apache.hadoop.util.DataChecksum;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A file written with a checksum other than the DataNodes' default (here CRC32C over 512-byte
 * chunks, against a DataNode default of CRC32 over 1 KiB) keeps it through a repair: every
 * route writes the rebuilt block with its group's checksum type and chunk size, as the
 * replicas it replaces had, not with the rebuilding DataNode's default.
 */
@ClusterTest
class RebuiltChecksumTest {
  private static final int CELL = 64 * 1024;
  private static final DataChecksum.Type FILE_TYPE = DataChecksum.Type.CRC32C;
  private static final int FILE_BPC = 512;

  @TempDir
  Path tmp;

  @BeforeEach
  @AfterEach
  void clear() {
    ReconstructionLog.clear();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"central", "parallel", "chain"})
  void rebuiltBlocksKeepTheirGroupsChecksum(String route) throws Exception {
    Configuration extra = new Configuration(false);
    extra.set(DFSConfigKeys.DFS_CHECKSUM_TYPE_KEY, "CRC32");
    extra.setInt(DFSConfigKeys.DFS_BYTES_PER_CHECKSUM_KEY, 1024);
    boolean chain = route.equals("chain");
    if (!route.equals("central")) {
      extra.setInt(DataNodeKeys.AGENT_PORT_OFFSET_KEY, 7);
      extra.setBoolean(DataNodeKeys.REBUILD_RS_KEY, true);
    }
    if (route.equals("parallel")) {
      RepairCatalog.searchParallelPlans(new CodeSpec("clay", 4, 2));
    }
    try (RepairCluster c = chain
        ? new RepairCluster(tmp.resolve("dfs").toFile(), 10, "rs", 6, 3, CELL, 4, extra)
        : new RepairCluster(tmp.resolve("dfs").toFile(), 8, "clay", 4, 2, CELL, 4, extra)) {
      int k = c.k();
      org.apache.hadoop.fs.Path file = c.write("f", k * 4 * CELL, 4, new ChecksumOpt(FILE_TYPE, FILE_BPC));
      c.awaitHealthy();
      LocatedStripedBlock before = (LocatedStripedBlock) c.groups(file).get(0);
      assertStoredWith(c, c.internal(before, 1), "a replica the client wrote");

      List<TaskReport> reports = c.loseAndVerify(c.holder(file, 0, 0));
      assertTrue(reports.stream().anyMatch(r -> r.succeeded() && r.route().equals(route)),
          "a " + route + " repair ran: " + reports);
      LocatedStripedBlock after = (LocatedStripedBlock) c.groups(file).get(0);
      assertStoredWith(c, c.internal(after, 0), "the rebuilt replica");
    }
  }

  private static void assertStoredWith(RepairCluster c, ExtendedBlock block, String what) throws Exception {
    for (int dn = 0; dn < c.cluster.getDataNodes().size(); dn++) {
      File meta = c.cluster.getBlockMetadataFile(dn, block);
      if (meta == null || !meta.exists()) {
        continue;
      }
      DataChecksum cs;
      try (DataInputStream in = new DataInputStream(new FileInputStream(meta))) {
        cs = BlockMetadataHeader.readHeader(in).getChecksum();
      }
      assertEquals(FILE_TYPE, cs.getChecksumType(), what + "'s checksum type");
      assertEquals(FILE_BPC, cs.getBytesPerChecksum(), what + "'s bytes per checksum");
      return;
    }
    throw new AssertionError("no replica of " + block + " on disk");
  }
}
