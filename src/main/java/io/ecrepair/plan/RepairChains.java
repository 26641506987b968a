package io.ecrepair.plan;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.codes.Codecs;
import io.ecrepair.codes.UndecodableException;
import io.ecrepair.codes.rs.RsFamily;
import io.ecrepair.ecdag.Ecdag;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.IntStream;

/**
 * The repair pipelining plan (ECPipe's basic path) of one lost internal block of a scalar code
 * (RS, LRC), for whichever requestor receives it (a rebuilding DataNode, a client reading the
 * block): the code's repair graph, flattened, is the lost block as a sum of helper blocks times
 * coefficients; the helpers form a chain that adds the terms one after another, and the
 * requestor receives the finished sum, so no link carries more than one block. The path is
 * chosen by ECPipe's weighted path selection with weights from the helpers' load
 * ({@link Pipelines#leastLoadedPath}): RS takes the k least loaded survivors of the racks that
 * hold most of them ({@link Pipelines#fewestRacks}: all of them unless racks hold several, as
 * with topology locality), LRC orders its local group. The helpers of each rack are then put
 * together and the requestor's rack last, so one partial sum leaves each other rack (ECWide's
 * rack-local repair, along a chain). An LRC block whose local group reads a rack that other
 * chains keep busy is read without that rack when the code allows and its links are freer
 * ({@link Pipelines#leastLoadedRoute}): in a full-node recovery under combined locality the
 * lost node's rack holds rack-mates of every lost block.
 */
public final class RepairChains {
  private RepairChains() {}

  /** What the choice needs to know of the group's internal blocks and their DataNodes. */
  public interface Helpers {
    /** Bytes internal block {@code unit} holds (0: it adds zeros and is never read). */
    long blockLength(int unit);

    /** The bytes each unit's DataNode still has to receive for other repairs (-1: unknown). */
    long[] loads(int[] units);

    /** The cost of a byte through unit's DataNode (1 = a typical node). */
    double cost(int unit);

    /** The rack of unit's DataNode. */
    String rack(int unit);
  }

  /**
   * The chain for {@code lost} over the helpers whose blocks the repair reads with a nonzero
   * coefficient and that hold bytes (the others add zeros), in the order of the least loaded
   * path; for RS, whose repair may read any k blocks, over the k survivors that path selection
   * picks (blocks holding no bytes count among the k for free). Null when no helper holds bytes.
   */
  public static Plan plan(CodeSpec spec, int lost, int[] available, Helpers helpers, long groupId,
                          String requestorRack, int sliceBytes) {
    List<Integer> stored = new ArrayList<>();
    List<Integer> zeros = new ArrayList<>();
    for (int u : available) {
      (helpers.blockLength(u) > 0 ? stored : zeros).add(u);
    }
    long unit = Math.max(1, helpers.blockLength(lost));
    // Ties are broken in an order rotated per group: by the group's sequence, since HDFS keeps
    // the internal block index in a group id's low 4 bits (a rotation by the id itself would be
    // the same for every group whenever the helper count divides 16, as RS(6,3)'s 8 do).
    long rotation = groupId >> 4;
    boolean anyK = Codecs.family(spec.codec().toLowerCase(Locale.ROOT)) instanceof RsFamily;
    int need = spec.k() - zeros.size();
    if (anyK && need > 0 && need <= stored.size()) {
      int[] all = stored.stream().mapToInt(Integer::intValue).toArray();
      int[] pool = Pipelines.fewestRacks(all, racks(helpers, all), requestorRack, need);
      int[] path = Pipelines.leastLoadedPath(pool, helpers.loads(pool), costs(helpers, pool), need, unit, rotation);
      List<Integer> chosen = new ArrayList<>(zeros);
      for (int u : path) {
        chosen.add(u);
      }
      return chain(spec, lost, chosen.stream().mapToInt(Integer::intValue).sorted().toArray(), path, helpers,
          sliceBytes, requestorRack);
    }
    int[] cheapest = reads(spec, lost, available, helpers);
    if (cheapest.length == 0) {
      return null;
    }
    Map<Integer, Long> loadOf = new HashMap<>();
    probe(cheapest, helpers, loadOf);
    Route route = new Route(available, cheapest);
    List<Route> around = aroundBusyRacks(spec, lost, available, cheapest, helpers, requestorRack, loadOf, unit);
    if (!around.isEmpty()) {
      List<Route> routes = new ArrayList<>(List.of(route));
      routes.addAll(around);
      around.forEach(r -> probe(r.reads(), helpers, loadOf));
      Map<Integer, String> rackOf = new HashMap<>();
      loadOf.keySet().forEach(u -> rackOf.put(u, helpers.rack(u)));
      route = routes.get(Pipelines.leastLoadedRoute(routes.stream().map(Route::reads).toList(), rackOf,
          rackLoads(loadOf, helpers), requestorRack, unit));
    }
    int[] reads = route.reads();
    long[] loads = IntStream.of(reads).mapToLong(loadOf::get).toArray();
    int[] path = Pipelines.leastLoadedPath(reads, loads, costs(helpers, reads), reads.length, unit, rotation);
    return chain(spec, lost, route.from(), path, helpers, sliceBytes, requestorRack);
  }

