package io.ecrepair.bench.cluster;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.codes.lrc.LrcFamily;
import io.ecrepair.layout.Policy;
import io.ecrepair.plan.CombinedLocality;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;

/**
 * How a file's block groups sit on racks, as the NameNode lists them: the most internal blocks
 * of one group in one rack (a rack failure loses that many), and how many groups have combined
 * locality (an LRC group whose layout racks, {@link CombinedLocality}, each sit in one rack, with
 * at most f blocks per rack).
 */
public record RackLayout(int groups, int mostInOneRack, int combinedGroups, int faultTolerance) {

  /** {@code rackOf}: a DataNode's IP to its rack. */
  public static RackLayout of(ErasureCodingPolicy policy, List<LocatedStripedBlock> groups,
                              Function<String, String> rackOf) {
    CodeSpec code = Policy.parse(policy.getName()).code();
    CombinedLocality layout = new LrcFamily().accepts(code.codec())
        ? CombinedLocality.place(LrcFamily.params(code), code.faultTolerance()) : null;
    int most = 0;
    int combined = 0;
    for (LocatedStripedBlock g : groups) {
      Map<Integer, String> rackOfUnit = new HashMap<>();
      for (int j = 0; j < g.getBlockIndices().length; j++) { // a unit listed twice counts once
        rackOfUnit.putIfAbsent((int) g.getBlockIndices()[j], rackOf.apply(g.getLocations()[j].getIpAddr()));
      }
      Map<String, Integer> perRack = new HashMap<>();
      rackOfUnit.values().forEach(r -> perRack.merge(r, 1, Integer::sum));
      int groupMost = perRack.values().stream().max(Integer::compare).orElse(0);
      most = Math.max(most, groupMost);
      if (layout != null && groupMost <= code.faultTolerance() && slotsTogether(layout, rackOfUnit)) {
        combined++;
      }
    }
    return new RackLayout(groups.size(), most, combined, code.faultTolerance());
  }

  private static boolean slotsTogether(CombinedLocality layout, Map<Integer, String> rackOfUnit) {
    for (List<Integer> slot : layout.racks()) {
      if (slot.stream().map(rackOfUnit::get).filter(java.util.Objects::nonNull).distinct().count() > 1) {
        return false;
      }
    }
    return true;
  }

  /** {@code combined-locality} when every group has it, {@code hdfs} when none, else {@code mixed}. */
  public String placement() {
    return groups > 0 && combinedGroups == groups ? "combined-locality" : combinedGroups == 0 ? "hdfs" : "mixed";
  }
}
