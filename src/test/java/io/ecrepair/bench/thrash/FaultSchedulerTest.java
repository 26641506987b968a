package io.ecrepair.bench.thrash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/** The injector's choices never leave a group with more units out than its code rebuilds, and a seed repeats them. */
class FaultSchedulerTest {
  private static final List<String> NODES = List.of("dn0", "dn1", "dn2", "dn3", "dn4", "dn5", "dn6", "dn7", "dn8",
      "dn9");
  private static final Predicate<int[]> RS_6_3 = lost -> lost.length <= 3;
  private static final Predicate<int[]> BUTTERFLY_4_2 = lost -> lost.length <= 2;

  /** Groups of RS(6,3) and Butterfly(4,2) on random distinct nodes; group ids are multiples of 16. */
  private static World world(long seed, int groups) {
    Random r = new Random(seed);
    World w = new World();
    for (int g = 0; g < groups; g++) {
      long id = -16L * (g + 1) * 1000;
      boolean rs = g % 2 == 0;
      int n = rs ? 9 : 6;
      List<String> nodes = new ArrayList<>(NODES);
      java.util.Collections.shuffle(nodes, r);
      Set<Integer> units = new HashSet<>();
      for (int u = 0; u < n; u++) {
        units.add(u);
        w.replicas.put(id + u, new HashSet<>(Set.of(nodes.get(u))));
      }
      w.groups.add(new GroupLayout.Group(id, rs ? "RS-6-3-64k" : "BUTTERFLY-4-2-1024k", rs ? 6 : 4, units,
          rs ? RS_6_3 : BUTTERFLY_4_2));
    }
    return w;
  }

  private static final class World {
    final List<GroupLayout.Group> groups = new ArrayList<>();
    final Map<Long, Set<String>> replicas = new HashMap<>();
    final Set<String> down = new HashSet<>();
    final Set<GroupLayout.Replica> corrupted = new HashSet<>();
    /** Of {@code corrupted}, those with checksums rewritten to match. */
    final Set<GroupLayout.Replica> silent = new HashSet<>();

    GroupLayout layout() {
      GroupLayout l = new GroupLayout(BUTTERFLY_4_2);
      groups.forEach(l::addGroup);
      replicas.forEach((b, nodes) -> nodes.forEach(n -> l.addReplica(n, b)));
      l.setDown(down);
      l.setCorrupted(corrupted);
      l.setSilentlyCorrupted(silent);
      return l;
    }

    boolean silentGroupOn(String node) {
      return silent.stream().anyMatch(r -> replicas.entrySet().stream().anyMatch(e -> e.getValue().contains(node)
          && GroupLayout.groupOf(e.getKey()) == GroupLayout.groupOf(r.blockId())));
    }
  }

