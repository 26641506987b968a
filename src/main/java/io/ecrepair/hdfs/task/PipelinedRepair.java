package io.ecrepair.hdfs.task;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.codes.Codecs;
import io.ecrepair.codes.rs.RsFamily;
import io.ecrepair.ecdag.Ecdag;
import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.hdfs.agent.AgentLoads;
import io.ecrepair.layout.StripedLayout;
import io.ecrepair.plan.GraphTransforms;
import io.ecrepair.plan.Pipelines;
import io.ecrepair.plan.Plan;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;

/**
 * The repair pipelining plan (ECPipe's basic path) of one lost internal block of a scalar code
 * (RS, LRC) for one task: the code's repair graph, flattened, is the lost block as a sum of
 * helper blocks times coefficients; the helpers form a chain that adds the terms one after
 * another, and the rebuilding DataNode receives the finished sum, so no link carries more than
 * one block. The path is chosen by ECPipe's weighted path selection with weights from the load
 * the helpers' agents report ({@link Pipelines#leastLoadedPath}): RS takes the k least loaded
 * survivors, LRC orders its local group. The helpers of each rack are then put together and the
 * rebuilding DataNode's rack last, so one partial sum leaves each other rack (ECWide's rack-local
 * repair, along a chain). {@link ParallelRepair} runs it on the helpers' agents
 * like any other plan. This class only gathers what the decision needs (the survivors, their
 * load, the coefficients) and asks {@link Pipelines} for the path.
 */
final class PipelinedRepair {
  private PipelinedRepair() {}

  /** Whether a task may pipeline: agents on, one lost block of a scalar code, no re-decode check asked for. */
  static boolean applies(ReconstructionContext ctx, CodeSpec spec, int lostCount) {
    return ctx.agentPortOffset() > 0 && spec.subPacketization() == 1 && lostCount == 1 && !ctx.validation();
  }

  /**
   * The chain for {@code lost}: over the helpers whose blocks the repair reads with a nonzero
   * coefficient and that hold bytes (the others add zeros), in the order of the least loaded
   * path; for RS, whose repair may read any k blocks, over the k survivors that path selection
   * picks (blocks holding no bytes count among the k for free). Null when no helper holds bytes.
   */
  static Plan plan(ReconstructionContext ctx, CodeSpec spec, int lost, int[] available,
                   Map<Integer, Deque<DatanodeInfo>> sources, java.util.function.IntFunction<ExtendedBlock> blockOf,
                   StripedLayout layout, long groupLength, long groupId, String requestorRack) {
    List<Integer> stored = new ArrayList<>();
    List<Integer> zeros = new ArrayList<>();
    for (int u : available) {
      (layout.internalBlockLength(groupLength, u) > 0 ? stored : zeros).add(u);
    }
    long unit = Math.max(1, layout.internalBlockLength(groupLength, lost));
    boolean anyK = Codecs.family(spec.codec().toLowerCase(java.util.Locale.ROOT)) instanceof RsFamily;
    int need = spec.k() - zeros.size();
    if (anyK && need > 0 && need <= stored.size()) {
      int[] pool = stored.stream().mapToInt(Integer::intValue).toArray();
      int[] path = Pipelines.leastLoadedPath(pool, AgentLoads.probe(ctx, pool, sources, blockOf),
          costs(ctx, pool, sources), need, unit, groupId);
      List<Integer> chosen = new ArrayList<>(zeros);
      for (int u : path) {
        chosen.add(u);
      }
      return chain(spec, lost, chosen.stream().mapToInt(Integer::intValue).sorted().toArray(), path, sources, layout,
          groupLength, ctx.pipelineSliceBytes(), requestorRack);
    }
    Map<Integer, Integer> coef = coefficients(spec, lost, available, layout, groupLength);
    if (coef.isEmpty()) {
      return null;
    }
    int[] helpers = coef.keySet().stream().mapToInt(Integer::intValue).toArray();
    checkSources(helpers, sources);
    int[] path = Pipelines.leastLoadedPath(helpers, AgentLoads.probe(ctx, helpers, sources, blockOf),
        costs(ctx, helpers, sources), helpers.length, unit, groupId);
    return chain(spec, lost, available, path, sources, layout, groupLength, ctx.pipelineSliceBytes(), requestorRack);
  }

