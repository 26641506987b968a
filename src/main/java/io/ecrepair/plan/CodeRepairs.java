package io.ecrepair.plan;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.codes.RepairableCode;
import io.ecrepair.codes.UndecodableException;
import io.ecrepair.ecdag.Ecdag;
import io.ecrepair.exec.CellRowRepair;
import io.ecrepair.exec.NodePart;
import io.ecrepair.gf.RegionCoders;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The repairs of our codes, shared by everything in one JVM that repairs or reads (a DataNode's
 * tasks, a client's degraded reads): one code per (codec, k, m) and a bounded cache of compiled
 * repairs per (lost, available) pattern (building a repair is synchronized on its code), the
 * codes' stored parallel plans with their compiled parts, and their central plans.
 */
public final class CodeRepairs {
  private static final int MAX_CACHED = 256;
  /**
   * Parallel plans per lost index besides the first, with other computing nodes: a Clay code's
   * minimum-load plans use four helpers to compute, so three plans spread them over 12 of 13.
   */
  private static final int PLAN_ALTERNATIVES = 2;
  private static final Map<CodeSpec, RepairableCode> CODES = new ConcurrentHashMap<>();
  private static final Map<String, CellRowRepair> PLANS = new LinkedHashMap<>(64, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, CellRowRepair> eldest) {
      return size() > MAX_CACHED;
    }
  };

  /** Chains over windows of sub-chunks, per (code, lost, available, window); a reader's random reads make many. */
  private static final Map<WindowKey, WindowChain> WINDOW_CHAINS = new LinkedHashMap<>(64, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<WindowKey, WindowChain> eldest) {
      return size() > MAX_CACHED;
    }
  };

  /** Codes whose single-loss repairs were handed to {@link #PREPARER}. */
  private static final java.util.Set<CodeSpec> PREPARED = ConcurrentHashMap.newKeySet();
  /** One low-priority thread compiles repairs ahead of need, so it never competes with itself. */
  private static final java.util.concurrent.ExecutorService PREPARER =
      java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "ec-repair-plan-preparer");
        t.setDaemon(true);
        t.setPriority(Thread.MIN_PRIORITY);
        return t;
      });

  /**
   * Parallel repair plans (ParaRC's minimum-load colorings, from our search) per (code, lost
   * index): shipped in the jar for the policies of conf/user_ec_policies.xml, else computed in
   * the background the first time a code is seen, never on a repair's critical path.
   */
  private static final PlanStore PARALLEL = PlanStore.withShippedPlans("fast",
      Planner.Options.defaults().withTimeLimit(20), PLAN_ALTERNATIVES);
  private static final Map<Plan, Map<Integer, NodePart>> PARTS = new ConcurrentHashMap<>();
  private static final java.util.Set<CodeSpec> SEARCHED = ConcurrentHashMap.newKeySet();
  private static final Map<String, Plan> CENTRAL = new ConcurrentHashMap<>();
  /**
   * Losses searched alone (several blocks, or one for a reader) that were searched or queued,
   * and the several-block ones still queued (at most a few at a time).
   */
  private static final java.util.Set<String> SEARCHED_ALONE = ConcurrentHashMap.newKeySet();
  private static final java.util.Set<String> MULTI_PENDING = ConcurrentHashMap.newKeySet();
  private static final int MAX_MULTI_PENDING = 8;

  private CodeRepairs() {}

  /**
   * The parallel repair plan of {@code lost} (every other internal block available), if one is
   * stored. The first call for a code also readies all its plans in the background (loads and
   * compiles the shipped ones, searches the others), so later repairs find them at hand.
   */
  public static java.util.Optional<Plan> parallelPlan(CodeSpec spec, int lost) {
    return parallelPlans(spec, lost).stream().findFirst();
  }

  /**
   * The stored parallel plans of {@code lost}: the minimum-load plan first, then alternatives
   * that put the computing roles on other helpers (empty if none is stored yet). Readies the
   * code's plans in the background like {@link #parallelPlan}.
   */
  public static java.util.List<Plan> parallelPlans(CodeSpec spec, int lost) {
    return parallelPlans(spec, new int[] {lost});
  }

  /**
   * The stored parallel plans that rebuild {@code lost} (sorted; one block or several
   * together), as {@link #parallelPlans(CodeSpec, int)}. Plans for several lost blocks are not
   * shipped: the first task that needs one queues its search in the background (a bounded
   * number at a time) and is repaired centrally; later tasks of the same losses find it.
   */
  public static java.util.List<Plan> parallelPlans(CodeSpec spec, int[] lost) {
    java.util.List<Plan> p = PARALLEL.lookupAll(spec, lost);
    if (SEARCHED.add(spec)) {
      PREPARER.execute(() -> searchParallelPlans(spec));
    }
    if (p.isEmpty() && lost.length > 1) {
      String key = centralKey(spec, lost);
      if (MULTI_PENDING.size() < MAX_MULTI_PENDING && SEARCHED_ALONE.add(key)) {
        MULTI_PENDING.add(key);
        PREPARER.execute(() -> {
          try {
            searchParallelPlans(spec, lost);
          } finally {
            MULTI_PENDING.remove(key);
          }
        });
      }
    }
    return p;
  }

  /**
   * The stored parallel plans of {@code lost} (as {@link #parallelPlans(CodeSpec, int)}) for a
   * reader, which needs the plans of the blocks it reads only: no other index is loaded, and a
   * plan not stored (a code not shipped) is searched in the background for this index alone.
   * Readying a Clay code's every plan took a client JVM about 2 s of CPU on its first
   * degraded read, and a search of every index of a code not shipped would take minutes.
   */
  public static java.util.List<Plan> parallelPlansOfIndex(CodeSpec spec, int lost) {
    java.util.List<Plan> p = PARALLEL.lookupAll(spec, lost);
    if (p.isEmpty() && !SEARCHED.contains(spec) && SEARCHED_ALONE.add(centralKey(spec, new int[] {lost}))) {
      PREPARER.execute(() -> searchParallelPlans(spec, new int[] {lost}));
    }
    return p;
  }

  /** Loads or searches the parallel plans of {@code lost} (one block or several) and their central plan, on this thread. */
  public static void searchParallelPlans(CodeSpec spec, int[] lost) {
    synchronized (PARALLEL) {
      try {
        PARALLEL.precompute(spec, lost);
        PARALLEL.lookupAll(spec, lost).forEach(CodeRepairs::parts);
        centralPlan(spec, lost);
      } catch (RuntimeException e) {
        org.slf4j.LoggerFactory.getLogger(CodeRepairs.class).warn(
            "ec-repair: no parallel repair plans for {} lost {}: {}", spec, Arrays.toString(lost), e.toString());
      }
    }
  }

  /**
   * Loads or searches the parallel plans of every lost index of {@code spec} and compiles their
   * parts, on the calling thread.
   */
  public static void searchParallelPlans(CodeSpec spec) {
    synchronized (PARALLEL) {
      try {
        PARALLEL.precompute(spec);
        for (int lost = 0; lost < spec.n(); lost++) {
          PARALLEL.lookupAll(spec, lost).forEach(CodeRepairs::parts);
          centralPlan(spec, lost); // the plan choice weighs it against the parallel one
        }
      } catch (RuntimeException e) {
        org.slf4j.LoggerFactory.getLogger(CodeRepairs.class).warn("ec-repair: no parallel repair plans for {}: {}",
            spec, e.toString());
      }
    }
  }

  /** The central plan of {@code lost} (everything on the requestor; no search), kept per code. */
  public static Plan centralPlan(CodeSpec spec, int... lost) {
    return CENTRAL.computeIfAbsent(centralKey(spec, lost), k -> {
      RepairableCode code = code(spec);
      synchronized (code) {
        return Planner.plan(code, lost, "centralized", Planner.Options.defaults());
      }
    });
  }

  /** The central plan of {@code lost} if it was built already (never builds it: no work on a repair's path). */
  public static java.util.Optional<Plan> centralPlanIfReady(CodeSpec spec, int... lost) {
    return java.util.Optional.ofNullable(CENTRAL.get(centralKey(spec, lost)));
  }

  private static String centralKey(CodeSpec spec, int[] lost) {
    return spec + "/" + Arrays.toString(java.util.stream.IntStream.of(lost).sorted().toArray());
  }

  /** A plan and every node's part of it. */
  public record WindowChain(Plan plan, Map<Integer, NodePart> parts) {}

  /** What a window chain is built from: the repair (its identity) and the window (0+1 for a scalar code's chain). */
  private record WindowKey(CellRowRepair repair, int first, int count) {}

  /**
   * For a read of sub-chunks [{@code first}, {@code first + count}) of the one lost unit's cells
   * of a vector code, that unit's index as the requestor: the part of {@code repair} that
   * rebuilds only those ({@link Ecdag#restrictedTo}), as a chain (ECPipe's shape) over its
   * helpers: each adds its terms to the partial sums it receives and passes them on, so no node
   * receives more than {@code count} sub-chunks, where the stored plans, searched for whole
   * cells, would put most of a small window's inputs on one computing helper. Built in
   * microseconds (no search), kept per window.
   */
  public static WindowChain windowChain(CellRowRepair repair, int first, int count) {
    Ecdag whole = repair.graph();
    if (whole.subchunkCount() == 1) {
      throw new IllegalArgumentException("a scalar code's window is its chain over the window's bytes: scalarChain");
    }
    // Flattened and restricted again: a sub-chunk the window is computed from (Butterfly reads
    // rebuilt ones) is then summed from the leaves, not sent to the requestor as well.
    return chained(new WindowKey(repair, first, count),
        () -> GraphTransforms.flatten(whole.restrictedTo(first, count)).restrictedTo(first, count));
  }

  /**
   * For a read of part of a scalar code's one lost cell: {@code repair} as a chain over its
   * helpers, as {@link #windowChain}. A scalar code is linear byte by byte, so the chain rebuilds
   * any byte range of the lost block; run over the range as rows of a few KiB, each row's
   * partial sums go down the chain right behind the last one's, where the range as one slice
   * would wait whole on every hop.
   */
  public static WindowChain scalarChain(CellRowRepair repair) {
    if (repair.graph().subchunkCount() != 1) {
      throw new IllegalArgumentException("a vector code's window is a restricted repair: windowChain");
    }
    return chained(new WindowKey(repair, 0, 1), repair::graph);
  }

  private static WindowChain chained(WindowKey key, java.util.function.Supplier<Ecdag> graph) {
    int[] lost = key.repair().lost();
    if (lost.length != 1) {
      throw new IllegalArgumentException("a window chain rebuilds one unit, not " + Arrays.toString(lost));
    }
    synchronized (WINDOW_CHAINS) {
      WindowChain c = WINDOW_CHAINS.get(key);
      if (c != null) {
        return c;
      }
    }
    Ecdag window = graph.get();
    RepairProblem problem = new RepairProblem(window, 1 + Math.max(lost[0], GraphTransforms.maxBlock(window)), lost[0]);
    Plan chain = Pipelines.chain(problem, Pipelines.helpers(window), "pipeline", Planner.DEFAULT_SLICE);
    WindowChain c = new WindowChain(chain, NodePart.compile(chain.graph(), chain.colors()));
    synchronized (WINDOW_CHAINS) {
      WINDOW_CHAINS.put(key, c);
    }
    return c;
  }

  /** Every node's part of a plan, compiled once. */
  public static Map<Integer, NodePart> parts(Plan plan) {
    return PARTS.computeIfAbsent(plan, p -> NodePart.compile(p.graph(), p.colors()));
  }

  public static RepairableCode code(CodeSpec spec) {
    return CODES.computeIfAbsent(spec, s -> s.create(RegionCoders.best()));
  }

  /**
   * Compiles, once per code and JVM and in the background, the repair of every single lost
   * internal block from all the others: when a node dies, every DataNode that rebuilds one of
   * its blocks then finds its repair ready instead of compiling it on the repair's critical path
   * (a Clay repair takes a cold JVM up to a second of CPU to compile).
   */
  public static void prepareSingleLosses(CodeSpec spec) {
    if (!PREPARED.add(spec)) {
      return;
    }
    PREPARER.execute(() -> {
      int n = spec.n();
      for (int lost = 0; lost < n; lost++) {
        int[] available = new int[n - 1];
        for (int u = 0, j = 0; u < n; u++) {
          if (u != lost) {
            available[j++] = u;
          }
        }
        try {
          plan(spec, new int[] {lost}, available);
        } catch (RuntimeException e) {
          // only a head start: the repair that needs this plan compiles it and reports any error
        }
      }
    });
  }

  /** Whether every parallel plan of {@code spec} was handed to the background preparer (for tests). */
  public static boolean isReadying(CodeSpec spec) {
    return SEARCHED.contains(spec);
  }

  /**
   * Readies a code's repairs in the background before its first task: every single-loss
   * repair, and for a code with sub-chunks its parallel plans and their central plans (loaded
   * from the jar, or searched). Each part is done once per JVM.
   */
  public static void prepare(CodeSpec spec) {
    prepareSingleLosses(spec);
    if (spec.subPacketization() > 1 && SEARCHED.add(spec)) {
      PREPARER.execute(() -> searchParallelPlans(spec));
    }
  }

  /** Whether the repair of {@code lost} from {@code available} is compiled and cached (for tests). */
  public static boolean isCached(CodeSpec spec, int[] lost, int[] available) {
    synchronized (PLANS) {
      return PLANS.containsKey(key(spec, lost, available));
    }
  }

  private static String key(CodeSpec spec, int[] lost, int[] available) {
    return spec + Arrays.toString(lost) + Arrays.toString(available);
  }

  /**
   * The code's cheapest repair of {@code lost} from {@code available} (sorted).
   *
   * @throws UndecodableException when {@code available} cannot rebuild {@code lost}
   */
  public static CellRowRepair plan(CodeSpec spec, int[] lost, int[] available) {
    String key = key(spec, lost, available);
    synchronized (PLANS) {
      CellRowRepair p = PLANS.get(key);
      if (p != null) {
        return p;
      }
    }
    RepairableCode code = code(spec);
    CellRowRepair p;
    synchronized (code) {
      p = CellRowRepair.plan(code, lost, available);
    }
    synchronized (PLANS) {
      PLANS.put(key, p);
    }
    return p;
  }
}
