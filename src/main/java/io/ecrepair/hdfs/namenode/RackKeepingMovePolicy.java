package io.ecrepair.hdfs.namenode;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configurable;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.server.blockmanagement.BlockPlacementPolicyDefault;

/**
 * HDFS's default placement policy for replicated blocks ({@code dfs.block.replicator.classname})
 * with a stricter move rule for the Balancer and the Mover, so that they keep what the EC
 * placement built: an LRC group's combined locality and every group's rack fault tolerance.
 *
 * <p>Hadoop 3.3.6's Balancer and Mover check every move of a replica or of an internal block
 * of an EC group with this (the replicated) policy's {@link #isMovable}, and give it only the
 * DataNodes involved: HDFS's rule lets an internal block leave a rack holding others of its
 * group for any rack, so a combined-locality group could end with its local group split, or
 * more than f of its blocks in one rack. Here a move across racks is allowed
 * <ul>
 *   <li>when the block's only location in its rack goes to a rack holding none of it: every
 *       rack keeps its count, so an RS group stays one block per rack and a lone LRC block
 *       (a global parity) stays lone;</li>
 *   <li>otherwise only for a block with at most {@code dfs.replication} locations (a replicated
 *       block; the policy is given no block type, so a group is told by its width), when HDFS's
 *       rule allows it and no rack ends up holding more of the block than the fullest rack
 *       held before (a short group's fault tolerance is kept too).</li>
 * </ul>
 * A block group with more locations moves only inside its racks, which the Balancer tries
 * first anyway. On the NameNode this class places replicas exactly as HDFS does.
 */
public class RackKeepingMovePolicy extends BlockPlacementPolicyDefault implements Configurable {
  private Configuration conf;
  private int replicatedWidth = DFSConfigKeys.DFS_REPLICATION_DEFAULT;

  /** Hadoop creates placement policies with their configuration (ReflectionUtils.newInstance). */
  @Override
  public void setConf(Configuration conf) {
    this.conf = conf;
    replicatedWidth = conf.getInt(DFSConfigKeys.DFS_REPLICATION_KEY, DFSConfigKeys.DFS_REPLICATION_DEFAULT);
  }

  @Override
  public Configuration getConf() {
    return conf;
  }

  /** {@code locs}: the block's locations and, as the Balancer and Mover pass it, the target. */
  @Override
  public boolean isMovable(Collection<DatanodeInfo> locs, DatanodeInfo source, DatanodeInfo target) {
    if (!super.isMovable(locs, source, target)) {
      return false;
    }
    String from = source.getNetworkLocation();
    String to = target.getNetworkLocation();
    if (from.equals(to)) {
      return true;
    }
    List<DatanodeInfo> held = new ArrayList<>(locs);
    held.remove(target);
    Map<String, Integer> perRack = new HashMap<>();
    held.forEach(dn -> perRack.merge(dn.getNetworkLocation(), 1, Integer::sum));
    int inTarget = perRack.getOrDefault(to, 0);
    if (perRack.getOrDefault(from, 0) == 1 && inTarget == 0) {
      return true;
    }
    int fullest = perRack.values().stream().max(Integer::compare).orElse(0);
    return held.size() <= replicatedWidth && inTarget + 1 <= fullest;
  }
}
