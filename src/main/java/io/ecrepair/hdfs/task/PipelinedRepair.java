package io.ecrepair.hdfs.task;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.hdfs.agent.AgentLoads;
import io.ecrepair.layout.GroupLayout;
import io.ecrepair.plan.Plan;
import io.ecrepair.plan.RepairChains;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;

/**
 * A task's repair chain ({@link RepairChains}) for one lost internal block of a scalar code
 * (RS, LRC), with this DataNode as the requestor: the helpers' load comes from their agents'
 * answers to load probes, their costs from the DataNode's {@link io.ecrepair.hdfs.NodeCosts},
 * their racks from the NameNode. {@link ParallelRepair} runs it on the helpers' agents like any
 * other plan.
 */
final class PipelinedRepair {
  private PipelinedRepair() {}

  /** Whether a task may pipeline: agents on, one lost block of a scalar code, no re-decode check asked for. */
  static boolean applies(ReconstructionContext ctx, CodeSpec spec, int lostCount) {
    return ctx.agentPortOffset() > 0 && spec.subPacketization() == 1 && lostCount == 1 && !ctx.validation();
  }

  /** The chain for the group's one lost block ({@link RepairChains#plan}); null when no helper holds bytes. */
  static Plan plan(ReconstructionContext ctx, RebuildGroup group, Sources sources) {
    int lost = group.lost(0);
    return RepairChains.plan(group.spec(), lost, sources.available(), helpers(ctx, group, sources, lost),
        group.order().blockGroup().getBlockId(), requestorRack(group), ctx.pipelineSliceBytes());
  }

  /** The hops of a chain from this class that cross racks (each carries one block). */
  static int crossRackHops(Plan chain, RebuildGroup group, Sources sources) {
    return RepairChains.crossRackHops(chain, u -> sources.first(u).getNetworkLocation(), requestorRack(group));
  }

  /** This DataNode's rack, as the NameNode knows it: the task runs on its first target. */
  private static String requestorRack(RebuildGroup group) {
    return group.order().targets()[0].getNetworkLocation();
  }

  /**
   * Each load probe announces the partial sum (a block of {@code lost}'s length) a chain through
   * the helper would bring it, so that the tasks of a recovery, which plan at the same moment,
   * see one another.
   */
  private static RepairChains.Helpers helpers(ReconstructionContext ctx, RebuildGroup group, Sources sources,
                                              int lost) {
    GroupLayout layout = group.layout();
    return new RepairChains.Helpers() {
      @Override
      public long blockLength(int unit) {
        return layout.blockLength(unit);
      }

      @Override
      public long[] loads(int[] units) {
        for (int u : units) { // every helper has a source before any is probed
          source(u);
        }
        return AgentLoads.probe(ctx, units, sources.asMap(), group::block, layout.blockLength(lost));
      }

      @Override
      public double cost(int unit) {
        return ctx.costs().of(source(unit));
      }

      @Override
      public String rack(int unit) {
        return source(unit).getNetworkLocation();
      }

      private DatanodeInfo source(int unit) {
        DatanodeInfo d = sources.first(unit);
        if (d == null) {
          throw new IllegalStateException("the repair reads internal block " + unit + ", which has no source");
        }
        return d;
      }
    };
  }
}
