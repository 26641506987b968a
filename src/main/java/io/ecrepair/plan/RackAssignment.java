package io.ecrepair.plan;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Puts the racks of a block group's layout (each holding {@code sizes[i]} blocks) on distinct
 * racks of a cluster, each able to take {@code capacity} blocks of the group (its eligible
 * DataNodes). Each layout rack, in the order given, gets the first rack by preference (racks
 * with a DataNode to spare after taking it first, then {@code preference}) that still leaves
 * the rest placeable; so a tight cluster is used fully and a roomy one as the preference says.
 */
public final class RackAssignment {
  private RackAssignment() {
  }

  /** The cluster rack of each layout rack, in order; empty if the racks cannot hold the layout. */
  public static Optional<List<String>> assign(int[] sizes, Map<String, Integer> capacity,
                                              Comparator<String> preference) {
    List<String> free = new ArrayList<>(capacity.keySet());
    List<String> out = new ArrayList<>();
    for (int i = 0; i < sizes.length; i++) {
      int size = sizes[i];
      List<String> fits = new ArrayList<>(free);
      fits.removeIf(r -> capacity.get(r) < size);
      fits.sort(Comparator.comparingInt((String r) -> capacity.get(r) > size ? 0 : 1).thenComparing(preference));
      String chosen = null;
      for (String r : fits) {
        List<String> rest = new ArrayList<>(free);
        rest.remove(r);
        if (placeable(sizes, i + 1, rest, capacity)) {
          chosen = r;
          break;
        }
      }
      if (chosen == null) {
        return Optional.empty();
      }
      free.remove(chosen);
      out.add(chosen);
    }
    return Optional.of(out);
  }

  /** Whether layout racks {@code from}.. fit on {@code racks}: largest first, each on the smallest rack it fits. */
  private static boolean placeable(int[] sizes, int from, List<String> racks, Map<String, Integer> capacity) {
    List<Integer> rest = new ArrayList<>();
    for (int i = from; i < sizes.length; i++) {
      rest.add(sizes[i]);
    }
    rest.sort(Comparator.reverseOrder());
    List<Integer> caps = new ArrayList<>();
    racks.forEach(r -> caps.add(capacity.get(r)));
    caps.sort(Comparator.naturalOrder());
    for (int size : rest) {
      int at = -1;
      for (int j = 0; j < caps.size() && at < 0; j++) {
        if (caps.get(j) >= size) {
          at = j;
        }
      }
      if (at < 0) {
        return false;
      }
      caps.remove(at);
    }
    return true;
  }
}
