package org.apache.hadoop.hdfs.server.datanode;

import java.io.IOException;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.server.common.HdfsServerConstants;
import org.apache.hadoop.hdfs.server.protocol.BlockRecoveryCommand.RecoveringBlock;
import org.apache.hadoop.hdfs.server.protocol.BlockRecoveryCommand.RecoveringStripedBlock;
import org.apache.hadoop.util.Daemon;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DataNode's lease recovery, with the safe length of a striped group taken from a
 * {@link SafeLength} for the policies it covers (HDFS keeps every stripe that any k units
 * hold, which a code that is not MDS cannot always rebuild). Everything else of the recovery
 * (replica states, truncation, the commit to the NameNode) is HDFS's own
 * {@code RecoveryTaskStriped}; other blocks go to HDFS's worker untouched. Installed in place
 * of the DataNode's private {@code blockRecoveryWorker} field, which the block pool services
 * look up for every recovery command.
 */
public final class EcRepairBlockRecoveryWorker extends BlockRecoveryWorker {
  private static final Logger LOG = LoggerFactory.getLogger(EcRepairBlockRecoveryWorker.class);
  private static final Field WORKER = workerField();

  /** The safe length of a striped group, for the policies it covers. */
  public interface SafeLength {
    boolean covers(ErasureCodingPolicy policy);

    /** Bytes of the group to keep, from each unit's replica length (index = unit, 0 for none). */
    long of(ErasureCodingPolicy policy, long[] unitLengths);
  }

  private final DataNode datanode;
  private final BlockRecoveryWorker stock;
  private final SafeLength safeLength;
  private final LeftoverReplicaReporter leftovers;

  private EcRepairBlockRecoveryWorker(DataNode datanode, BlockRecoveryWorker stock, SafeLength safeLength,
                                      LeftoverReplicaReporter leftovers) {
    super(datanode);
    this.datanode = datanode;
    this.stock = stock;
    this.safeLength = safeLength;
    this.leftovers = leftovers;
  }

  /** Throws with the missing member's name when this Hadoop does not have what the worker needs. */
  public static void check() {
    // The static initializer resolved the field; touching the class is the check.
  }

  /**
   * Puts a worker using {@code safeLength} in place of the DataNode's; returns it. The units of
   * this DataNode a recovery it coordinates leaves behind go to {@code leftovers} (none if null).
   */
  public static synchronized EcRepairBlockRecoveryWorker install(DataNode dn, SafeLength safeLength,
                                                                 LeftoverReplicaReporter leftovers) {
    BlockRecoveryWorker current = dn.getBlockRecoveryWorker();
    if (current == null) {
      throw new IllegalStateException("this DataNode has no block recovery worker");
    }
    if (current instanceof EcRepairBlockRecoveryWorker) {
      throw new IllegalStateException("the ec-repair block recovery worker is already installed on this DataNode");
    }
    EcRepairBlockRecoveryWorker ours = new EcRepairBlockRecoveryWorker(dn, current, safeLength, leftovers);
    set(dn, ours);
    return ours;
  }

  /** Puts HDFS's worker back if this one is still installed. */
  public synchronized void uninstall() {
    synchronized (EcRepairBlockRecoveryWorker.class) {
      if (datanode.getBlockRecoveryWorker() == this) {
        set(datanode, stock);
      }
    }
  }

  @Override
  public Daemon recoverBlocks(String who, Collection<RecoveringBlock> blocks) {
    List<RecoveringStripedBlock> ours = new ArrayList<>();
    List<RecoveringBlock> others = new ArrayList<>();
    for (RecoveringBlock b : blocks) {
      if (b.isStriped() && safeLength.covers(((RecoveringStripedBlock) b).getErasureCodingPolicy())) {
        ours.add((RecoveringStripedBlock) b);
      } else {
        others.add(b);
      }
    }
    if (ours.isEmpty()) {
      return stock.recoverBlocks(who, blocks);
    }
    if (!others.isEmpty()) {
      stock.recoverBlocks(who, others);
    }
    Daemon d = new Daemon(datanode.threadGroup, () -> {
      datanode.getMetrics().incrDataNodeBlockRecoveryWorkerCount();
      try {
        for (RecoveringStripedBlock b : ours) {
          LOG.info("{} calls recoverBlock({}, targets={}, newGenerationStamp={}); ec-repair takes the safe length "
              + "from what the code can rebuild", who, b.getBlock(), Arrays.asList(b.getLocations()),
              b.getNewGenerationStamp());
          try {
            new DecodableRecovery(b).recover();
          } catch (IOException | RuntimeException e) {
            LOG.warn("recover Block: {} FAILED: {}", b, e.toString());
          }
          if (leftovers != null) {
            leftovers.watchLocal(b);
          }
        }
      } finally {
        datanode.getMetrics().decrDataNodeBlockRecoveryWorkerCount();
      }
    });
    d.start();
    return d;
  }

  /** HDFS's striped recovery with the safe length from {@link SafeLength}. */
  private final class DecodableRecovery extends RecoveryTaskStriped {
    private final RecoveringStripedBlock group;
    private final ErasureCodingPolicy policy;

    DecodableRecovery(RecoveringStripedBlock group) {
      super(group);
      this.group = group;
      this.policy = group.getErasureCodingPolicy();
    }

    @Override
    long getSafeLength(Map<Long, BlockRecord> syncBlocks) {
      long[] unitLengths = new long[policy.getNumDataUnits() + policy.getNumParityUnits()];
      for (BlockRecord r : syncBlocks.values()) {
        int index = (int) (r.getReplicaRecoveryInfo().getBlockId() & HdfsServerConstants.BLOCK_GROUP_INDEX_MASK);
        unitLengths[index] = Math.max(unitLengths[index], r.getReplicaRecoveryInfo().getNumBytes());
      }
      long length = safeLength.of(policy, unitLengths);
      LOG.info("ec-repair: lease recovery of {} ({}): unit lengths {}, safe length {}", group.getBlock(),
          policy.getName(), Arrays.toString(unitLengths), length);
      return length;
    }
  }

  private static Field workerField() {
    try {
      Field f = DataNode.class.getDeclaredField("blockRecoveryWorker");
      if (f.getType() != BlockRecoveryWorker.class) {
        throw new IllegalStateException("DataNode.blockRecoveryWorker is a " + f.getType().getName());
      }
      f.setAccessible(true);
      return f;
    } catch (NoSuchFieldException e) {
      throw new IllegalStateException("DataNode has no field blockRecoveryWorker", e);
    }
  }

  private static void set(DataNode dn, BlockRecoveryWorker worker) {
    try {
      WORKER.set(dn, worker);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException("cannot set DataNode.blockRecoveryWorker", e);
    }
  }
}
