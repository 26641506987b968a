package io.ecrepair.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ecrepair.harness.ShippedPolicies;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo.DatanodeInfoBuilder;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.junit.jupiter.api.Test;

class FullNodeRecoveryTest {
  private static final long B = 16L << 20;

  @Test
  void theoryFollowsWhatWasLostAndWhoRebuiltIt() {
    var lrc = ShippedPolicies.byName("LRC-L2-12-4-1024k");
    List<int[]> lost = List.of(new int[] {0, 3}, new int[] {1, 15});
    assertEquals(9.0, FullNodeRecovery.theory(lrc, lost, new DataNodeJmx.Tasks(2, 2)), 1e-9, "(6 + 12) / 2");
    assertEquals(12.0, FullNodeRecovery.theory(lrc, lost, new DataNodeJmx.Tasks(2, 0)), 1e-9, "stock reads k");
    var rs = ShippedPolicies.byName("RS-10-4-1024k");
    assertEquals(10.0, FullNodeRecovery.theory(rs, List.of(new int[] {0, 0}), new DataNodeJmx.Tasks(1, 0)), 1e-9);
  }

  @Test
  void bandwidthAndMaxLoadFromCounters() {
    NodeCounters delta = NodeCounters.parse("nn 9999 9999\ndn0 0 0\ndn1 " + (20 * B) + " 0\ndn2 " + (10 * B) + " "
        + (30 * B) + "\ndn3 0 0\n");
    ClusterHandle.Node victim = new ClusterHandle.Node("dn0", "ns", "10.0.0.10", "0", "dn");
    List<FullNodeRecovery.LostBlock> rebuilt = List.of(new FullNodeRecovery.LostBlock(0, 1, 1, "dn1", true),
        new FullNodeRecovery.LostBlock(1, 1, 2, "dn1", true), new FullNodeRecovery.LostBlock(2, 1, 3, "dn2", true));
    assertEquals(10.0, FullNodeRecovery.repairBlocks(delta, victim, 3, B), 1e-9, "30 blocks received for 3");
    assertEquals(10.0, FullNodeRecovery.maxLoad(delta, rebuilt, B), 1e-9, "dn1: 20 for 2, dn2: 10 for 1");
  }

  @Test
  void theVictimHoldsTheMostBlocksAmongTheNodesNotSpared() {
    List<LocatedStripedBlock> groups = List.of(group("10.0.0.10", "10.0.0.11", "10.0.0.12"),
        group("10.0.0.10", "10.0.0.11", "10.0.0.13"), group("10.0.0.10", "10.0.0.12", "10.0.0.13"));
    assertEquals("10.0.0.10", FullNodeRecovery.mostLoaded(groups, Set.of()));
    // 11, 12 and 13 hold two each: the lowest number wins the tie
    assertEquals("10.0.0.11", FullNodeRecovery.mostLoaded(groups, Set.of("10.0.0.10")));
    assertEquals("10.0.0.12", FullNodeRecovery.mostLoaded(groups, Set.of("10.0.0.10", "10.0.0.11")));
  }

  private static LocatedStripedBlock group(String... ips) {
    DatanodeInfo[] nodes = new DatanodeInfo[ips.length];
    String[] storages = new String[ips.length];
    StorageType[] types = new StorageType[ips.length];
    byte[] indices = new byte[ips.length];
    for (int i = 0; i < ips.length; i++) {
      nodes[i] = new DatanodeInfoBuilder().setIpAddr(ips[i]).setHostName(ips[i]).setDatanodeUuid("u" + ips[i])
          .setXferPort(9866).build();
      storages[i] = "s" + i;
      types[i] = StorageType.DISK;
      indices[i] = (byte) i;
    }
    return new LocatedStripedBlock(new ExtendedBlock("bp", -1024L), nodes, storages, types, indices, 0, false, null);
  }
}
