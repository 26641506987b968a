package io.ecrepair.hdfs.namenode;

import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configurable;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.AddBlockFlag;
import org.apache.hadoop.hdfs.protocol.BlockStoragePolicy;
import org.apache.hadoop.hdfs.server.blockmanagement.BlockPlacementPolicyRackFaultTolerant;
import org.apache.hadoop.hdfs.server.blockmanagement.DatanodeDescriptor;
import org.apache.hadoop.hdfs.server.blockmanagement.DatanodeStorageInfo;
import org.apache.hadoop.net.InnerNode;
import org.apache.hadoop.net.Node;
import org.apache.hadoop.net.NodeBase;
import org.apache.hadoop.util.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An EC block placement policy ({@code dfs.block.placement.ec.classname}, on the NameNode)
 * that spreads reconstruction targets over the DataNodes instead of picking them at random.
 *
 * <p>New block groups are placed exactly as {@link BlockPlacementPolicyRackFaultTolerant}
 * places them. When targets are added to an existing group (reconstruction: some storages
 * are already chosen), every candidate the parent would draw at random is instead the
 * least-loaded DataNode of the scope it draws from (ties at random). The parent still checks
 * each candidate (in service, not stale, rack limits, storage type and space) and, if it
 * refuses one, excludes it and asks again, getting the next least-loaded node; so the target
 * is the least-loaded node the parent would accept.
 *
 * <p>Load of a DataNode = EC tasks the NameNode has queued for it and it has not fetched yet
 * (it coordinates those: reads the helpers, decodes, writes) + blocks scheduled to be written to
 * it and not yet reported received (every target of a queued or running reconstruction, and
 * new-block writes in flight) + targets this policy gave it recently ({@link RepairLoad}). The
 * NameNode of 3.3.6 keeps no per-DataNode xmits (a heartbeat's xmitsInProgress only sizes that
 * heartbeat's reply), so the blocks-scheduled count is what shows running work. A task weighs
 * most when new and less as it progresses and its figures drop; that is fair, as an older task
 * has less left to transfer.
 *
 * <p>Hook (Hadoop 3.3.6): reconstruction calls the public {@code chooseTarget} with the live
 * storages as {@code chosen}; the parent's rack-fault-tolerant {@code chooseTargetInOrder}
 * then draws every target through {@code chooseRandom}, which asks {@code chooseDataNode} for a
 * candidate and checks it. A per-thread value set in {@code chooseTarget} tells
 * {@code chooseDataNode} that it serves a repair, and which DataNodes the NameNode excluded for
 * it: every node holding a replica of the group (corrupt ones too) and the group's pending
 * targets. When no such node is left, the parent falls back to "placing evenly on the remaining
 * racks" and passes on only the targets chosen so far as excluded, so without the value a
 * repair could land on a node that holds a corrupt replica of the very block it rebuilds (the
 * write then fails there: the replica exists), again at every pending timeout.
 */
public class SpreadRepairPlacementPolicy extends BlockPlacementPolicyRackFaultTolerant implements Configurable {
  private static final Logger LOG = LoggerFactory.getLogger(SpreadRepairPlacementPolicy.class);
  /** While this thread chooses targets for an existing group: the nodes the NameNode excluded; else null. */
  private static final ThreadLocal<Set<Node>> REPAIR_EXCLUDED = new ThreadLocal<>();
  private static final AtomicBoolean ANNOUNCED = new AtomicBoolean();

  private volatile RepairLoad load =
      new RepairLoad(TimeUnit.SECONDS.toMillis(NameNodeKeys.REPAIR_SPREAD_WINDOW_SECONDS_DEFAULT), Time::monotonicNow);
  private volatile Configuration conf;

  public SpreadRepairPlacementPolicy() {
  }

  /**
   * Reads our settings and logs that the policy is active. {@code initialize} cannot be
   * overridden outside Hadoop's package (its Host2NodesMap parameter is package-private);
   * BlockPlacementPolicies creates the policy with ReflectionUtils.newInstance, which calls this
   * just before {@code initialize}, once per policy instance. The NameNode makes more instances
   * than one (every fsck, every reconfiguration), so only the first logs at INFO.
   */
  @Override
  public void setConf(Configuration conf) {
    this.conf = conf;
    long window = conf.getTimeDuration(NameNodeKeys.REPAIR_SPREAD_WINDOW_SECONDS_KEY,
        NameNodeKeys.REPAIR_SPREAD_WINDOW_SECONDS_DEFAULT, TimeUnit.SECONDS, TimeUnit.MILLISECONDS);
    load = new RepairLoad(window, Time::monotonicNow);
    String active = "ec-repair: EC placement policy {} active: new block groups placed as by {}; reconstruction "
        + "targets go to the least-loaded eligible DataNode (queued EC tasks + blocks scheduled + targets given in the "
        + "last {} ms, {})";
    Object[] args = {getClass().getSimpleName(), BlockPlacementPolicyRackFaultTolerant.class.getSimpleName(), window,
        NameNodeKeys.REPAIR_SPREAD_WINDOW_SECONDS_KEY};
    if (getClass() == SpreadRepairPlacementPolicy.class && ANNOUNCED.compareAndSet(false, true)) {
      LOG.info(active, args); // a subclass says what it does itself
    } else {
      LOG.debug(active, args);
    }
  }

  @Override
  public Configuration getConf() {
    return conf;
  }

  @Override
  public DatanodeStorageInfo[] chooseTarget(String srcPath, int numOfReplicas, Node writer,
                                            List<DatanodeStorageInfo> chosen, boolean returnChosenNodes,
                                            Set<Node> excludedNodes, long blocksize, BlockStoragePolicy storagePolicy,
                                            EnumSet<AddBlockFlag> flags) {
    if (!isRepair(chosen)) {
      return super.chooseTarget(srcPath, numOfReplicas, writer, chosen, returnChosenNodes, excludedNodes, blocksize,
          storagePolicy, flags);
    }
    return repairing(chosen, excludedNodes, () -> super.chooseTarget(srcPath, numOfReplicas, writer, chosen,
        returnChosenNodes, excludedNodes, blocksize, storagePolicy, flags));
  }

  @Override
  public DatanodeStorageInfo[] chooseTarget(String srcPath, int numOfReplicas, Node writer,
                                            List<DatanodeStorageInfo> chosen, boolean returnChosenNodes,
                                            Set<Node> excludedNodes, long blocksize, BlockStoragePolicy storagePolicy,
                                            EnumSet<AddBlockFlag> flags, EnumMap<StorageType, Integer> storageTypes) {
    if (!isRepair(chosen)) {
      return super.chooseTarget(srcPath, numOfReplicas, writer, chosen, returnChosenNodes, excludedNodes, blocksize,
          storagePolicy, flags, storageTypes);
    }
    return repairing(chosen, excludedNodes, () -> super.chooseTarget(srcPath, numOfReplicas, writer, chosen,
        returnChosenNodes, excludedNodes, blocksize, storagePolicy, flags, storageTypes));
  }

  /** Targets for a group that already has storages: reconstruction (or a copy to another rack). */
  private static boolean isRepair(List<DatanodeStorageInfo> chosen) {
    return chosen != null && !chosen.isEmpty();
  }

  private DatanodeStorageInfo[] repairing(List<DatanodeStorageInfo> chosen, Set<Node> excludedNodes,
                                          Supplier<DatanodeStorageInfo[]> choice) {
    Set<Node> outer = REPAIR_EXCLUDED.get();
    // a copy: the parent adds every node it picks to the set it is handed
    REPAIR_EXCLUDED.set(excludedNodes == null ? Set.of() : new HashSet<>(excludedNodes));
    DatanodeStorageInfo[] targets;
    try {
      targets = choice.get();
    } finally {
      REPAIR_EXCLUDED.set(outer);
    }
    for (DatanodeStorageInfo t : targets) {
      DatanodeDescriptor node = t.getDatanodeDescriptor();
      if (!isAmong(node, chosen)) { // returnChosenNodes may hand the chosen back
        load.assigned(node.getDatanodeUuid());
        if (LOG.isDebugEnabled()) {
          LOG.debug("repair target {}: now {} queued EC tasks, {} blocks scheduled, {} recent targets", node,
              node.getNumberOfBlocksToBeErasureCoded(), node.getBlocksScheduled(), load.recent(node.getDatanodeUuid()));
        }
      }
    }
    return targets;
  }

  private static boolean isAmong(DatanodeDescriptor node, List<DatanodeStorageInfo> storages) {
    for (DatanodeStorageInfo s : storages) {
      if (s.getDatanodeDescriptor().equals(node)) {
        return true;
      }
    }
    return false;
  }

  @Override
  protected DatanodeDescriptor chooseDataNode(String scope, Collection<Node> excludedNodes) {
    if (REPAIR_EXCLUDED.get() == null) {
      return super.chooseDataNode(scope, excludedNodes);
    }
    return leastLoaded(scope, excludedNodes, null);
  }

  @Override
  protected DatanodeDescriptor chooseDataNode(String scope, Collection<Node> excludedNodes, StorageType type) {
    if (REPAIR_EXCLUDED.get() == null) {
      return super.chooseDataNode(scope, excludedNodes, type);
    }
    return leastLoaded(scope, excludedNodes, type);
  }

  /** What the NameNode knows of a node's repair (and write) work. */
  static int knownLoad(DatanodeDescriptor node) {
    return node.getNumberOfBlocksToBeErasureCoded() + node.getBlocksScheduled();
  }

  /**
   * The least-loaded DataNode in {@code scope} ("~path" = outside path, as the topology reads
   * it), excluded neither now nor by the NameNode's request, with a storage of {@code type} (any
   * if null); null if none.
   */
  private DatanodeDescriptor leastLoaded(String scope, Collection<Node> excludedNodes, StorageType type) {
    boolean outside = scope.startsWith("~");
    String path = NodeBase.normalize(outside ? scope.substring(1) : scope);
    Set<Node> requested = REPAIR_EXCLUDED.get();
    List<DatanodeDescriptor> candidates = new ArrayList<>();
    for (DatanodeDescriptor dn : dataNodes()) {
      if (within(dn, path) != outside && !excluded(dn, excludedNodes) && !excluded(dn, requested)
          && (type == null || dn.hasStorageType(type))) {
        candidates.add(dn);
      }
    }
    return load.leastLoaded(candidates, DatanodeDescriptor::getDatanodeUuid, SpreadRepairPlacementPolicy::knownLoad,
        ThreadLocalRandom.current());
  }

  /**
   * Every DataNode in the topology. getDatanodesInRack copies an inner node's children under
   * the topology's read lock (getLeaves does not lock), so DataNodes joining or leaving
   * meanwhile cannot break the walk.
   */
  List<DatanodeDescriptor> dataNodes() {
    List<DatanodeDescriptor> leaves = new ArrayList<>();
    List<Node> inner = new ArrayList<>();
    inner.add(null); // the root
    while (!inner.isEmpty()) {
      Node at = inner.remove(inner.size() - 1);
      List<Node> children = clusterMap.getDatanodesInRack(at == null ? NodeBase.ROOT : NodeBase.getPath(at));
      if (children == null) {
        continue; // removed meanwhile
      }
      for (Node child : children) {
        if (child instanceof DatanodeDescriptor dn) {
          leaves.add(dn);
        } else if (child instanceof InnerNode) {
          inner.add(child);
        }
      }
    }
    return leaves;
  }

  private static boolean within(Node node, String path) {
    return path.isEmpty() || NodeBase.getPath(node).startsWith(path + NodeBase.PATH_SEPARATOR_STR);
  }

  /** Excluded itself or through an excluded ancestor (a rack or node group). */
  private static boolean excluded(Node node, Collection<Node> excludedNodes) {
    if (excludedNodes == null) {
      return false;
    }
    for (Node n = node; n != null; n = n.getParent()) {
      if (excludedNodes.contains(n)) {
        return true;
      }
    }
    return false;
  }

  /** For tests: the recent-assignment memory. */
  RepairLoad repairLoad() {
    return load;
  }
}
