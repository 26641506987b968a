package io.ecrepair.hdfs.task;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.hdfs.agent.AgentLoads;
import io.ecrepair.plan.Plan;
import io.ecrepair.plan.PlanChoice;
import io.ecrepair.plan.StoredPlanChoice;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which of the code's stored parallel plans a task runs, if any ({@link StoredPlanChoice}): one
 * whose requestor is this DataNode (the node of the lowest lost index, which receives every
 * block) and whose helpers all have a source, the one that should finish first given what the
 * nodes' downlinks still carry for other repairs; the central plan competes once it is ready (it
 * is built in the background).
 */
final class ParallelChoice {
  private static final Logger LOG = LoggerFactory.getLogger(ReconstructionTask.class);

  private ParallelChoice() {}

  /** The plan to run, or null (logged why) when the task should be repaired centrally. */
  static Plan choose(ReconstructionContext ctx, RebuildGroup group, Sources sources) {
    CodeSpec spec = group.spec();
    int[] lostSorted = group.lostSorted();
    int requestor = lostSorted[0];
    Soonest soonest = new Soonest(ctx, group, sources);
    Plan plan = StoredPlanChoice.choose(RepairCatalog.parallelPlans(spec, lostSorted), requestor, sources::has, false,
        soonest).orElse(null);
    if (soonest.backlog == null) {
      LOG.info("ec-repair: no parallel plan for {} lost {} whose helpers all have a source; repairing {} centrally",
          spec, Arrays.toString(lostSorted), group);
    } else if (plan == null) {
      LOG.info("ec-repair: {} is rebuilt centrally: with the DataNodes' backlog {} the central plan should finish "
          + "first", group, Arrays.toString(soonest.backlog));
    }
    return plan;
  }

  /**
   * The plan that should finish first, given what the nodes' downlinks still carry for other
   * repairs (the agents' answers to load probes); -1 when it is the central plan.
   */
  private static final class Soonest implements StoredPlanChoice.Weighing {
    private final ReconstructionContext ctx;
    private final RebuildGroup group;
    private final Sources sources;
    /** Per unit, the bytes its downlink still carries (null until the plans were weighed). */
    long[] backlog;

    Soonest(ReconstructionContext ctx, RebuildGroup group, Sources sources) {
      this.ctx = ctx;
      this.group = group;
      this.sources = sources;
    }

    @Override
    public int pick(List<Plan> runnable) {
      CodeSpec spec = group.spec();
      int requestor = group.lostSorted()[0];
      List<Plan> candidates = new ArrayList<>(runnable);
      RepairCatalog.centralPlanIfReady(spec, group.lostSorted()).ifPresent(candidates::add);
      backlog = new long[spec.n()];
      if (candidates.size() == 1) {
        return 0;
      }
      int[] receivers = IntStream.range(0, spec.n())
          .filter(u -> !group.isLost(u) && candidates.stream().anyMatch(p -> p.traffic().in(u) > 0))
          .toArray();
      long[] probed = AgentLoads.probe(ctx, receivers, sources.asMap(), group::block);
      for (int i = 0; i < receivers.length; i++) {
        backlog[receivers[i]] = probed[i];
      }
      backlog[requestor] = ctx.inbound().get();
      long unit = (long) group.layout().cellSize() / spec.subPacketization() * group.layout().fullRows();
      // Equal plans are taken in turn by group, so simultaneous tasks do not all load the first.
      int prefer = (int) Math.floorMod(group.order().blockGroup().getBlockId() >> 4, (long) runnable.size());
      double[] cost = sources.costs(ctx.costs(), spec.n());
      for (int u = 0; u < cost.length; u++) {
        cost[u] = cost[u] > 0 ? cost[u] : 1; // a link without a source is no free link
      }
      cost[requestor] = ctx.costs().of(group.order().targets()[0]);
      int chosen = PlanChoice.soonest(candidates.stream().map(Plan::traffic).toList(), backlog, cost, unit, prefer);
      return chosen < runnable.size() ? chosen : -1;
    }
  }
}
