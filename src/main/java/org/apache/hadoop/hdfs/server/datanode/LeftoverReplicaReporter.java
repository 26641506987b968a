package org.apache.hadoop.hdfs.server.datanode;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.proto.InterDatanodeProtocolProtos.InterDatanodeProtocolService;
import org.apache.hadoop.hdfs.protocolPB.InterDatanodeProtocolPB;
import org.apache.hadoop.hdfs.protocolPB.InterDatanodeProtocolServerSideTranslatorPB;
import org.apache.hadoop.hdfs.server.blockmanagement.BlockIdManager;
import org.apache.hadoop.hdfs.server.common.HdfsServerConstants;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.FsDatasetSpi;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.FsVolumeSpi;
import org.apache.hadoop.hdfs.server.protocol.BlockRecoveryCommand.RecoveringBlock;
import org.apache.hadoop.hdfs.server.protocol.BlockRecoveryCommand.RecoveringStripedBlock;
import org.apache.hadoop.hdfs.server.protocol.InterDatanodeProtocol;
import org.apache.hadoop.hdfs.server.protocol.ReplicaRecoveryInfo;
import org.apache.hadoop.ipc.RPC;
import org.apache.hadoop.util.AutoCloseableLock;
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
 * <p>So this DataNode answers the recovery's calls through this wrapper (and the recovery
 * worker hands over the units of recoveries it coordinates here), and a while after a unit of a
 * striped group entered recovery, if its replica is still in that recovery (state RUR, same
 * recovery id, old stamp), reports it to the NameNode as a replica being written, as a full
 * block report would. The NameNode decides from its own state: a group the recovery committed
 * has a newer stamp, so the leftover is marked stale and deleted; a group still under recovery
 * keeps it. The look and the report happen under the dataset lock, so the recovery cannot
 * finalize the replica in between. A DataNode that also holds a live unit of the same group
 * does not report: the NameNode marks stale replicas per group and DataNode, and would hide
 * the live unit with the leftover.
 */
public final class LeftoverReplicaReporter implements InterDatanodeProtocol {
  private static final Logger LOG = LoggerFactory.getLogger(LeftoverReplicaReporter.class);
  /** Looks at a unit after the delay, then twice more at 2 and 4 times it. */
  private static final int CHECKS = 3;
  /** Units watched at once; a storm of recoveries beyond this waits for the full block report. */
  static final int MAX_WATCHED = 4096;

  private record Unit(String bpid, long blockId) {}

  /** The replica's stamp and the recovery that left it. */
  private record Watch(long stamp, long recoveryId) {}

  private final DataNode datanode;
  private final long delayMs;
  private final ScheduledExecutorService timer;
  private final Map<Unit, Watch> watched = new ConcurrentHashMap<>();

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
      watch(new Unit(rBlock.getBlock().getBlockPoolId(), info.getBlockId()),
          new Watch(info.getGenerationStamp(), rBlock.getNewGenerationStamp()));
    }
    return info;
  }

  @Override
  public String updateReplicaUnderRecovery(ExtendedBlock oldBlock, long recoveryId, long newBlockId, long newLength)
      throws IOException {
    return datanode.updateReplicaUnderRecovery(oldBlock, recoveryId, newBlockId, newLength);
  }

  /**
   * Watches this DataNode's units of a group whose recovery it coordinated (the coordinator
   * calls itself directly, not through the IPC server): those still in that recovery.
   */
  public void watchLocal(RecoveringStripedBlock group) {
    String bpid = group.getBlock().getBlockPoolId();
    long groupId = group.getBlock().getBlockId();
    for (byte index : group.getBlockIndices()) {
      Replica r = datanode.getFSDataset().getReplica(bpid, groupId + index);
      if (r instanceof ReplicaUnderRecovery rur && rur.getRecoveryID() == group.getNewGenerationStamp()) {
        watch(new Unit(bpid, groupId + index), new Watch(r.getGenerationStamp(), rur.getRecoveryID()));
      }
    }
  }

  private void watch(Unit unit, Watch w) {
    if (watched.size() >= MAX_WATCHED && !watched.containsKey(unit)) {
      return;
    }
    if (!w.equals(watched.put(unit, w))) {
      schedule(unit, w, 0);
    }
  }

  private void schedule(Unit unit, Watch w, int check) {
    try {
      timer.schedule(() -> check(unit, w, check), delayMs << check, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException stopped) {
      watched.remove(unit, w);
    }
  }

  private void check(Unit unit, Watch w, int check) {
    if (!w.equals(watched.get(unit))) {
      return; // a later recovery of the same unit watches it now
    }
    boolean again = false;
    try {
      again = reportIfLeft(unit, w, delayMs << check) && check + 1 < CHECKS;
    } catch (RuntimeException e) {
      LOG.warn("ec-repair: could not look at replica {} after its lease recovery: {}", unit.blockId(), e.toString());
    }
    if (again) {
      schedule(unit, w, check + 1);
    } else {
      watched.remove(unit, w);
    }
  }

  /** Reports the unit if its replica is still in the recovery that left it; whether it did. */
  private boolean reportIfLeft(Unit unit, Watch w, long afterMs) {
    FsDatasetSpi<?> data = datanode.getFSDataset();
    ExtendedBlock leftover = new ExtendedBlock(unit.bpid(), unit.blockId(), 0, w.stamp());
    FsVolumeSpi volume = data.getVolume(leftover);
    if (volume == null) {
      return false; // gone, or given a new stamp
    }
    try (AutoCloseableLock lock = LineDatasetLock.read(data, unit.bpid(), volume.getStorageID())) {
      Replica r = data.getReplica(unit.bpid(), unit.blockId());
      if (!(r instanceof ReplicaUnderRecovery rur) || rur.getRecoveryID() != w.recoveryId()
          || r.getGenerationStamp() != w.stamp()) {
        return false;
      }
      String live = liveUnitOfGroup(data, unit, w.stamp());
      if (live != null) {
        LOG.info("ec-repair: {} is still in the lease recovery that began {} ms ago, but this DataNode also holds {} "
            + "of its group; not reported (the NameNode would take both for stale)", unit.blockId(), afterMs, live);
        return false;
      }
      leftover.setNumBytes(r.getNumBytes());
      LOG.info("ec-repair: {} is still in the lease recovery that began {} ms ago; reporting it to the NameNode",
          leftover, afterMs);
      datanode.notifyNamenodeReceivingBlock(leftover, volume.getStorageID());
      return true;
    }
  }

  /** Another unit of the group here with a newer stamp than the leftover's (a live one), or null. */
  private static String liveUnitOfGroup(FsDatasetSpi<?> data, Unit unit, long stamp) {
    long groupId = unit.blockId() & ~HdfsServerConstants.BLOCK_GROUP_INDEX_MASK;
    for (long id = groupId; id <= groupId + HdfsServerConstants.BLOCK_GROUP_INDEX_MASK; id++) {
      // getReplica, not getStoredBlock: from Hadoop 3.5 on, that throws for a block not held here
      Replica b = id == unit.blockId() ? null : data.getReplica(unit.bpid(), id);
      if (b != null && b.getGenerationStamp() > stamp) {
        return "blk_" + id + "_" + b.getGenerationStamp();
      }
    }
    return null;
  }
}