  /**
   * The chain along {@code path} of the repair of {@code lost} from {@code from}, each rack's
   * helpers together and the requestor's rack last ({@link Pipelines#groupByRack}); helpers with
   * a zero term are left out.
   */
  private static Plan chain(CodeSpec spec, int lost, int[] from, int[] path, Map<Integer, Deque<DatanodeInfo>> sources,
                            StripedLayout layout, long groupLength, int sliceBytes, String requestorRack) {
    Map<Integer, Integer> coef = coefficients(spec, lost, from, layout, groupLength);
    int[] byLoad = IntStream.of(path).filter(coef::containsKey).toArray();
    if (byLoad.length == 0) {
      return null;
    }
    checkSources(byLoad, sources);
    int[] order = Pipelines.groupByRack(byLoad, racksOf(byLoad, sources), requestorRack);
    int[] coefs = new int[order.length];
    for (int i = 0; i < order.length; i++) {
      coefs[i] = coef.get(order[i]);
    }
    return Pipelines.sumChain(spec.n(), lost, order, coefs, sliceBytes);
  }

  /** Per helper holding bytes, its coefficient in the code's repair of {@code lost} from {@code available}. */
  private static Map<Integer, Integer> coefficients(CodeSpec spec, int lost, int[] available, StripedLayout layout,
                                                    long groupLength) {
    Ecdag graph = RepairCatalog.plan(spec, new int[] {lost}, available).graph();
    RepairCatalog.prepareSingleLosses(spec);
    if (graph.repaired().size() != 1) {
      throw new IllegalStateException("a scalar repair of one block has one repaired vertex, not " + graph.repaired());
    }
    Map<Integer, Integer> coef = new TreeMap<>();
    GraphTransforms.leafExpressions(graph).get(graph.repaired().get(0).id())
        .forEach((leaf, c) -> coef.put(graph.vertex(leaf).block(), c));
    coef.keySet().removeIf(unit -> layout.internalBlockLength(groupLength, unit) == 0);
    coef.values().removeIf(c -> c == 0);
    return coef;
  }

  /** The cost of a byte through each helper's DataNode ({@link ReconstructionContext#costs}). */
  private static double[] costs(ReconstructionContext ctx, int[] helpers, Map<Integer, Deque<DatanodeInfo>> sources) {
    double[] c = new double[helpers.length];
    for (int i = 0; i < helpers.length; i++) {
      c[i] = ctx.costs().of(sources.get(helpers[i]).peekFirst());
    }
    return c;
  }

  /** The hops of a chain from this class that cross racks (each carries one block). */
  static int crossRackHops(Plan chain, Map<Integer, Deque<DatanodeInfo>> sources, String requestorRack) {
    @SuppressWarnings("unchecked")
    int[] path = ((List<Integer>) chain.details().get("path")).stream().mapToInt(Integer::intValue).toArray();
    return Pipelines.crossRackHops(path, racksOf(path, sources), requestorRack);
  }

  /** The rack (network location, as the NameNode knows it) of the source of each helper. */
  private static String[] racksOf(int[] helpers, Map<Integer, Deque<DatanodeInfo>> sources) {
    String[] racks = new String[helpers.length];
    for (int i = 0; i < helpers.length; i++) {
      racks[i] = sources.get(helpers[i]).peekFirst().getNetworkLocation();
    }
    return racks;
  }

  private static void checkSources(int[] helpers, Map<Integer, Deque<DatanodeInfo>> sources) {
    for (int h : helpers) {
      if (sources.get(h) == null || sources.get(h).isEmpty()) {
        throw new IllegalStateException("the repair reads internal block " + h + ", which has no source");
      }
    }
  }
}