  @Test
  void aLongRunOfChoicesNeverExceedsAnyGroupsTolerance() {
    World w = world(7, 40);
    FaultScheduler s = new FaultScheduler(42, List.of(FaultKind.values()), NODES, 4);
    Map<String, Integer> ends = new HashMap<>();
    Random heal = new Random(3);
    int nodeFaults = 0;
    int corruptions = 0;
    int silent = 0;
    int refusals = 0;
    for (int step = 0; step < 2000; step++) {
      // some node faults end: the node's replicas count again
      for (String n : List.copyOf(w.down)) {
        if (ends.get(n) <= step) {
          w.down.remove(n);
        }
      }
      // HDFS replaces some corrupt replicas
      w.corrupted.removeIf(x -> heal.nextInt(10) == 0);
      w.silent.retainAll(w.corrupted);
      Optional<FaultScheduler.Choice> c = s.choose(w.layout(), Set.copyOf(w.down), EnumSet.allOf(FaultKind.class), Set.copyOf(NODES));
      if (c.isEmpty()) {
        refusals++;
        continue;
      }
      FaultScheduler.Choice f = c.get();
      if (f.kind() == FaultKind.REPLICA_CORRUPT) {
        assertEquals(1, w.replicas.get(f.blockId()).size(), "only a block's single replica is corrupted");
        assertTrue(w.replicas.get(f.blockId()).contains(f.node()));
        w.corrupted.add(new GroupLayout.Replica(f.node(), f.blockId()));
        corruptions++;
      } else if (f.kind() == FaultKind.REPLICA_CORRUPT_SILENT) {
        long group = GroupLayout.groupOf(f.blockId());
        int k = w.groups.stream().filter(g -> g.id() == group).findFirst().orElseThrow().dataUnits();
        assertTrue(GroupLayout.unitOf(f.blockId()) >= k, "only parity is corrupted silently: " + f);
        assertEquals(0, w.layout().lost(group, Set.of(), null).length, "silently, only in a group with nothing out");
        GroupLayout.Replica r = new GroupLayout.Replica(f.node(), f.blockId());
        w.corrupted.add(r);
        w.silent.add(r);
        silent++;
      } else if (f.kind().takesNode()) {
        assertFalse(w.down.contains(f.node()), "a node under a fault gets no second one");
        assertFalse(w.silentGroupOn(f.node()), "no fault on a group holding a silently corrupted replica: " + f);
        assertTrue(f.seconds() >= 5 && f.seconds() <= 40, "duration " + f.seconds());
        w.down.add(f.node());
        ends.put(f.node(), step + 1 + f.seconds() / 5);
        nodeFaults++;
      }
      assertTrue(w.layout().allDecodable(), "after " + f + " at step " + step + " a group cannot be decoded");
      assertTrue(w.down.size() <= 4);
    }
    assertTrue(nodeFaults > 100, "node faults: " + nodeFaults);
    assertTrue(corruptions > 50, "corruptions: " + corruptions);
    assertTrue(silent > 20, "silent corruptions: " + silent);
    assertTrue(refusals >= 0);
  }

  @Test
  void aNodeFaultIsRefusedWhenAGroupWouldLoseMoreThanItsCodeRebuilds() {
    GroupLayout l = new GroupLayout(RS_6_3);
    long id = -1600;
    l.addGroup(new GroupLayout.Group(id, "BUTTERFLY-4-2-1024k", 4, Set.of(0, 1, 2, 3, 4, 5), BUTTERFLY_4_2));
    for (int u = 0; u < 6; u++) {
      l.addReplica(NODES.get(u), id + u);
    }
    l.setDown(Set.of("dn0"));
    l.setCorrupted(Set.of(new GroupLayout.Replica("dn1", id + 1)));
    assertFalse(l.allowsNodeFault("dn2"), "two out already, Butterfly(4,2) rebuilds two");
    assertTrue(l.allowsNodeFault("dn7"), "dn7 holds nothing of the group");
    assertFalse(l.allowsCorruption(new GroupLayout.Replica("dn3", id + 3)));
    // a second replica of unit 2 elsewhere makes dn2's copy expendable
    l.addReplica("dn8", id + 2);
    assertTrue(l.allowsNodeFault("dn2"));
    FaultScheduler s = new FaultScheduler(1, List.of(FaultKind.DN_KILL), List.of("dn2", "dn3", "dn4", "dn5"), 3);
    assertEquals(Optional.of("dn2"), s.choose(l, Set.of("dn0"), EnumSet.allOf(FaultKind.class), Set.of())
        .map(FaultScheduler.Choice::node), "the only DataNode whose loss the group survives");
  }

  @Test
  void aSilentlyCorruptedParityFreezesItsGroupUntilReplaced() {
    GroupLayout l = new GroupLayout(RS_6_3);
    long id = -1600;
    l.addGroup(new GroupLayout.Group(id, "BUTTERFLY-4-2-1024k", 4, Set.of(0, 1, 2, 3, 4, 5), BUTTERFLY_4_2));
    for (int u = 0; u < 6; u++) {
      l.addReplica(NODES.get(u), id + u);
    }
    assertFalse(l.allowsSilentCorruption(new GroupLayout.Replica("dn1", id + 1)), "a data block's readers would get it");
    assertTrue(l.allowsSilentCorruption(new GroupLayout.Replica("dn4", id + 4)));
    l.setSettling(Set.of("dn2"));
    assertFalse(l.allowsSilentCorruption(new GroupLayout.Replica("dn4", id + 4)), "dn2 just came back");
    l.setSettling(Set.of("dn9"));
    l.setListedWhole(group -> false);
    assertFalse(l.allowsSilentCorruption(new GroupLayout.Replica("dn4", id + 4)), "the NameNode misses a unit");
    l.setListedWhole(group -> true);
    l.setDown(Set.of("dn0"));
    assertFalse(l.allowsSilentCorruption(new GroupLayout.Replica("dn4", id + 4)), "a repair of block 0 would read it");
    l.setDown(Set.of());
    GroupLayout.Replica silent = new GroupLayout.Replica("dn4", id + 4);
    l.setCorrupted(Set.of(silent));
    l.setSilentlyCorrupted(Set.of(silent));
    assertFalse(l.allowsNodeFault("dn0"), "a rebuild of block 0 would decode from the bad parity");
    assertTrue(l.allowsNodeFault("dn7"), "dn7 holds nothing of the group");
    assertFalse(l.allowsCorruption(new GroupLayout.Replica("dn5", id + 5)));
    assertFalse(l.allowsSilentCorruption(new GroupLayout.Replica("dn5", id + 5)));
  }