  /** A read set of the repair of one block: the blocks it may use, and those it reads. */
  private record Route(int[] from, int[] reads) {}

  /**
   * For each rack the cheapest repair reads (besides the requestor's) whose busiest helper is a
   * whole block or more behind, the code's cheapest repair without that rack, where it has one
   * ({@link Pipelines#leastLoadedRoute} then chooses). An idle cluster compiles and probes nothing more.
   */
  private static List<Route> aroundBusyRacks(CodeSpec spec, int lost, int[] available, int[] cheapest, Helpers helpers,
                                             String requestorRack, Map<Integer, Long> loadOf, long unit) {
    List<Route> routes = new ArrayList<>();
    Map<String, Long> rackLoad = rackLoads(loadOf, helpers);
    for (String rack : new TreeSet<>(rackLoad.keySet())) {
      if (rack.equals(String.valueOf(requestorRack)) || rackLoad.get(rack) < unit) {
        continue;
      }
      int[] without = IntStream.of(available).filter(u -> !rack.equals(String.valueOf(helpers.rack(u)))).toArray();
      try {
        int[] reads = reads(spec, lost, without, helpers);
        if (reads.length > 0) {
          routes.add(new Route(without, reads));
        }
      } catch (UndecodableException e) {
        // the rest of the group cannot rebuild the block without that rack
      }
    }
    return routes;
  }

  /** Per rack, the largest load among its probed helpers. */
  private static Map<String, Long> rackLoads(Map<Integer, Long> loadOf, Helpers helpers) {
    Map<String, Long> rackLoad = new HashMap<>();
    loadOf.forEach((u, load) -> rackLoad.merge(String.valueOf(helpers.rack(u)), load, Math::max));
    return rackLoad;
  }

  /** Asks the load of those of {@code units} not asked yet. */
  private static void probe(int[] units, Helpers helpers, Map<Integer, Long> loadOf) {
    int[] ask = IntStream.of(units).filter(u -> !loadOf.containsKey(u)).toArray();
    if (ask.length > 0) {
      long[] loads = helpers.loads(ask);
      for (int i = 0; i < ask.length; i++) {
        loadOf.put(ask[i], loads[i]);
      }
    }
  }

  /** The helpers the code's cheapest repair of {@code lost} from {@code available} reads. */
  private static int[] reads(CodeSpec spec, int lost, int[] available, Helpers helpers) {
    return coefficients(spec, lost, available, helpers).keySet().stream().mapToInt(Integer::intValue).toArray();
  }

  /** The hops of a chain from this class that cross racks (each carries one block), given each helper's rack. */
  public static int crossRackHops(Plan chain, java.util.function.IntFunction<String> rackOf, String requestorRack) {
    @SuppressWarnings("unchecked")
    int[] path = ((List<Integer>) chain.details().get("path")).stream().mapToInt(Integer::intValue).toArray();
    return Pipelines.crossRackHops(path, IntStream.of(path).mapToObj(rackOf).toArray(String[]::new), requestorRack);
  }

  /**
   * The chain along {@code path} of the repair of {@code lost} from {@code from}, each rack's
   * helpers together and the requestor's rack last ({@link Pipelines#groupByRack}); helpers with
   * a zero term are left out.
   */
  private static Plan chain(CodeSpec spec, int lost, int[] from, int[] path, Helpers helpers, int sliceBytes,
                            String requestorRack) {
    Map<Integer, Integer> coef = coefficients(spec, lost, from, helpers);
    int[] byLoad = IntStream.of(path).filter(coef::containsKey).toArray();
    if (byLoad.length == 0) {
      return null;
    }
    int[] order = Pipelines.groupByRack(byLoad, racks(helpers, byLoad), requestorRack);
    int[] coefs = new int[order.length];
    for (int i = 0; i < order.length; i++) {
      coefs[i] = coef.get(order[i]);
    }
    return Pipelines.sumChain(spec.n(), lost, order, coefs, sliceBytes);
  }

  /** Per helper holding bytes, its coefficient in the code's repair of {@code lost} from {@code available}. */
  private static Map<Integer, Integer> coefficients(CodeSpec spec, int lost, int[] available, Helpers helpers) {
    Ecdag graph = CodeRepairs.plan(spec, new int[] {lost}, available).graph();
    CodeRepairs.prepareSingleLosses(spec);
    if (graph.repaired().size() != 1) {
      throw new IllegalStateException("a scalar repair of one block has one repaired vertex, not " + graph.repaired());
    }
    Map<Integer, Integer> coef = new TreeMap<>();
    GraphTransforms.leafExpressions(graph).get(graph.repaired().get(0).id())
        .forEach((leaf, c) -> coef.put(graph.vertex(leaf).block(), c));
    coef.keySet().removeIf(unit -> helpers.blockLength(unit) == 0);
    coef.values().removeIf(c -> c == 0);
    return coef;
  }

  private static double[] costs(Helpers helpers, int[] units) {
    double[] c = new double[units.length];
    for (int i = 0; i < units.length; i++) {
      c[i] = helpers.cost(units[i]);
    }
    return c;
  }

  private static String[] racks(Helpers helpers, int[] units) {
    String[] r = new String[units.length];
    for (int i = 0; i < units.length; i++) {
      r[i] = helpers.rack(units[i]);
    }
    return r;
  }
}
