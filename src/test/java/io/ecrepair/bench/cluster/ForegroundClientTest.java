package io.ecrepair.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.bench.cluster.ForegroundOps.Kind;
import io.ecrepair.bench.cluster.ForegroundOps.Op;
import io.ecrepair.harness.MiniHdfs;
import io.ecrepair.testing.ClusterTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.HdfsConstants;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The foreground workload against a real HDFS: it writes its read set, signals ready, reads and
 * writes at its offered rates until asked to stop, checks every byte it reads, logs every
 * operation, and keeps every replica off the DataNode it was told to avoid.
 */
@ClusterTest
class ForegroundClientTest {
  @TempDir
  Path tmp;

  @Test
  void readsAndWritesHealthyFilesAwayFromTheAvoidedDataNode() throws Exception {
    try (MiniHdfs hdfs = new MiniHdfs(tmp.resolve("hdfs").toFile(), 5, new Configuration(), x -> { })) {
      DistributedFileSystem fs = hdfs.fileSystem();
      DatanodeInfo avoided = fs.getDataNodeStats(HdfsConstants.DatanodeReportType.LIVE)[2];
      Path log = tmp.resolve("fg.log");
      Path ready = tmp.resolve("fg.ready");
      Path stop = tmp.resolve("fg.stop");
      String dir = "/foreground/test";
      // 2 MB/s of 128 KiB reads (about 15 a second), 1 MB/s of 512 KiB writes (about 2 a second)
      Thread client = new Thread(() -> {
        try {
          ForegroundClient.main(new String[] {fs.getUri().toString(), dir, log.toString(), ready.toString(),
              stop.toString(), avoided.getXferAddr(), "2000000", "1000000", "7",
              Long.toString(ProcessHandle.current().pid())});
        } catch (Exception e) {
          throw new RuntimeException(e);
        }
      });
      client.start();
      long deadline = System.currentTimeMillis() + 120_000;
      while (!Files.exists(ready) && client.isAlive() && System.currentTimeMillis() < deadline) {
        Thread.sleep(50);
      }
      assertTrue(Files.exists(ready), "the client signals ready once its read set is written");
      Thread.sleep(4000);
      Files.writeString(stop, "stop\n");
      client.join(120_000);
      assertFalse(client.isAlive(), "the client stops when the stop file appears");

      List<Op> ops = ForegroundOps.read(log);
      long reads = ops.stream().filter(o -> o.kind() == Kind.READ).count();
      long writes = ops.stream().filter(o -> o.kind() == Kind.WRITE).count();
      assertTrue(reads >= 30, "reads issued at the offered rate: " + reads);
      assertTrue(writes >= 4, "writes issued at the offered rate: " + writes);
      assertEquals(List.of(), ops.stream().filter(o -> !o.ok()).toList(), "every operation succeeded, bytes checked");

      int files = 0;
      RemoteIterator<LocatedFileStatus> it = fs.listFiles(new org.apache.hadoop.fs.Path(dir), false);
      while (it.hasNext()) {
        LocatedFileStatus f = it.next();
        for (LocatedBlock b : fs.getClient().getLocatedBlocks(f.getPath().toUri().getPath(), 0, f.getLen())
            .getLocatedBlocks()) {
          assertEquals(ForegroundClient.REPLICATION, b.getLocations().length, f.getPath() + " fully replicated");
          for (DatanodeInfo d : b.getLocations()) {
            assertFalse(d.getXferAddr().equals(avoided.getXferAddr()), f.getPath() + " has a replica on "
                + avoided.getXferAddr());
          }
        }
        files++;
      }
      assertEquals(ForegroundClient.READ_FILES + writes, files, "the read set and one file per write");

      // A client whose benchmark JVM is gone stops by itself, with no stop file.
      Process gone = new ProcessBuilder("true").start();
      gone.waitFor();
      Path log2 = tmp.resolve("fg2.log");
      ForegroundClient.main(new String[] {fs.getUri().toString(), dir + "2", log2.toString(),
          tmp.resolve("fg2.ready").toString(), tmp.resolve("fg2.stop").toString(), avoided.getXferAddr(), "2000000",
          "1000000", "8", Long.toString(gone.pid())});
      assertTrue(Files.exists(tmp.resolve("fg2.ready")));
      assertFalse(Files.exists(tmp.resolve("fg2.stop")));
    }
  }
}
