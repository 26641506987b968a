package io.ecrepair.plan;

import io.ecrepair.exec.NodePart;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntPredicate;

/**
 * Which of a code's stored parallel plans a requestor runs on the helpers' repair agents: a
 * plan whose requestor is the given one and has a part in it, every other node of which can be
 * reached, weighed by the requestor's own rule.
 *
 * <p>Two requestors run stored plans, and they differ in what they can do, hence the two
 * parameters. A rebuilding DataNode's agent listens and it may send values to helpers; a reading
 * client holds no block and listens nowhere, so only plans whose requestor part receives and
 * nothing more fit it ({@code receiveOnly}). A DataNode learns the helpers' backlog and can fall
 * back to its central plan, so it takes the plan that should finish first, the central plan
 * competing; a client cannot ask the agents' backlog, so it takes the plan that loads its own
 * downlink least ({@link #leastIntoRequestor}).
 */
public final class StoredPlanChoice {
  private StoredPlanChoice() {}

  /** How a requestor weighs the plans it can run. */
  public interface Weighing {
    /** The index in {@code runnable} (never empty) of the plan to run, or -1 for none of them. */
    int pick(List<Plan> runnable);
  }

  /**
   * The plan of {@code stored} to run, if any: empty when none can run or {@code weighing} takes
   * none.
   *
   * @param reachable whether the requestor can reach the helper holding a unit
   * @param receiveOnly whether the requestor's part may only receive (it reads no block and sends nothing)
   */
  public static Optional<Plan> choose(List<Plan> stored, int requestor, IntPredicate reachable, boolean receiveOnly,
                                      Weighing weighing) {
    List<Plan> runnable = runnable(stored, requestor, reachable, receiveOnly);
    if (runnable.isEmpty()) {
      return Optional.empty();
    }
    int chosen = weighing.pick(runnable);
    return chosen < 0 ? Optional.empty() : Optional.of(runnable.get(chosen));
  }

  /** The plans of {@code stored} that {@code requestor} can run, in their stored order. */
  public static List<Plan> runnable(List<Plan> stored, int requestor, IntPredicate reachable, boolean receiveOnly) {
    List<Plan> out = new ArrayList<>();
    for (Plan p : stored) {
      if (p.problem().requestor() != requestor) {
        continue;
      }
      Map<Integer, NodePart> parts = CodeRepairs.parts(p);
      NodePart mine = parts.get(requestor);
      if (mine == null) {
        continue;
      }
      if (receiveOnly && (mine.leaves().length != 0 || !mine.outbound().isEmpty())) {
        continue;
      }
      if (parts.keySet().stream().allMatch(u -> u == requestor || reachable.test(u))) {
        out.add(p);
      }
    }
    return out;
  }

  /** A client's weighing: the plan whose requestor receives the fewest sub-chunks (the first of equals). */
  public static Weighing leastIntoRequestor(int requestor) {
    return runnable -> {
      int best = 0;
      for (int i = 1; i < runnable.size(); i++) {
        if (runnable.get(i).traffic().in(requestor) < runnable.get(best).traffic().in(requestor)) {
          best = i;
        }
      }
      return best;
    };
  }
}
