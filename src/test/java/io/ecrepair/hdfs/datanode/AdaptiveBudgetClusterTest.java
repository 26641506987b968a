package io.ecrepair.hdfs.datanode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.harness.MiniHdfs;
import io.ecrepair.hdfs.task.DataNodeKeys;
import io.ecrepair.testing.ClusterTest;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.management.ObjectName;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The adaptive repair budget on live DataNodes: a DataNode serving a reader holds its outbound
 * repair traffic to the floor while the reader reads, one receiving a writer's bytes holds its
 * inbound, and both run unlimited again within seconds of the foreground stopping. Limits are
 * read over JMX as an operator reads them.
 */
@ClusterTest
class AdaptiveBudgetClusterTest {
  private static final long LINK_MBIT = 100;
  private static final long FLOOR = LINK_MBIT * 1_000_000 / 8 / 10;  // 10% of the link

  @TempDir
  Path tmp;

  @Test
  void repairYieldsToForegroundTrafficAndTakesTheLinkBackWhenItStops() throws Exception {
    Configuration extra = new Configuration(false);
    extra.setBoolean(DataNodeKeys.REPAIR_ADAPTIVE_KEY, true);
    extra.setLong(DataNodeKeys.REPAIR_LINK_MBIT_KEY, LINK_MBIT);
    try (MiniHdfs hdfs = new MiniHdfs(tmp.toFile(), 3, MiniHdfs.pluginConf(extra), x -> { })) {
      DistributedFileSystem fs = hdfs.fileSystem();
      org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/hot");
      byte[] data = new byte[8 << 20];
      new java.util.Random(1).nextBytes(data);
      try (FSDataOutputStream out = fs.createFile(file).replicate().replication((short) 1).build()) {
        out.write(data);
      }
      DatanodeInfo holder = fs.getClient().getLocatedBlocks("/hot", 0, data.length).get(0).getLocations()[0];
      ObjectName bean = bean(holder);
      // the write just made raises the inbound estimate at the next tick: wait for it, then for its decay
      Thread.sleep(3 * AdaptiveRepairBudget.PERIOD_MS);
      Jmx.eventually("an idle DataNode's repair runs unlimited", () -> now(bean, "Out") == 0 && now(bean, "In") == 0
          ? null : "out now " + now(bean, "Out") + ", in now " + now(bean, "In"));
      assertTrue((Boolean) ManagementFactory.getPlatformMBeanServer().getAttribute(bean, "Adaptive"));

      AtomicBoolean reading = new AtomicBoolean(true);
      Thread reader = new Thread(() -> {
        byte[] buf = new byte[1 << 20];
        try (FSDataInputStream in = fs.open(file)) {
          while (reading.get()) {
            in.readFully(new java.util.Random().nextInt(data.length - buf.length), buf);
          }
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      });
      reader.start();
      try {
        Jmx.eventually("a DataNode serving a reader at its link's rate keeps only the floor for repair",
            () -> now(bean, "Out") == FLOOR ? null : "out now " + now(bean, "Out"));
        assertEquals(0, now(bean, "In"), "reads leave the inbound budget alone");
      } finally {
        reading.set(false);
        reader.join();
      }
      long stopped = System.nanoTime();
      Jmx.eventually("repair takes the link back once the reader stops",
          () -> now(bean, "Out") == 0 ? null : "out now " + now(bean, "Out"));
      double seconds = (System.nanoTime() - stopped) / 1e9;
      assertTrue(seconds < 10, "unlimited again " + seconds + " s after the reader stopped");

      // A writer's bytes arriving: the inbound budget yields below the operator's limit; a limit of the
      // operator's below the floor still holds.
      ManagementFactory.getPlatformMBeanServer().setAttribute(bean,
          new javax.management.Attribute("RepairBandwidthIn", 5_000_000L));
      assertEquals(5_000_000L, now(bean, "In"), "idle: the operator's limit alone");
      AtomicBoolean writing = new AtomicBoolean(true);
      Thread writer = new Thread(() -> {
        int n = 0;
        while (writing.get()) {
          try (FSDataOutputStream out = fs.createFile(new org.apache.hadoop.fs.Path("/w" + n++)).replicate()
              .replication((short) 1).favoredNodes(new java.net.InetSocketAddress[] {
                  new java.net.InetSocketAddress(holder.getIpAddr(), holder.getXferPort())}).build()) {
            out.write(data);
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        }
      });
      writer.start();
      try {
        Jmx.eventually("a DataNode receiving a writer's bytes keeps only the floor for inbound repair",
            () -> now(bean, "In") == FLOOR ? null : "in now " + now(bean, "In"));
        ManagementFactory.getPlatformMBeanServer().setAttribute(bean,
            new javax.management.Attribute("RepairBandwidthIn", 100_000L));
        assertEquals(100_000L, now(bean, "In"), "the operator's limit below the floor holds");
      } finally {
        writing.set(false);
        writer.join();
      }
    }
  }

  private static ObjectName bean(DatanodeInfo d) throws Exception {
    return new ObjectName("Hadoop:service=DataNode,name=" + RepairBudgetMXBean.NAME_PREFIX + d.getIpAddr() + "-"
        + d.getXferPort());
  }

  private static long now(ObjectName bean, String direction) throws Exception {
    return (Long) ManagementFactory.getPlatformMBeanServer().getAttribute(bean, "RepairBandwidth" + direction + "Now");
  }
}
