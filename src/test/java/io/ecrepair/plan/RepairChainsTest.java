package io.ecrepair.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.codes.lrc.LrcCode;
import io.ecrepair.plan.PlanCheck;
import io.ecrepair.gf.RegionCoders;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * LRC(12,2,2) under combined locality on 6 racks ({0,1,2} {3,4,5} {6,7,8} {9,10,11} {12,13}
 * {14,15}), data block 0 lost and rebuilt in the local parities' rack: its chain reads its local
 * group (2 partial sums across racks) while the lost node's rack is idle, and reads around that
 * rack (4 partial sums across racks, none through it) when other chains keep it busy; both chains
 * rebuild the block.
 */
class RepairChainsTest {
  private static final CodeSpec SPEC = new CodeSpec("lrc-l2", 12, 4);
  private static final CombinedLocality LAYOUT =
      CombinedLocality.place(new LrcCode.Params(12, 2, 2), 3).onRacks(6).orElseThrow();
  private static final long BLOCK = 1 << 20;

  @Test
  void readsTheLocalGroupWhileItsRacksAreIdle() {
    Set<Integer> probed = new TreeSet<>();
    Plan chain = plan(Map.of(), probed);
    assertEquals(Set.of(1, 2, 3, 4, 5, 12), helpers(chain));
    assertEquals(Set.of(1, 2, 3, 4, 5, 12), probed, "an idle cluster asks no other helper");
    assertEquals(2, RepairChains.crossRackHops(chain, RepairChainsTest::rack, rack(12)));
    assertTrue(PlanCheck.run(SPEC.create(RegionCoders.java()), chain, 0, 64, 2, 32, 5, RegionCoders.java()).ok());
  }

  @Test
  void readsAroundABusyRackOfRackMates() {
    Set<Integer> probed = new TreeSet<>();
    Plan chain = plan(Map.of(1, 2 * BLOCK, 2, 2 * BLOCK), probed); // two chains still to pass the lost node's rack
    Set<Integer> read = helpers(chain);
    assertTrue(probed.containsAll(read), "every helper read was asked: " + probed);
    assertTrue(read.stream().noneMatch(u -> rack(u).equals(rack(0))), "reads the busy rack: " + read);
    assertEquals(4, RepairChains.crossRackHops(chain, RepairChainsTest::rack, rack(12)),
        "one partial sum from each of the other four racks: " + read);
    assertTrue(PlanCheck.run(SPEC.create(RegionCoders.java()), chain, 0, 64, 2, 32, 5, RegionCoders.java()).ok());
  }

  @Test
  void aFractionOfABlockDoesNotOutweighTwoMorePartialSums() {
    assertEquals(Set.of(1, 2, 3, 4, 5, 12), helpers(plan(Map.of(1, BLOCK / 2, 2, BLOCK / 2))));
    // The other racks as busy as the rack-mates' rack: the local group, which crosses fewer racks.
    Map<Integer, Long> even = new HashMap<>();
    for (int u = 1; u < 16; u++) {
      even.put(u, 3 * BLOCK);
    }
    assertEquals(Set.of(1, 2, 3, 4, 5, 12), helpers(plan(even)));
  }

  private static Plan plan(Map<Integer, Long> loads) {
    return plan(loads, new TreeSet<>());
  }

  private static Plan plan(Map<Integer, Long> loads, Set<Integer> probed) {
    int[] available = IntStream.range(1, 16).toArray();
    RepairChains.Helpers helpers = new RepairChains.Helpers() {
      @Override
      public long blockLength(int unit) {
        return BLOCK;
      }

      @Override
      public long[] loads(int[] units) {
        IntStream.of(units).forEach(probed::add);
        return IntStream.of(units).mapToLong(u -> loads.getOrDefault(u, 0L)).toArray();
      }

      @Override
      public double cost(int unit) {
        return 1;
      }

      @Override
      public String rack(int unit) {
        return RepairChainsTest.rack(unit);
      }
    };
    return RepairChains.plan(SPEC, 0, available, helpers, 7L << 4, rack(12), 32);
  }

  private static String rack(int unit) {
    return "/rack" + LAYOUT.rackOf(unit);
  }

  @SuppressWarnings("unchecked")
  private static Set<Integer> helpers(Plan chain) {
    return new TreeSet<>((List<Integer>) chain.details().get("path"));
  }
}
