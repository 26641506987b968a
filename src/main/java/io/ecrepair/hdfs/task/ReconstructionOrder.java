package io.ecrepair.hdfs.task;

import io.ecrepair.codes.CodeSpec;
import java.util.Arrays;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.server.datanode.erasurecode.EcRepairReconstructionAccess;

/**
 * What the NameNode asked this DataNode to rebuild (its BlockECReconstructionInfo, as HDFS's
 * own reconstructor holds it): the block group, every live source with its internal block
 * index, and the targets with the indices HDFS assigned them.
 *
 * @param xmits what HDFS counted against the DataNode's xmits for the task, before weighting
 */
public record ReconstructionOrder(ExtendedBlock blockGroup, ErasureCodingPolicy policy, byte[] liveIndices,
                           DatanodeInfo[] sources, short[] targetIndices, DatanodeInfo[] targets,
                           StorageType[] targetStorageTypes, String[] targetStorageIds, int xmits) {

  /**
   * Reads the order out of a {@code StripedBlockReconstructor} HDFS built. HDFS's writer gives
   * the missing indices (not live, holding bytes, not excluded by the NameNode) to the targets in
   * ascending order; when the NameNode sent more targets than there are such indices
   * (decommissioning and busy DataNodes), the writer leaves the extra targets' indices 0. Only
   * the targets that got an index are kept: the extra ones would receive a copy of block 0 (or
   * a second copy of a block this task rebuilds), which HDFS would have to delete again.
   */
  public static ReconstructionOrder of(Runnable stockTask) {
    short[] indices = EcRepairReconstructionAccess.targetIndices(stockTask);
    int assigned = assignedTargets(indices);
    return new ReconstructionOrder(EcRepairReconstructionAccess.blockGroup(stockTask),
        EcRepairReconstructionAccess.policy(stockTask), EcRepairReconstructionAccess.liveIndices(stockTask),
        EcRepairReconstructionAccess.sources(stockTask), Arrays.copyOf(indices, assigned),
        Arrays.copyOf(EcRepairReconstructionAccess.targets(stockTask), assigned),
        Arrays.copyOf(EcRepairReconstructionAccess.targetStorageTypes(stockTask), assigned),
        Arrays.copyOf(EcRepairReconstructionAccess.targetStorageIds(stockTask), assigned),
        EcRepairReconstructionAccess.xmits(stockTask));
  }

  /** How many targets HDFS's writer gave an index: the strictly ascending prefix it filled. */
  static int assignedTargets(short[] indices) {
    int n = indices.length == 0 ? 0 : 1;
    while (n < indices.length && indices[n] > indices[n - 1]) {
      n++;
    }
    return n;
  }

  /** Targets the NameNode sent beyond those with a missing index (ignored, see {@link #of}). */
  public static int extraTargets(Runnable stockTask) {
    short[] indices = EcRepairReconstructionAccess.targetIndices(stockTask);
    return indices.length - assignedTargets(indices);
  }

  CodeSpec code() {
    return new CodeSpec(policy.getCodecName(), policy.getNumDataUnits(), policy.getNumParityUnits());
  }

  @Override
  public String toString() {
    return policy.getName() + " group " + blockGroup + " rebuild " + Arrays.toString(targetIndices) + " from "
        + Arrays.toString(liveIndices);
  }
}
