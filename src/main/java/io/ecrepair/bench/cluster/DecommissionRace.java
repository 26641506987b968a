package io.ecrepair.bench.cluster;

import io.ecrepair.bench.cluster.ClusterHandle.Node;
import io.ecrepair.harness.PatternData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.HdfsConstants.DatanodeReportType;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;

/**
 * Decommissioning a DataNode that holds blocks of a policy, as an operator does it: its address
 * goes into the NameNode's exclude file ({@code dfs.hosts.exclude}) and the NameNode re-reads it
 * ({@code hdfs dfsadmin -refreshNodes}). Measured: the time until the NameNode reports it
 * decommissioned, every internal block it held then having a copy on a node in service, each
 * compared with the original. HDFS copies a decommissioning node's internal blocks from it (one
 * block read per block moved, whatever the code) and rebuilds only those it cannot copy; then the
 * node is put back in service for the next scenario.
 */
public final class DecommissionRace {
  /** One decommissioning. */
  public record Result(String scenario, String policy, int groups, long blockBytes, String node, int blocks,
                       double seconds, boolean verified) {}

  private final ClusterHandle cluster;
  private final DistributedFileSystem fs;
  private final FullNodeRecovery recovery;
  private final Consumer<String> progress;
  private final long timeoutMs;

  public DecommissionRace(ClusterHandle cluster, DistributedFileSystem fs, FullNodeRecovery recovery,
                          Consumer<String> progress, long timeoutMs) {
    this.cluster = cluster;
    this.fs = fs;
    this.recovery = recovery;
    this.progress = progress;
    this.timeoutMs = timeoutMs;
  }

  public Result run(String scenario, ErasureCodingPolicy policy, int groups, long blockSize, long seed,
                    LongConsumer written) throws IOException, InterruptedException {
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(Scenario.benchDir(scenario) + "/decommission");
    long length = (long) groups * policy.getNumDataUnits() * blockSize;
    progress.accept(String.format("%s: decommissioning: writing %d block groups (%d MiB) under %s", scenario, groups,
        length >> 20, policy.getName()));
    BenchFiles.write(fs, file, policy, blockSize, length, new PatternData(seed), written);
    List<LocatedStripedBlock> before = BenchFiles.awaitAllBlocks(fs, file, timeoutMs);
    Node leaving = cluster.dataNodeAt(FullNodeRecovery.mostLoaded(before, Set.of()));
    List<int[]> held = new ArrayList<>();
    Map<String, String> originals = recovery.replicasOn(leaving, before, held);
    cluster.settleWrites();
    Path exclude = cluster.state().resolve("conf").resolve("exclude");
    try {
      progress.accept(String.format("%s: decommissioning %s (%s), which holds %d internal blocks", scenario,
          leaving.name(), leaving.ip(), held.size()));
      long t0 = System.nanoTime();
      Files.writeString(exclude, leaving.ip() + "\n");
      fs.refreshNodes();
      long deadline = System.currentTimeMillis() + timeoutMs;
      while (!decommissioned(leaving)) {
        if (System.currentTimeMillis() > deadline) {
          throw new IOException(scenario + ": " + leaving.name() + " is not decommissioned after " + timeoutMs / 1000
              + " s (logs: " + cluster.logDir() + ")");
        }
        Thread.sleep(100);
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      List<LocatedStripedBlock> after = fs.getClient().getLocatedBlocks(file.toString(), 0, Long.MAX_VALUE)
          .getLocatedBlocks().stream().map(b -> (LocatedStripedBlock) b).toList();
      boolean verified = FullNodeRecovery.complete(after, policy, leaving)
          && recovery.verify(after, held, originals, leaving).stream().allMatch(FullNodeRecovery.LostBlock::verified);
      progress.accept(String.format(java.util.Locale.ROOT, "%s: %s decommissioned in %.1f s, %d blocks moved, %s",
          scenario, leaving.name(), seconds, held.size(), verified ? "all verified" : "VERIFICATION FAILED"));
      return new Result(scenario, policy.getName(), groups, blockSize, leaving.name(), held.size(), seconds, verified);
    } finally {
      Files.writeString(exclude, "");
      fs.refreshNodes();
      fs.delete(file.getParent(), true);
      awaitInService(leaving);
      progress.accept(scenario + ": " + leaving.name() + " is back in service");
    }
  }

  private boolean decommissioned(Node node) throws IOException {
    for (DatanodeInfo d : fs.getDataNodeStats(DatanodeReportType.LIVE)) {
      if (d.getIpAddr().equals(node.ip())) {
        return d.isDecommissioned();
      }
    }
    return false;
  }

  private void awaitInService(Node node) throws IOException, InterruptedException {
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (System.currentTimeMillis() < deadline) {
      for (DatanodeInfo d : fs.getDataNodeStats(DatanodeReportType.LIVE)) {
        if (d.getIpAddr().equals(node.ip()) && d.isInService()) {
          return;
        }
      }
      Thread.sleep(100);
    }
    throw new IOException(node.name() + " did not return to service after " + timeoutMs / 1000 + " s");
  }
}
