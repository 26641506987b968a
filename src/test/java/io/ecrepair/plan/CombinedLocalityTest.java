package io.ecrepair.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.codes.RepairableCode;
import io.ecrepair.codes.lrc.LrcCode;
import io.ecrepair.gf.RegionCoders;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class CombinedLocalityTest {

  /** Every LRC that fits an HDFS block group, every allowed blocks-per-rack. */
  @Test
  void everyPlacementSurvivesAnyRackAndCutsCrossRackTraffic() {
    int checked = 0;
    for (int k = 2; k <= 14; k++) {
      for (int l = 1; l <= k; l++) {
        for (int g = 1; k + l + g <= LrcCode.MAX_UNITS; g++) {
          LrcCode.Params p;
          try {
            p = new LrcCode.Params(k, l, g);
          } catch (IllegalArgumentException uneven) {
            continue;
          }
          RepairableCode code = new CodeSpec(p.codecName(), k, p.m()).create(RegionCoders.java());
          for (int c = 1; c <= g + 1; c++) {
            check(p, code, CombinedLocality.place(p, c));
            checked++;
          }
        }
      }
    }
    assertTrue(checked > 300, checked + " placements");
  }

  private static void check(LrcCode.Params p, RepairableCode code, CombinedLocality placed) {
    Set<Integer> seen = new TreeSet<>();
    for (List<Integer> rack : placed.racks()) {
      assertTrue(rack.size() <= placed.perRack(), p + ": " + rack);
      for (int u : rack) {
        assertTrue(seen.add(u), p + ": unit " + u + " placed twice");
      }
      // Losing the whole rack loses nothing: the code rebuilds its blocks.
      assertTrue(code.decodable(rack.stream().mapToInt(Integer::intValue).toArray()), p + " loses rack " + rack);
    }
    assertEquals(p.n(), seen.size(), p + ": every unit placed");
    for (int u = 0; u < p.k() + p.l(); u++) {
      int group = u < p.k() ? p.groupOf(u) : u - p.k();
      // Independently: the racks the group's members occupy, less the lost block's own (the
      // rebuilt block stays there, and what its rack holds is summed without crossing).
      Set<Integer> racks = new TreeSet<>();
      for (int i = p.groupStart(group); i < p.groupEnd(group); i++) {
        racks.add(placed.rackOf(i));
      }
      racks.add(placed.rackOf(p.k() + group));
      int groupBlocks = p.groupEnd(group) - p.groupStart(group) + 1;
      assertEquals(racks.size() - 1, placed.crossRackBlocks(u), p + " unit " + u);
      assertEquals(groupBlocks - 1, placed.spreadCrossRackBlocks(u), p + " unit " + u);
      assertTrue(placed.crossRackBlocks(u) <= placed.spreadCrossRackBlocks(u));
    }
  }

  @Test
  void ecWidesExampleShapes() {
    // (r + 1) divisible by f: the paper's (r + 1)/f - 1 blocks cross racks.
    CombinedLocality lrc10 = CombinedLocality.place(new LrcCode.Params(10, 2, 2), 3); // r = 5, f = 3
    for (int u = 0; u < 12; u++) {
      assertEquals(1, lrc10.crossRackBlocks(u), "unit " + u);
    }
    // Azure LRC(12,2,2): groups of 7 on 3 racks, 2 blocks cross instead of 6; a global parity
    // gathers one partial sum from each of the 4 data racks instead of 12 blocks.
    CombinedLocality lrc12 = CombinedLocality.place(new LrcCode.Params(12, 2, 2), 3);
    assertEquals(2, lrc12.crossRackBlocks(0));
    assertEquals(6, lrc12.spreadCrossRackBlocks(0));
    assertEquals(4, lrc12.crossRackBlocks(15));
    assertEquals(12, lrc12.spreadCrossRackBlocks(15));
    assertThrows(IllegalArgumentException.class, () -> CombinedLocality.place(new LrcCode.Params(12, 2, 2), 4));
  }

  /**
   * Topology locality for RS, Clay and Butterfly (no local groups): m to a rack, a rack loses
   * nothing the code cannot rebuild, and a repair reads its rack-mates and the fullest racks.
   */
  @Test
  void mdsCodesGetTopologyLocality() {
    CombinedLocality rs104 = CombinedLocality.of(new CodeSpec("rs", 10, 4)).orElseThrow();
    assertEquals(List.of(List.of(0, 1, 2, 3), List.of(4, 5, 6, 7), List.of(8, 9, 10, 11), List.of(12, 13)),
        rs104.racks());
    assertEquals(List.of(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), rs104.repairReads(0));
    assertEquals(2, rs104.crossRackBlocks(0), "3 rack-mates, then one sum from each of two full racks");
    assertEquals(10, rs104.spreadCrossRackBlocks(0));
    // Unit 12's rack holds one mate: the 9 others come from the three full racks.
    assertEquals(List.of(13, 0, 1, 2, 3, 4, 5, 6, 7, 8), rs104.repairReads(12));
    assertEquals(3, rs104.crossRackBlocks(12));
    assertEquals(4, rs104.mostInOneRack());
    assertEquals(4, rs104.fewestRacks());
    for (String codec : new String[] {"rs", "clay", "butterfly"}) {
      int m = codec.equals("butterfly") ? 2 : 3;
      CodeSpec spec = new CodeSpec(codec, codec.equals("butterfly") ? 4 : 6, m);
      RepairableCode code = spec.create(RegionCoders.java());
      CombinedLocality placed = CombinedLocality.of(spec).orElseThrow();
      assertTrue(placed.code() instanceof CombinedLocality.Mds, spec.toString());
      for (List<Integer> rack : placed.racks()) {
        assertEquals(m, rack.size(), spec + ": " + placed.racks());
        assertTrue(code.decodable(rack.stream().mapToInt(Integer::intValue).toArray()), spec + " loses " + rack);
      }
    }
    assertTrue(CombinedLocality.of(new CodeSpec("lrc-l2", 12, 4)).orElseThrow().code() instanceof CombinedLocality.Lrc);
    assertThrows(IllegalArgumentException.class, () -> CombinedLocality.topology(10, 4, 5));
  }

  @Test
  void partlyFilledRacksShareWhenRacksAreFew() {
    // LRC(12,2,2), 3 per rack: racks of 3,3,1 | 3,3,1 | 2; the two local parities share a rack.
    CombinedLocality lrc12 = CombinedLocality.place(new LrcCode.Params(12, 2, 2), 3);
    assertEquals(7, lrc12.racks().size());
    assertEquals(6, lrc12.fewestRacks());
    assertTrue(lrc12.onRacks(5).isEmpty(), "16 blocks at 3 per rack need 6 racks");
    assertEquals(lrc12, lrc12.onRacks(7).orElseThrow(), "enough racks: nothing shared");
    CombinedLocality six = lrc12.onRacks(6).orElseThrow();
    assertEquals(6, six.racks().size());
    assertEquals(six.rackOf(12), six.rackOf(13));
    for (int u = 0; u < 16; u++) { // sharing costs no cross-rack bandwidth, and a rack still holds at most f
      assertEquals(lrc12.crossRackBlocks(u), six.crossRackBlocks(u), "unit " + u);
    }
    assertEquals(3, six.mostInOneRack());
    // LRC(6,2,1), 2 per rack: 2,2 | 2,2 | 1 cannot share.
    CombinedLocality lrc6 = CombinedLocality.place(new LrcCode.Params(6, 2, 1), 2);
    assertEquals(5, lrc6.fewestRacks());
    assertTrue(lrc6.onRacks(4).isEmpty());
  }

  @Test
  void theSearchFindsTheLeastCrossRackTrafficWithinTheOverhead() {
    List<CombinedLocality.Choice> choices = CombinedLocality.search(10, 3, 1.6);
    assertEquals(4, choices.size(), choices.toString()); // l = 1..4 fit 16 blocks and 1.6x
    for (CombinedLocality.Choice c : choices) {
      assertTrue(c.overhead() <= 1.6 && c.code().n() <= 16 && c.code().g() == 2, c.toString());
    }
    // Best first, and the best is no worse than any LRC of that shape placed the same way.
    for (int i = 1; i < choices.size(); i++) {
      assertTrue(choices.get(i - 1).meanCrossRack() <= choices.get(i).meanCrossRack());
    }
    assertEquals(3, choices.get(0).code().l());
    assertEquals("LRC-L3-10-5-1024k", choices.get(0).policyName(1 << 20));
    // A tighter overhead leaves fewer local groups.
    assertEquals(2, CombinedLocality.search(10, 3, 1.4).get(0).code().l());
    assertTrue(CombinedLocality.search(13, 3, 1.1).isEmpty(), "nothing fits 1.1x with 16 blocks");
    assertThrows(IllegalArgumentException.class, () -> CombinedLocality.search(14, 3, 2.0));
  }
}
