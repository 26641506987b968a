package io.ecrepair.hdfs.task;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.ecdag.Ecdag;
import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.hdfs.agent.AgentLoads;
import io.ecrepair.layout.StripedLayout;
import io.ecrepair.plan.GraphTransforms;
import io.ecrepair.plan.Pipelines;
import io.ecrepair.plan.Plan;
import java.util.Deque;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;

/**
 * The repair pipelining plan (ECPipe's basic path) of one lost internal block of a scalar code
 * (RS, LRC) for one task: the code's repair graph, flattened, is the lost block as a sum of
 * helper blocks times coefficients; the helpers form a chain that adds the terms one after
 * another, and the rebuilding DataNode receives the finished sum, so no link carries more than
 * one block. {@link ParallelRepair} runs it on the helpers' agents like any other plan. This
 * class only gathers what the decision needs (the coefficients, the helpers' load) and asks
 * {@link Pipelines} for the chain.
 */
final class PipelinedRepair {
  private PipelinedRepair() {}

  /** Whether a task may pipeline: agents on, one lost block of a scalar code, no re-decode check asked for. */
  static boolean applies(ReconstructionContext ctx, CodeSpec spec, int lostCount) {
    return ctx.agentPortOffset() > 0 && spec.subPacketization() == 1 && lostCount == 1 && !ctx.validation();
  }

  /**
   * The chain over every helper whose block the repair reads with a nonzero coefficient and
   * that holds bytes (the others add zeros), rotated by the group id, busiest helper first
   * ({@link Pipelines#busiestFirst}); null when no helper holds bytes.
   */
  static Plan plan(ReconstructionContext ctx, CodeSpec spec, int lost, int[] available,
                   Map<Integer, Deque<DatanodeInfo>> sources, StripedLayout layout, long groupLength, long groupId) {
    Ecdag graph = RepairCatalog.plan(spec, new int[] {lost}, available).graph();
    RepairCatalog.prepareSingleLosses(spec);
    if (graph.repaired().size() != 1) {
      throw new IllegalStateException("a scalar repair of one block has one repaired vertex, not " + graph.repaired());
    }
    Map<Integer, Integer> coef = new TreeMap<>();
    GraphTransforms.leafExpressions(graph).get(graph.repaired().get(0).id())
        .forEach((leaf, c) -> coef.put(graph.vertex(leaf).block(), c));
    coef.keySet().removeIf(unit -> layout.internalBlockLength(groupLength, unit) == 0);
    if (coef.isEmpty()) {
      return null;
    }
    int[] helpers = coef.keySet().stream().mapToInt(Integer::intValue).toArray();
    for (int h : helpers) {
      if (sources.get(h) == null || sources.get(h).isEmpty()) {
        throw new IllegalStateException("the repair reads internal block " + h + ", which has no source");
      }
    }
    // The head of a chain receives nothing: it goes to the helper whose downlink is busiest, so
    // DataNodes forming chains at the same time spare the most loaded links.
    int[] order = Pipelines.busiestFirst(helpers, AgentLoads.probe(ctx, helpers, sources), groupId);
    int[] coefs = new int[order.length];
    for (int i = 0; i < order.length; i++) {
      coefs[i] = coef.get(order[i]);
    }
    return Pipelines.sumChain(spec.n(), lost, order, coefs, ctx.pipelineSliceBytes());
  }
}
