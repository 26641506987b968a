package io.ecrepair.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

  /** 14 units on dn0..dn13 (10.0.0.10..23); with {@code unit} moved to {@code target} when given. */
  private static LocatedStripedBlock fourteen(int unit, String target) {
    String[] ips = new String[14];
    for (int u = 0; u < 14; u++) {
      ips[u] = u == unit ? target : "10.0.0." + (10 + u);
    }
    return group(ips);
  }

  private static PlanBound.Busiest bound(String scenario, String policy, String... targets) {
    List<LocatedStripedBlock> before = new java.util.ArrayList<>();
    List<LocatedStripedBlock> after = new java.util.ArrayList<>();
    List<int[]> lost = new java.util.ArrayList<>();
    for (int g = 0; g < targets.length; g++) {
      before.add(fourteen(-1, null));
      after.add(fourteen(0, targets[g]));
      lost.add(new int[] {g, 0});
    }
    return FullNodeRecovery.bound(scenario, ShippedPolicies.byName(policy), before, after, lost,
        ip -> "dn" + (Integer.parseInt(ip.substring(ip.lastIndexOf('.') + 1)) - 10), 16, PlanBound.Links.FLAT);
  }

  @Test
  void theLinkFloorFollowsTheLayoutAndTheStrategy() {
    // dn0 held unit 0 of two groups; both rebuilt on dn14.
    PlanBound.Busiest stock = bound("RS-10-4-1024k", "RS-10-4-1024k", "10.0.0.24", "10.0.0.24");
    assertEquals(20.0, stock.best(), 1e-9, "HDFS: k blocks into dn14 per block");
    assertEquals("dn14 in", stock.link());
    assertEquals(10.0, bound("RS-10-4-1024k", "RS-10-4-1024k", "10.0.0.24", "10.0.0.25").best(), 1e-9,
        "two targets, ten blocks each");
    assertEquals(20.0, bound("RS-10-4-1024k-warmup2", "RS-10-4-1024k", "10.0.0.24", "10.0.0.24").best(), 1e-9);
    // Chains: one block a link; 20 helper places over 13 survivors put some DataNode in both chains.
    assertEquals(2.0, bound("RS-10-4-1024k+plugin", "RS-10-4-1024k", "10.0.0.24", "10.0.0.25").best(), 1e-9);
    assertEquals(6.5, bound("CLAY-10-4-4096k+central", "CLAY-10-4-4096k", "10.0.0.24", "10.0.0.24").best(), 1e-9,
        "13 quarter blocks into dn14 per block");
    PlanBound.Busiest parallel = bound("CLAY-10-4-4096k", "CLAY-10-4-4096k", "10.0.0.24", "10.0.0.24");
    assertEquals(6.5, parallel.central(), 1e-9);
    assertTrue(parallel.best() < 6.5, parallel.toString());
    assertNull(bound("RS-10-4-1024k+central", "RS-10-4-1024k", "10.0.0.24"), "no such scenario: no floor");
  }

  /**
   * The floor of a recovery of 20 groups on 17 DataNodes at 100 Mbit/s: group g's unit u on
   * dn((3g + u) mod 17), dn0 lost, each of its blocks rebuilt on a DataNode the group left free.
   */
  static PlanBound.Busiest spreadLayout(String scenario) {
    return spreadLayout(scenario, PlanBound.Links.FLAT);
  }

  static PlanBound.Busiest spreadLayout(String scenario, PlanBound.Links links) {
    var policy = ShippedPolicies.byName(Scenario.parse(scenario).policy());
    int n = policy.getNumDataUnits() + policy.getNumParityUnits();
    List<LocatedStripedBlock> before = new java.util.ArrayList<>();
    List<LocatedStripedBlock> after = new java.util.ArrayList<>();
    List<int[]> lost = new java.util.ArrayList<>();
    for (int g = 0; g < 20; g++) {
      String[] ips = new String[n];
      String[] rebuilt = new String[n];
      for (int u = 0; u < n; u++) {
        int node = (3 * g + u) % 17;
        ips[u] = "10.0.0." + (10 + node);
        rebuilt[u] = ips[u];
        if (node == 0) {
          lost.add(new int[] {g, u});
          rebuilt[u] = "10.0.0." + (10 + (3 * g + n + g % (17 - n)) % 17);
        }
      }
      before.add(group(ips));
      after.add(group(rebuilt));
    }
    return FullNodeRecovery.bound(scenario, policy, before, after, lost,
        ip -> "dn" + (Integer.parseInt(ip.substring(ip.lastIndexOf('.') + 1)) - 10), 16, links);
  }

  @Test
  void racksAddTheirGatewaysToTheFloor() {
    java.util.Map<String, String> rackOf = new java.util.HashMap<>();
    for (int d = 0; d < 17; d++) {
      rackOf.put("dn" + d, "r" + d % 4);
    }
    for (String s : Scenario.RACK_DEFAULTS.split(",")) {
      PlanBound.Busiest racked = spreadLayout(s, new PlanBound.Links(java.util.Map.of(), rackOf, 1));
      assertTrue(racked.best() > 0, s + ": " + racked);
    }
    // HDFS pulls k blocks into each rebuilding DataNode, most of them from other racks: with
    // gateways at a twentieth of the rate, one of them is the busiest link.
    PlanBound.Busiest slow = spreadLayout("RS-10-4-1024k", new PlanBound.Links(java.util.Map.of(), rackOf, 20));
    assertTrue(slow.link().startsWith("r"), slow.toString());
    assertTrue(slow.best() > spreadLayout("RS-10-4-1024k").best(), slow.toString());
    // A chain passing through a rack leaves as much as it brings: only what it ends with counts.
    PlanBound.Busiest lrc = spreadLayout("LRC-L2-12-4-1024k", new PlanBound.Links(java.util.Map.of(), rackOf, 20));
    assertTrue(lrc.best() < slow.best(), lrc + " " + slow);
  }

  @Test
  void aWholeRecoverysFloorIsQuickToWorkOut() {
    for (String s : Scenario.DEFAULTS.split(",")) {
      long t0 = System.nanoTime();
      PlanBound.Busiest b = spreadLayout(s);
      double seconds = (System.nanoTime() - t0) / 1e9;
      System.out.printf("%s: %s in %.2f s%n", s, b, seconds);
      assertTrue(b.best() > 0 && b.best() <= b.central() + 1e-9, s + ": " + b);
      assertTrue(seconds < 30, s + " took " + seconds + " s");
    }
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
