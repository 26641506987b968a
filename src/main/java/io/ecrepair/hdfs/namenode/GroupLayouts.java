package io.ecrepair.hdfs.namenode;

import io.ecrepair.codes.lrc.LrcFamily;
import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.plan.CombinedLocality;
import java.io.IOException;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.server.blockmanagement.BlockInfo;
import org.apache.hadoop.hdfs.server.blockmanagement.BlockInfoStriped;
import org.apache.hadoop.hdfs.server.blockmanagement.DatanodeDescriptor;
import org.apache.hadoop.hdfs.server.blockmanagement.DatanodeStorageInfo;
import org.apache.hadoop.hdfs.server.namenode.FSDirectory;
import org.apache.hadoop.hdfs.server.namenode.FSNamesystem;
import org.apache.hadoop.hdfs.server.namenode.INode;
import org.apache.hadoop.hdfs.server.namenode.INodeFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the namespace says about the block group a placement serves, and the rack layout its
 * policy asks for, read under the namesystem's read lock (Hadoop 3.3.6 chooses targets for a
 * new block and for reconstruction without holding it).
 */
final class GroupLayouts {
  private static final Logger LOG = LoggerFactory.getLogger(GroupLayouts.class);

  private GroupLayouts() {
  }

  /**
   * A group being rebuilt: its layout, the rack of each live unit, the unit each target is for,
   * in target order, and the rack of each unit a leaving (decommissioning, entering
   * maintenance) node holds.
   */
  record Rebuild(CombinedLocality layout, Map<Integer, String> liveRacks, List<Integer> targetUnits,
                 Map<Integer, String> leavingRacks) {
  }

  /**
   * The rack layout of an EC policy's groups: combined locality for every LRC policy, topology
   * locality for an MDS policy named in {@code topologyPolicies}; empty for the rest, which
   * HDFS places.
   */
  static Optional<CombinedLocality> layoutOf(ErasureCodingPolicy policy, Set<String> topologyPolicies) {
    if (policy == null) {
      return Optional.empty();
    }
    boolean lrc = new LrcFamily().accepts(policy.getCodecName());
    if (!lrc && !topologyPolicies.contains(policy.getName())) {
      return Optional.empty();
    }
    return CombinedLocality.of(RepairCatalog.spec(policy));
  }

  /** The layout for a new block group of the file at {@code path}. */
  static Optional<CombinedLocality> ofFile(FSNamesystem fsn, String path, Set<String> topologyPolicies) {
    fsn.readLock();
    try {
      INodeFile file = file(fsn, path);
      if (file == null || !file.isStriped()) {
        return Optional.empty();
      }
      return layoutOf(fsn.getErasureCodingPolicyManager().getByID(file.getErasureCodingPolicyID()), topologyPolicies);
    } finally {
      fsn.readUnlock("ec-repair placement");
    }
  }

  /**
   * The group of the file at {@code path} that {@code live} (its live storages, as
   * reconstruction passes them) belong to, and the units its {@code targets} new storages are
   * for. A DataNode rebuilding a group gives its targets the missing indices in ascending
   * order (StripedWriter.initTargetIndices), skipping units a decommissioning or entering-
   * maintenance node still holds (those are sources). When nothing is missing, the NameNode
   * copies those leaving units instead, target i for the i-th leaving storage in the group's
   * storage order (ErasureCodingWork.findLeavingServiceSources), so each copy is placed as its
   * unit. Targets beyond these add a rack and stay -1 (any rack with room).
   */
  static Optional<Rebuild> ofRepair(FSNamesystem fsn, String path, List<DatanodeStorageInfo> live, int targets,
                                    Set<String> topologyPolicies) {
    fsn.readLock();
    try {
      INodeFile file = file(fsn, path);
      if (file == null || !file.isStriped()) {
        return Optional.empty();
      }
      for (BlockInfo block : file.getBlocks()) {
        if (block instanceof BlockInfoStriped group && holdsAll(group, live)) {
          return layoutOf(group.getErasureCodingPolicy(), topologyPolicies)
              .map(layout -> rebuild(layout, group, live, targets));
        }
      }
      return Optional.empty();
    } finally {
      fsn.readUnlock("ec-repair placement");
    }
  }

  private static INodeFile file(FSNamesystem fsn, String path) {
    try {
      INode node = fsn.getFSDirectory().getINode(path, FSDirectory.DirOp.READ);
      return node != null && node.isFile() ? node.asFile() : null;
    } catch (IOException e) {
      LOG.debug("cannot resolve {} for placement: {}", path, e.toString());
      return null;
    }
  }

  private static boolean holdsAll(BlockInfoStriped group, List<DatanodeStorageInfo> live) {
    for (DatanodeStorageInfo s : live) {
      if (group.getStorageBlockIndex(s) < 0) {
        return false;
      }
    }
    return true;
  }

  private static Rebuild rebuild(CombinedLocality layout, BlockInfoStriped group, List<DatanodeStorageInfo> live,
                                 int targets) {
    int k = group.getErasureCodingPolicy().getNumDataUnits();
    Map<Integer, String> liveRacks = new HashMap<>();
    BitSet present = new BitSet();
    for (DatanodeStorageInfo s : live) {
      int unit = group.getStorageBlockIndex(s);
      liveRacks.put(unit, s.getDatanodeDescriptor().getNetworkLocation());
      present.set(unit);
    }
    // In storage order, one entry per leaving storage, as HDFS pairs them with targets.
    List<Integer> leaving = new ArrayList<>();
    Map<Integer, String> leavingRacks = new HashMap<>();
    for (BlockInfoStriped.StorageAndBlockIndex si : group.getStorageAndIndexInfos()) {
      DatanodeDescriptor dn = si.getStorage().getDatanodeDescriptor();
      if (!present.get(si.getBlockIndex()) && (dn.isDecommissionInProgress() || dn.isEnteringMaintenance())) {
        leaving.add((int) si.getBlockIndex());
        leavingRacks.put((int) si.getBlockIndex(), dn.getNetworkLocation());
      }
    }
    List<Integer> units = new ArrayList<>();
    for (int u = 0; u < layout.code().n() && units.size() < targets; u++) {
      boolean real = u >= k || u < group.getRealDataBlockNum();
      if (real && !present.get(u) && !leaving.contains(u)) {
        units.add(u);
      }
    }
    if (units.isEmpty()) {
      leaving.stream().limit(targets).forEach(units::add);
    }
    while (units.size() < targets) {
      units.add(-1);
    }
    return new Rebuild(layout, liveRacks, units, leavingRacks);
  }
}
