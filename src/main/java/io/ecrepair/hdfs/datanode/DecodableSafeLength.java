package io.ecrepair.hdfs.datanode;

import io.ecrepair.codes.RepairableCode;
import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.layout.RecoverableStripes;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.server.datanode.EcRepairBlockRecoveryWorker;

/**
 * The safe length of a group of one of our policies after its writer died: the whole stripes
 * whose lost cells the surviving units determine ({@link RecoverableStripes}). For an MDS code
 * this is what HDFS keeps; for LRC it is shorter when the writer died before the cells of a
 * local group reached their DataNodes.
 */
final class DecodableSafeLength implements EcRepairBlockRecoveryWorker.SafeLength {
  @Override
  public boolean covers(ErasureCodingPolicy policy) {
    return RepairCatalog.owns(policy, false);
  }

  @Override
  public long of(ErasureCodingPolicy policy, long[] unitLengths) {
    RepairableCode code = RepairCatalog.code(RepairCatalog.spec(policy));
    long stripes = RecoverableStripes.count(unitLengths, policy.getCellSize(), code::decodable);
    return stripes * policy.getNumDataUnits() * policy.getCellSize();
  }
}
