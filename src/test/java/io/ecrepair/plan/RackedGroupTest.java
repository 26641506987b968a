package io.ecrepair.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ecrepair.codes.lrc.LrcCode;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Where a rebuilt LRC block may go once its rack-mates are placed, and in which order. */
class RackedGroupTest {
  @Test
  void aRebuiltBlockGoesToTheLeastLoadedRackOfItsRepairReads() {
    LrcCode.Params code = new LrcCode.Params(12, 2, 2); // local groups {0..5, 12}, {6..11, 13}; f = 3
    CombinedLocality layout = CombinedLocality.place(code, 3);
    Map<Integer, String> placed = new HashMap<>();
    for (int rack = 0; rack < layout.racks().size(); rack++) {
      for (int unit : layout.racks().get(rack)) {
        placed.put(unit, "/r" + rack);
      }
    }
    int lost = layout.racks().get(0).get(0); // in a full rack of its local group
    String matesRack = placed.remove(lost);
    RackedGroup group = new RackedGroup(layout, placed);

    List<String> idle = group.rebuildRacks(lost, Map.of());
    assertEquals(matesRack, idle.get(0), "among equal loads, its rack-mates' rack");
    for (String r : idle) {
      assertEquals(layout.crossRackBlocks(lost), crossRack(group, lost, r), r + " costs more partial sums");
      assertEquals(true, group.hasRoom(r));
    }
    assertEquals(true, idle.size() > 1, "another rack of its local group has room: " + idle);

    Map<String, Long> busy = new HashMap<>();
    busy.put(matesRack, 5L);
    List<String> spread = group.rebuildRacks(lost, busy);
    assertEquals(idle.get(1), spread.get(0), "a busy mates' rack gives way");
    assertEquals(matesRack, spread.get(spread.size() - 1));
  }

  /** Racks other than {@code target} holding blocks the repair of {@code lost} reads. */
  private static long crossRack(RackedGroup group, int lost, String target) {
    long racks = 0;
    for (int r = 0; r < 8; r++) {
      String rack = "/r" + r;
      if (!rack.equals(target) && group.repairReadsIn(lost, rack) > 0) {
        racks++;
      }
    }
    return racks;
  }
}
