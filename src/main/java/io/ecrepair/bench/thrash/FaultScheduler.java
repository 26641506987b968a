package io.ecrepair.bench.thrash;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

/**
 * Picks the thrash run's faults from one seeded generator: which kind next, on what, for how
 * long, and when. Every choice is checked against the {@link GroupLayout} so that no block group
 * ever has more units out than its code rebuilds; a kind that fits nowhere gives way to another.
 */
public final class FaultScheduler {
  /** One fault to inject: {@code node} for node faults and corruption, {@code blockId} for corruption. */
  public record Choice(FaultKind kind, String node, long blockId, int seconds) {}

  private final Random random;
  private final List<FaultKind> kinds;
  private final List<String> dataNodes;
  private final int maxNodeFaults;

  /** {@code maxNodeFaults}: DataNodes out at once at most, whatever the layout allows. */
  public FaultScheduler(long seed, List<FaultKind> kinds, List<String> dataNodes, int maxNodeFaults) {
    if (kinds.isEmpty()) {
      throw new IllegalArgumentException("no fault kinds");
    }
    this.random = new Random(seed);
    this.kinds = List.copyOf(kinds);
    this.dataNodes = dataNodes.stream().sorted().toList();
    this.maxNodeFaults = maxNodeFaults;
  }

  /** Seconds until the next fault: 3 to 8. */
  public int nextGapSeconds() {
    return 3 + random.nextInt(6);
  }

  /**
   * The next fault, or empty when none fits now. {@code busy}: nodes under a fault already;
   * {@code allowed}: kinds that may run now (e.g. not a NameNode restart right after one);
   * {@code reconstructing}: nodes running a reconstruction task now, the only ones
   * {@link FaultKind#DN_KILL_IN_REPAIR} lands on.
   */
  public Optional<Choice> choose(GroupLayout layout, Set<String> busy, Set<FaultKind> allowed,
                                 Set<String> reconstructing) {
    List<FaultKind> order = new ArrayList<>(kinds);
    Collections.shuffle(order, random);
    for (FaultKind kind : order) {
      if (!allowed.contains(kind)) {
        continue;
      }
      Optional<Choice> c = fit(kind, layout, busy, reconstructing);
      if (c.isPresent()) {
        return c;
      }
    }
    return Optional.empty();
  }

  private Optional<Choice> fit(FaultKind kind, GroupLayout layout, Set<String> busy, Set<String> reconstructing) {
    switch (kind) {
      case NN_RESTART:
      case CLIENT_KILL:
      case CLIENT_KILL_READ:
        return Optional.of(new Choice(kind, null, 0, 0));
      case REPLICA_CORRUPT:
      case REPLICA_CORRUPT_SILENT:
        return corruption(kind, layout, busy);
      default:
        if (busy.size() >= maxNodeFaults) {
          return Optional.empty();
        }
        List<String> free = new ArrayList<>(dataNodes);
        free.removeAll(busy);
        if (kind == FaultKind.DN_KILL_IN_REPAIR) {
          free.retainAll(reconstructing);
        }
        Collections.shuffle(free, random);
        for (String node : free) {
          if (layout.allowsNodeFault(node)) {
            return Optional.of(new Choice(kind, node, 0, duration(kind)));
          }
        }
        return Optional.empty();
    }
  }

  /**
   * A replica that is its block's only one (so whoever reads that block reads it) on a node
   * under no fault, whose group stays decodable with it bad (silently: see
   * {@link GroupLayout#allowsSilentCorruption}).
   */
  private Optional<Choice> corruption(FaultKind kind, GroupLayout layout, Set<String> busy) {
    List<GroupLayout.Replica> candidates = new ArrayList<>();
    for (long b : new TreeSet<>(layout.blocks())) {
      Set<String> h = layout.holders(b);
      if (h.size() == 1 && !busy.contains(h.iterator().next())) {
        candidates.add(new GroupLayout.Replica(h.iterator().next(), b));
      }
    }
    if (candidates.isEmpty()) {
      return Optional.empty();
    }
    int start = random.nextInt(candidates.size());
    for (int i = 0; i < candidates.size(); i++) {
      GroupLayout.Replica r = candidates.get((start + i) % candidates.size());
      if (kind == FaultKind.REPLICA_CORRUPT ? layout.allowsCorruption(r) : layout.allowsSilentCorruption(r)) {
        return Optional.of(new Choice(kind, r.node(), r.blockId(), 0));
      }
    }
    return Optional.empty();
  }

  private int duration(FaultKind kind) {
    return switch (kind) {
      // long enough for the NameNode to declare the node dead (11 s) and start rebuilding
      case DN_KILL, DN_KILL_IN_REPAIR, DN_WIPE, DN_ISOLATE, DISK_FULL -> 15 + random.nextInt(26);
      case DN_PAUSE, AGENT_STALL -> 5 + random.nextInt(21);
      case LINK_SLOW -> 10 + random.nextInt(21);
      default -> 0;
    };
  }
}