  @Test
  void aKillInRepairLandsOnlyOnANodeRunningAReconstruction() {
    World w = world(7, 40);
    Set<FaultKind> killInRepair = EnumSet.of(FaultKind.DN_KILL_IN_REPAIR);
    FaultScheduler s = new FaultScheduler(5, List.of(FaultKind.DN_KILL_IN_REPAIR), NODES, 2);
    assertEquals(Optional.empty(), s.choose(w.layout(), Set.of(), killInRepair, Set.of()),
        "no node reconstructs: the kind does not fit");
    for (int i = 0; i < 50; i++) {
      assertEquals(Optional.of("dn4"), s.choose(w.layout(), Set.of(), killInRepair, Set.of("dn4"))
          .map(FaultScheduler.Choice::node));
    }
    assertEquals(Optional.empty(), s.choose(w.layout(), Set.of("dn4"), killInRepair, Set.of("dn4")),
        "the one reconstructing node is under a fault already");
  }

  @Test
  void unitsAShortGroupLacksDoNotCountAsLost() {
    GroupLayout l = new GroupLayout(RS_6_3);
    long id = -3200;
    // one cell of data: units 0 and the three parities exist
    l.addGroup(new GroupLayout.Group(id, "RS-6-3-64k", 6, Set.of(0, 6, 7, 8), RS_6_3));
    l.addReplica("dn0", id);
    for (int u = 6; u < 9; u++) {
      l.addReplica(NODES.get(u), id + u);
    }
    assertEquals(0, l.lost(id, Set.of(), null).length);
    assertEquals(1, l.lost(id, Set.of("dn6"), null).length);
  }

  @Test
  void groupsOfUnmappedFilesFollowTheWeakestCodesRule() {
    GroupLayout l = new GroupLayout(BUTTERFLY_4_2);
    long id = -4800;
    for (int u = 0; u < 9; u++) {
      l.addReplica(NODES.get(u), id + u);
    }
    l.setDown(Set.of("dn0", "dn1"));
    assertFalse(l.allowsNodeFault("dn2"), "an unmapped group gets the weakest tolerance: 2");
    assertTrue(l.allowsNodeFault("dn9"));
    assertEquals(id, GroupLayout.groupOf(id + 5));
    assertEquals(5, GroupLayout.unitOf(id + 5));
  }

  @Test
  void theSameSeedMakesTheSameChoicesOnTheSameLayout() {
    List<FaultScheduler.Choice> a = run(99);
    List<FaultScheduler.Choice> b = run(99);
    List<FaultScheduler.Choice> c = run(100);
    assertEquals(a, b);
    assertFalse(a.equals(c), "another seed, other faults");
    Set<FaultKind> kinds = new HashSet<>();
    a.forEach(x -> kinds.add(x.kind()));
    assertEquals(EnumSet.allOf(FaultKind.class), kinds, "every kind comes up");
  }

  private static List<FaultScheduler.Choice> run(long seed) {
    World w = world(5, 20);
    FaultScheduler s = new FaultScheduler(seed, List.of(FaultKind.values()), NODES, 2);
    List<FaultScheduler.Choice> out = new ArrayList<>();
    for (int i = 0; i < 150; i++) {
      s.nextGapSeconds();
      s.choose(w.layout(), Set.of(), EnumSet.allOf(FaultKind.class), Set.copyOf(NODES)).ifPresent(out::add);
    }
    return out;
  }
}
