package io.ecrepair.hdfs.task;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.hdfs.RepairChains;
import io.ecrepair.hdfs.agent.AgentLoads;
import io.ecrepair.layout.StripedLayout;
import io.ecrepair.plan.Plan;
import java.util.Deque;
import java.util.Map;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;

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

  /** The chain for {@code lost} ({@link RepairChains#plan}); null when no helper holds bytes. */
  static Plan plan(ReconstructionContext ctx, CodeSpec spec, int lost, int[] available,
                   Map<Integer, Deque<DatanodeInfo>> sources, java.util.function.IntFunction<ExtendedBlock> blockOf,
                   StripedLayout layout, long groupLength, long groupId, String requestorRack) {
    return RepairChains.plan(spec, lost, available, helpers(ctx, sources, blockOf, layout, groupLength, lost), groupId,
        requestorRack, ctx.pipelineSliceBytes());
  }

  /** The hops of a chain from this class that cross racks (each carries one block). */
  static int crossRackHops(Plan chain, Map<Integer, Deque<DatanodeInfo>> sources, String requestorRack) {
    return RepairChains.crossRackHops(chain, u -> sources.get(u).peekFirst().getNetworkLocation(), requestorRack);
  }

  /**
   * Each load probe announces the partial sum (a block of {@code lost}'s length) a chain through
   * the helper would bring it, so that the tasks of a recovery, which plan at the same moment,
   * see one another.
   */
  private static RepairChains.Helpers helpers(ReconstructionContext ctx, Map<Integer, Deque<DatanodeInfo>> sources,
                                              java.util.function.IntFunction<ExtendedBlock> blockOf,
                                              StripedLayout layout, long groupLength, int lost) {
    return new RepairChains.Helpers() {
      @Override
      public long blockLength(int unit) {
        return layout.internalBlockLength(groupLength, unit);
      }

      @Override
      public long[] loads(int[] units) {
        for (int u : units) { // every helper has a source before any is probed
          source(u);
        }
        return AgentLoads.probe(ctx, units, sources, blockOf, layout.internalBlockLength(groupLength, lost));
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
        Deque<DatanodeInfo> d = sources.get(unit);
        if (d == null || d.isEmpty()) {
          throw new IllegalStateException("the repair reads internal block " + unit + ", which has no source");
        }
        return d.peekFirst();
      }
    };
  }
}
