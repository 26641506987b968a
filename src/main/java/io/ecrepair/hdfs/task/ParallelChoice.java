package io.ecrepair.hdfs.task;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.hdfs.agent.AgentLoads;
import io.ecrepair.hdfs.agent.LoadIntents;
import io.ecrepair.plan.Plan;
import io.ecrepair.plan.PlanChoice;
import io.ecrepair.plan.RecoveryShare;
import io.ecrepair.plan.StoredPlanChoice;
import io.ecrepair.plan.Traffic;
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
 *
 * <p>A DataNode's first task of a full-node recovery runs centrally; its later tasks, a lone task
 * and a multi-block repair weigh the plans ({@link RecoveryShare}). A DataNode's tasks choose one
 * after another, each announcing its choice (what its plan brings to each DataNode, its own
 * included) before the next weighs, so that tasks handed together do not all find the same idle
 * helpers; tasks the NameNode has yet to hand out cannot be weighed
 * ({@code RecoveryChoiceSimulationTest}: how often a recovery then loads a link past all-central).
 */
final class ParallelChoice {
  private static final Logger LOG = LoggerFactory.getLogger(ReconstructionTask.class);
  /**
   * The longest a task waits for its DataNode's other tasks to choose: one choice takes two probe
   * rounds (at most about 2 s when agents are slow); past that the task chooses unseen by them.
   */
  private static final long TURN_WAIT_MS = 3_000;

  private ParallelChoice() {}

  /**
   * A task's choice: the plan to run, or null when it is repaired centrally; {@code centralShare}
   * when it runs centrally as its DataNode's share of a recovery (counted in
   * {@link ReconstructionContext#centralShares()} until the task ends).
   */
  record Choice(Plan plan, boolean centralShare) {}

  /** The task's choice (logged why when it is central). */
  static Choice choose(ReconstructionContext ctx, RebuildGroup group, Sources sources) {
    CodeSpec spec = group.spec();
    int[] lostSorted = group.lostSorted();
    int requestor = lostSorted[0];
    Soonest soonest = new Soonest(ctx, group, sources);
    Plan plan;
    boolean inTurn = false;
    try {
      inTurn = ctx.choosing().tryLock(TURN_WAIT_MS, java.util.concurrent.TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      plan = StoredPlanChoice.choose(RepairCatalog.parallelPlans(spec, lostSorted), requestor, sources::has, false,
          soonest).orElse(null);
      if (soonest.chosen != null) {
        ctx.planned(soonest.chosen.in(requestor) * soonest.unit);
      }
    } finally {
      if (inTurn) {
        ctx.choosing().unlock();
      }
    }
    if (soonest.chosen != null) {
      announce(ctx, group, sources, soonest);
    }
    if (soonest.backlog == null) {
      LOG.info("ec-repair: no parallel plan for {} lost {} whose helpers all have a source; repairing {} centrally",
          spec, Arrays.toString(lostSorted), group);
    } else if (soonest.share) {
      LOG.info("ec-repair: {} is rebuilt centrally, this DataNode's first share of a recovery (backlog {})", group,
          Arrays.toString(soonest.backlog));
    } else if (plan == null) {
      LOG.info("ec-repair: {} is rebuilt centrally: with the DataNodes' backlog {} the central plan should finish "
          + "first", group, Arrays.toString(soonest.backlog));
    }
    return new Choice(plan, soonest.share);
  }

  /**
   * Tells the helpers the chosen plan brings bytes to what it brings them (not one whose agent did
   * not answer the probe), for the tasks of other DataNodes that weigh next.
   */
  private static void announce(ReconstructionContext ctx, RebuildGroup group, Sources sources, Soonest weighed) {
    Traffic chosen = weighed.chosen;
    int requestor = group.lostSorted()[0];
    int[] helpers = IntStream.range(0, group.spec().n())
        .filter(u -> u != requestor && !group.isLost(u) && chosen.in(u) > 0 && weighed.backlog[u] >= 0).toArray();
    long[] bytes = Arrays.stream(helpers).mapToLong(u -> Math.min(chosen.in(u) * weighed.unit, LoadIntents.MAX_BYTES))
        .toArray();
    if (helpers.length > 0) {
      AgentLoads.announce(ctx, helpers, sources.asMap(), group::block, bytes);
    }
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
    /** The chosen plan's traffic once the plans were weighed, and the bytes one of its sub-chunks stands for. */
    Traffic chosen;
    long unit;
    /** Whether the task runs centrally as its DataNode's first share of a recovery. */
    boolean share;

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
      Plan central = RepairCatalog.centralPlanIfReady(spec, group.lostSorted()).orElse(null);
      if (central != null) {
        candidates.add(central);
      }
      backlog = new long[spec.n()];
      unit = (long) group.layout().cellSize() / spec.subPacketization() * group.layout().fullRows();
      if (candidates.size() == 1) {
        chosen = candidates.get(0).traffic();
        return 0;
      }
      int[] receivers = IntStream.range(0, spec.n())
          .filter(u -> !group.isLost(u) && candidates.stream().anyMatch(p -> p.traffic().in(u) > 0))
          .toArray();
      long[] probed = AgentLoads.probe(ctx, receivers, sources.asMap(), group::block);
      for (int i = 0; i < receivers.length; i++) {
        backlog[receivers[i]] = probed[i];
      }
      backlog[requestor] = ctx.inbound().get() + ctx.plannedInbound();
      // Equal plans are taken in turn by group, so simultaneous tasks do not all load the first.
      int prefer = (int) Math.floorMod(group.order().blockGroup().getBlockId() >> 4, (long) runnable.size());
      double[] cost = sources.costs(ctx.costs(), spec.n());
      for (int u = 0; u < cost.length; u++) {
        cost[u] = cost[u] > 0 ? cost[u] : 1; // a link without a source is no free link
      }
      cost[requestor] = ctx.costs().of(group.order().targets()[0]);
      if (central != null && ctx.centralShare() && firstShare(central.traffic(), requestor)) {
        share = true;
        ctx.centralShares().incrementAndGet();
        chosen = central.traffic();
        return -1;
      }
      int pick = PlanChoice.soonest(candidates.stream().map(Plan::traffic).toList(), backlog, cost, unit, prefer);
      chosen = candidates.get(pick).traffic();
      return pick < runnable.size() ? pick : -1;
    }

    /** {@link RecoveryShare}: alone when no other task is here and the probes saw no other repair's bytes. */
    private boolean firstShare(Traffic central, int requestor) {
      boolean alone = ctx.tasks().get() <= 1 && Arrays.stream(backlog).noneMatch(b -> b > 0);
      long usual = RepairCatalog.centralPlanIfReady(group.spec(), 0).map(p -> (long) p.traffic().in(0))
          .orElse((long) central.in(requestor));
      return RecoveryShare.central(group.lostCount(), alone, ctx.centralShares().get(), central.in(requestor), usual);
    }
  }
}
