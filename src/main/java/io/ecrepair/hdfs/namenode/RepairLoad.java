package io.ecrepair.hdfs.namenode;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.ToIntFunction;

/**
 * How much repair work each DataNode has, as the placement policy sees it: what the NameNode
 * already knows about the node (given by the caller) plus the repair targets the policy handed
 * it within the last {@code window} milliseconds. Picks the least-loaded candidate; equal loads
 * go to a random one, so equal nodes share the work instead of the first one taking it all.
 *
 * <p>The memory exists because the NameNode chooses the targets of a whole batch of lost
 * blocks before it queues any task (BlockManager.computeReconstructionWorkForBlocks), so
 * within a batch the NameNode's own figures do not move. Once the NameNode queued a task, it
 * counts in both its figures and here until the memory entry expires; that holds alike for
 * every task chosen within the window, so the ranking stays right.
 *
 * <p>Thread-safe; all methods are short and synchronized.
 */
final class RepairLoad {
  private record Assignment(String node, long at) {}

  private final long windowMillis;
  private final LongSupplier clockMillis;
  /** Assignments in the order they were made (oldest first), for expiry. */
  private final ArrayDeque<Assignment> order = new ArrayDeque<>();
  private final Map<String, Integer> counts = new HashMap<>();

  /**
   * @param windowMillis how long an assignment counts; 0 turns the memory off
   * @param clockMillis a monotonic clock in milliseconds
   */
  RepairLoad(long windowMillis, LongSupplier clockMillis) {
    if (windowMillis < 0) {
      throw new IllegalArgumentException("repair load window must be >= 0 ms, not " + windowMillis);
    }
    this.windowMillis = windowMillis;
    this.clockMillis = clockMillis;
  }

  long windowMillis() {
    return windowMillis;
  }

  /** Remembers that {@code node} was just given a repair. */
  synchronized void assigned(String node) {
    expire();
    if (windowMillis == 0) {
      return;
    }
    order.addLast(new Assignment(node, clockMillis.getAsLong()));
    counts.merge(node, 1, Integer::sum);
  }

  /** Repairs given to {@code node} within the window. */
  synchronized int recent(String node) {
    expire();
    return counts.getOrDefault(node, 0);
  }

  /**
   * The candidate with the least {@code known} load plus recent assignments; among equals, each
   * is equally likely. Null if there is no candidate.
   */
  synchronized <T> T leastLoaded(Iterable<T> candidates, Function<T, String> id, ToIntFunction<T> known,
                                 Random random) {
    expire();
    T best = null;
    long bestLoad = Long.MAX_VALUE;
    int ties = 0;
    for (T c : candidates) {
      long load = (long) known.applyAsInt(c) + counts.getOrDefault(id.apply(c), 0);
      if (load < bestLoad) {
        best = c;
        bestLoad = load;
        ties = 1;
      } else if (load == bestLoad && random.nextInt(++ties) == 0) {
        best = c; // reservoir sampling: the i-th of i equals replaces the pick with probability 1/i
      }
    }
    return best;
  }

  private void expire() {
    long now = clockMillis.getAsLong();
    while (!order.isEmpty() && now - order.peekFirst().at() >= windowMillis) {
      Assignment gone = order.removeFirst();
      counts.computeIfPresent(gone.node(), (k, v) -> v == 1 ? null : v - 1);
    }
  }
}
