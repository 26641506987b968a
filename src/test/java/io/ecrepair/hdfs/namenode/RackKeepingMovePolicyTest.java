package io.ecrepair.hdfs.namenode;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo.DatanodeInfoBuilder;
import org.apache.hadoop.hdfs.server.blockmanagement.BlockPlacementPolicyDefault;
import org.apache.hadoop.net.NetworkTopology;
import org.junit.jupiter.api.Test;

/** The Balancer's and Mover's move rule, against HDFS's, on the layouts our placement builds. */
class RackKeepingMovePolicyTest {
  private int next;
  /** The target {@link #with} added last. */
  private DatanodeInfo last;

  @Test
  void combinedLocalityGroupMovesOnlyInsideItsRacksExceptALoneBlock() {
    // LRC(6,2,1) with combined locality: slots {0,1} {2,6} {3,4} {5,7} on racks a-d, {8} alone on e.
    List<DatanodeInfo> group = nodes("a", "a", "b", "c", "c", "d", "b", "d", "e");
    DatanodeInfo inA = group.get(0);
    assertTrue(hdfs().isMovable(with(group, node("f")), inA, last), "HDFS's rule lets the local group split");
    assertFalse(ours().isMovable(with(group, node("f")), inA, last), "to a rack holding none of it");
    assertFalse(ours().isMovable(with(group, node("e")), inA, last), "to the lone block's rack");
    assertTrue(ours().isMovable(with(group, node("a")), inA, last), "inside its rack");
    assertTrue(ours().isMovable(with(group, node("f")), group.get(8), last), "the lone block to an empty rack");
    assertFalse(ours().isMovable(with(group, node("a")), group.get(8), last), "the lone block onto a full rack");
  }

  @Test
  void spreadGroupKeepsOneBlockPerRack() {
    List<DatanodeInfo> group = nodes("a", "b", "c", "d", "e", "f", "g", "h", "i");
    assertTrue(ours().isMovable(with(group, node("z")), group.get(0), last));
    assertFalse(ours().isMovable(with(group, node("b")), group.get(0), last));
  }

  @Test
  void replicatedBlocksMoveAsHdfsMovesThem() {
    List<DatanodeInfo> replicas = nodes("a", "b", "b");
    for (int source = 0; source < 3; source++) {
      for (String rack : new String[] {"a", "b", "c"}) {
        List<DatanodeInfo> locs = with(replicas, node(rack));
        DatanodeInfo target = last;
        assertTrue(hdfs().isMovable(locs, replicas.get(source), target)
            == ours().isMovable(locs, replicas.get(source), target), "from " + source + " to " + rack);
      }
    }
    // A short EC group (3 blocks, as wide as a replicated block) keeps at most its fullest rack's count.
    List<DatanodeInfo> shortGroup = nodes("a", "a", "b");
    assertTrue(ours().isMovable(with(shortGroup, node("b")), shortGroup.get(0), last));
    assertTrue(ours().isMovable(with(shortGroup, node("c")), shortGroup.get(0), last));
  }

  /** The block's locations plus {@code target}, as the Dispatcher passes them; {@code target} becomes {@link #last}. */
  private List<DatanodeInfo> with(List<DatanodeInfo> locs, DatanodeInfo target) {
    List<DatanodeInfo> all = new ArrayList<>(locs);
    all.add(target);
    last = target;
    return all;
  }

  private List<DatanodeInfo> nodes(String... racks) {
    List<DatanodeInfo> nodes = new ArrayList<>();
    for (String r : racks) {
      nodes.add(node(r));
    }
    return nodes;
  }

  private DatanodeInfo node(String rack) {
    String ip = "10.0.0." + (++next);
    return new DatanodeInfoBuilder().setIpAddr(ip).setHostName(ip).setDatanodeUuid("u" + ip).setXferPort(9866)
        .setNetworkLocation("/" + rack).build();
  }

  private static BlockPlacementPolicyDefault ours() {
    RackKeepingMovePolicy p = new RackKeepingMovePolicy();
    p.setConf(new Configuration(false));
    p.initialize(new Configuration(false), null, NetworkTopology.getInstance(new Configuration(false)), null);
    return p;
  }

  private static BlockPlacementPolicyDefault hdfs() {
    BlockPlacementPolicyDefault p = new BlockPlacementPolicyDefault() { };
    p.initialize(new Configuration(false), null, NetworkTopology.getInstance(new Configuration(false)), null);
    return p;
  }
}
