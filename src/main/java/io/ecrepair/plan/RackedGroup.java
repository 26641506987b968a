package io.ecrepair.plan;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * One block group on named racks under combined or topology locality ({@link CombinedLocality}):
 * where each unit is, and which rack a rebuilt unit should join so that its group keeps its
 * rack-local repair. Pure bookkeeping; the NameNode's placement policy asks it.
 */
public final class RackedGroup {
  private final CombinedLocality layout;
  private final Map<Integer, String> rackOf = new HashMap<>();
  private final Map<String, Integer> count = new HashMap<>();

  /** {@code placed}: the rack of every unit that is there now. */
  public RackedGroup(CombinedLocality layout, Map<Integer, String> placed) {
    this.layout = layout;
    placed.forEach(this::placed);
  }

  public void placed(int unit, String rack) {
    String before = rackOf.put(unit, rack);
    if (before != null) {
      count.merge(before, -1, Integer::sum);
    }
    count.merge(rack, 1, Integer::sum);
  }

  /** Blocks of the group in {@code rack}. */
  public int blocksIn(String rack) {
    return count.getOrDefault(rack, 0);
  }

  /** Whether {@code rack} can take one more block of the group (at most perRack, so any rack can fail). */
  public boolean hasRoom(String rack) {
    return blocksIn(rack) < layout.perRack();
  }

  /**
   * The rack holding most of {@code unit}'s rack-mates in the layout (its local group's blocks
   * that share its rack); empty when none of them is placed. Joining them keeps the unit's
   * repair and theirs summed inside the rack, if that rack has room ({@link #hasRoom}).
   */
  public Optional<String> matesRack(int unit) {
    Map<String, Integer> mates = new HashMap<>();
    for (int u : layout.racks().get(layout.rackOf(unit))) {
      String r = rackOf.get(u);
      if (u != unit && r != null) {
        mates.merge(r, 1, Integer::sum);
      }
    }
    return mates.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey);
  }

  /**
   * How many of the blocks {@code unit}'s single-block repair reads are in {@code rack}: a
   * rebuilt unit that cannot join its rack-mates is best placed where most of its repair
   * already is (one fewer partial sum crosses racks, for this repair and its next one).
   */
  public int repairReadsIn(int unit, String rack) {
    int n = 0;
    for (int u : layout.repairReads(unit)) {
      if (rack.equals(rackOf.get(u))) {
        n++;
      }
    }
    return n;
  }

  public int perRack() {
    return layout.perRack();
  }

  public CombinedLocality layout() {
    return layout;
  }
}
