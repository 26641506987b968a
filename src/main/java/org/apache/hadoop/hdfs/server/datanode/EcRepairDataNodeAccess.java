package org.apache.hadoop.hdfs.server.datanode;

/**
 * hadoop-ec-repair's window into a package-private DataNode field: whether the DataNode
 * enforces block access tokens. The DataNode takes it from the NameNode's block keys when it
 * registers (not from its own configuration), and checks every data transfer request against
 * it; the repair agents check theirs against the same.
 */
public final class EcRepairDataNodeAccess {
  private EcRepairDataNodeAccess() {}

  public static boolean blockTokensEnforced(DataNode dn) {
    return dn.isBlockTokenEnabled;
  }
}
