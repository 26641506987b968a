package org.apache.hadoop.hdfs.server.datanode;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hdfs.protocol.Block;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.proto.InterDatanodeProtocolProtos.InterDatanodeProtocolService;
import org.apache.hadoop.hdfs.protocolPB.InterDatanodeProtocolPB;
import org.apache.hadoop.hdfs.protocolPB.InterDatanodeProtocolServerSideTranslatorPB;
import org.apache.hadoop.hdfs.server.blockmanagement.BlockIdManager;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.FsVolumeSpi;
import org.apache.hadoop.hdfs.server.protocol.BlockRecoveryCommand.RecoveringBlock;
import org.apache.hadoop.hdfs.server.protocol.InterDatanodeProtocol;
import org.apache.hadoop.hdfs.server.protocol.ReplicaRecoveryInfo;
import org.apache.hadoop.ipc.RPC;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the NameNode about the units a striped lease recovery left behind on this DataNode.
 *
 * <p>The recovery moves every unit's replica to state RUR, then keeps only those that reach
 * the safe length (HDFS's {@code RecoveryTaskStriped} and ours alike). A shorter one stays in
 * RUR with its old generation stamp, and the NameNode, told that its unit has no location,
 * may choose this DataNode to rebuild that very unit: the rebuild's write is refused ("already
 * exists in state RUR") every time until the next full block report, hours later, lets the
 * NameNode delete the leftover.
 *
 * <p>So this DataNode answers the recovery's calls through this wrapper and, a while after a
 * unit of a striped group entered recovery here, if its replica still has the generation
 * stamp it had then, reports it to the NameNode as a replica being written, as a full block
 * report would. The NameNode decides from its own state: a group the recovery committed has
 * a newer stamp, so the leftover is marked stale and deleted; a group still under recovery
 * keeps it. The report changes nothing else, so a recovery that is merely slow is not hurt.
 */
public final class LeftoverReplicaReporter implements InterDatanodeProtocol {
  private static final Logger LOG = LoggerFactory.getLogger(LeftoverReplicaReporter.class);
  /** Looks at a unit after the delay, then twice more at 2 and 4 times it. */
  private static final int CHECKS = 3;
  /** Units watched at once; a storm of recoveries beyond this waits for the full block report. */
  static final int MAX_WATCHED = 4096;

  private final DataNode datanode;
  private final long delayMs;
  private final ScheduledExecutorService timer;
  private final Map<Long, Long> watched = new ConcurrentHashMap<>();

  private LeftoverReplicaReporter(DataNode datanode, long delayMs) {
    this.datanode = datanode;
    this.delayMs = delayMs;
    ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, r -> {
      Thread th = new Thread(r, "ec-repair-leftovers");
      th.setDaemon(true);
      return th;
    });
    t.setRemoveOnCancelPolicy(true);
    t.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    this.timer = t;
  }

  /** Serves {@code dn}'s recovery calls through a new reporter that looks at units {@code delayMs} after. */
  public static LeftoverReplicaReporter install(DataNode dn, long delayMs) throws IOException {
    if (dn.ipcServer == null) {
      throw new IllegalStateException("this DataNode has no IPC server");
    }
    LeftoverReplicaReporter reporter = new LeftoverReplicaReporter(dn, delayMs);
    serve(dn, reporter);
    return reporter;
  }

  /** Serves the recovery calls by the DataNode itself again and stops watching. */
  public void uninstall() {
    try {
      serve(datanode, datanode);
    } catch (IOException | RuntimeException e) {
      LOG.warn("ec-repair: could not give the recovery calls back to the DataNode: {}", e.toString());
    }
    timer.shutdownNow();
    watched.clear();
  }

  /** Units being watched now. */
  int watching() {
    return watched.size();
  }

  /** Registering a protocol again replaces its implementation on the running server. */
  private static void serve(DataNode dn, InterDatanodeProtocol impl) throws IOException {
    Object service = InterDatanodeProtocolService.newReflectiveBlockingService(
        new InterDatanodeProtocolServerSideTranslatorPB(impl));
    dn.ipcServer.addProtocol(RPC.RpcKind.RPC_PROTOCOL_BUFFER, InterDatanodeProtocolPB.class, service);
  }

  @Override
  public ReplicaRecoveryInfo initReplicaRecovery(RecoveringBlock rBlock) throws IOException {
    ReplicaRecoveryInfo info = datanode.initReplicaRecovery(rBlock);
    if (info != null && BlockIdManager.isStripedBlockID(info.getBlockId())) {
      watch(rBlock.getBlock().getBlockPoolId(), info.getBlockId(), info.getGenerationStamp());
    }
    return info;
  }

  @Override
  public String updateReplicaUnderRecovery(ExtendedBlock oldBlock, long recoveryId, long newBlockId, long newLength)
      throws IOException {
    return datanode.updateReplicaUnderRecovery(oldBlock, recoveryId, newBlockId, newLength);
  }

  private void watch(String bpid, long blockId, long stamp) {
    if (watched.size() >= MAX_WATCHED && !watched.containsKey(blockId)) {
      return;
    }
    Long before = watched.put(blockId, stamp);
    if (before == null || before != stamp) {
      schedule(bpid, blockId, stamp, 0);
    }
  }

  private void schedule(String bpid, long blockId, long stamp, int check) {
    try {
      timer.schedule(() -> check(bpid, blockId, stamp, check), delayMs << check, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException stopped) {
      watched.remove(blockId, stamp);
    }
  }

  private void check(String bpid, long blockId, long stamp, int check) {
    Long watching = watched.get(blockId);
    if (watching == null || watching != stamp) {
      return; // a later recovery of the same unit watches it now
    }
    boolean again = false;
    try {
      Block replica = datanode.getFSDataset().getStoredBlock(bpid, blockId);
      if (replica != null && replica.getGenerationStamp() == stamp) {
        ExtendedBlock leftover = new ExtendedBlock(bpid, blockId, replica.getNumBytes(), stamp);
        FsVolumeSpi volume = datanode.getFSDataset().getVolume(leftover);
        if (volume != null) {
          LOG.info("ec-repair: {} is still at generation stamp {} {} ms after its lease recovery began; "
              + "reporting it to the NameNode", leftover, stamp, delayMs << check);
          datanode.notifyNamenodeReceivingBlock(leftover, volume.getStorageID());
          again = check + 1 < CHECKS;
        }
      }
    } catch (IOException | RuntimeException e) {
      LOG.warn("ec-repair: could not look at replica {} after its lease recovery: {}", blockId, e.toString());
    }
    if (again) {
      schedule(bpid, blockId, stamp, check + 1);
    } else {
      watched.remove(blockId, stamp);
    }
  }
}
