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

  /** Reads the order out of a {@code StripedBlockReconstructor} HDFS built. */
  public static ReconstructionOrder of(Runnable stockTask) {
    return new ReconstructionOrder(EcRepairReconstructionAccess.blockGroup(stockTask),
        EcRepairReconstructionAccess.policy(stockTask), EcRepairReconstructionAccess.liveIndices(stockTask),
        EcRepairReconstructionAccess.sources(stockTask), EcRepairReconstructionAccess.targetIndices(stockTask),
        EcRepairReconstructionAccess.targets(stockTask), EcRepairReconstructionAccess.targetStorageTypes(stockTask),
        EcRepairReconstructionAccess.targetStorageIds(stockTask), EcRepairReconstructionAccess.xmits(stockTask));
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
