package io.ecrepair.plan;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.ecrepair.codes.CodeSpec;
import io.ecrepair.codes.RepairableCode;
import io.ecrepair.gf.RegionCoders;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Plans computed ahead and kept, so a repair never searches on its critical path (ParaRC's
 * PRS generator, section 6.1): {@link #precompute} plans every lost index of a code once
 * (e.g. when a policy is enabled, or offline with the CLI) and stores each plan in memory
 * and, given a directory, as {@code plan} JSON files that survive restarts. At repair time
 * {@link #lookup} only reads; {@link #planFor} falls back to the centralized plan, which
 * needs no search, when nothing was stored.
 *
 * <p>A store may keep <em>alternatives</em> per lost index: plans found with the computing
 * nodes of the earlier ones excluded ({@link Planner.Options#withNoCompute}), each kept only if
 * it is as light on its busiest node as the first and costs little more bandwidth. In a
 * full-node recovery every task of one lost index would otherwise load the same helpers of
 * its group; with alternatives the plan choice can put the computing roles on idle nodes.
 *
 * <p>A plan depends on the code (codec, k, m), not on the cell size, and on the strategy,
 * the lost index, where the requestor is and the search seed. Thread-safe.
 */
public final class PlanStore {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path dir;
  private final String strategy;
  private final Planner.Options options;
  private final Map<String, Plan> plans = new ConcurrentHashMap<>();
  private final boolean shippedPlans;
  private final int alternatives;

  /** An alternative may cost at most this much more bandwidth than the first plan. */
  static final double ALTERNATIVE_BANDWIDTH = 1.10;

  /** @param dir where plans persist (null: memory only) */
  public PlanStore(Path dir, String strategy, Planner.Options options) {
    this(dir, strategy, options, false, 0);
  }

  /**
   * @param alternatives how many plans with other computing nodes to search per lost index
   *     besides the first (0: none)
   */
  public PlanStore(Path dir, String strategy, Planner.Options options, int alternatives) {
    this(dir, strategy, options, false, alternatives);
  }

  /**
   * A store in memory that also finds the plans shipped in the jar (resources
   * {@code /io/ecrepair/plans/KEY.json.gz}, written by dev-support/make-plans): the DataNodes'.
   */
  public static PlanStore withShippedPlans(String strategy, Planner.Options options, int alternatives) {
    return new PlanStore(null, strategy, options, true, alternatives);
  }

  private PlanStore(Path dir, String strategy, Planner.Options options, boolean shippedPlans, int alternatives) {
    if (alternatives < 0) {
      throw new IllegalArgumentException("alternatives must not be negative, got " + alternatives);
    }
    this.shippedPlans = shippedPlans;
    this.alternatives = alternatives;
    if (!Planner.STRATEGIES.contains(strategy)) {
      throw new IllegalArgumentException("unknown strategy '" + strategy + "'");
    }
    this.dir = dir;
    this.strategy = strategy;
    this.options = options;
  }

  public String strategy() {
    return strategy;
  }

  /**
   * Plans every lost index of {@code code} that is not stored yet, with its alternatives (those
   * of a stored plan are taken as stored: they are searched together); returns how many plans
   * it computed.
   */
  public int precompute(CodeSpec code) {
    int computed = 0;
    for (int lost = 0; lost < code.n(); lost++) {
      computed += precompute(code, lost);
    }
    return computed;
  }

  /**
   * Plans the repair of {@code lost} together (one or several blocks) with its alternatives,
   * unless stored already; returns how many plans it computed.
   */
  public int precompute(CodeSpec code, int... lost) {
    if (lookup(code, lost).isPresent()) {
      return 0;
    }
    RepairableCode c = code.create(RegionCoders.best());
    Plan first = Planner.plan(c, lost, strategy, options);
    put(key(code, lost, 0), first, code, lost);
    int computed = 1;
    java.util.TreeSet<Integer> taken = new java.util.TreeSet<>();
    Plan last = first;
    for (int alt = 1; alt <= alternatives; alt++) {
      for (int node : last.computingNodes()) {
        taken.add(node);
      }
      if (taken.isEmpty() || taken.size() >= code.n() - lost.length) {
        break; // nothing computes, or no helper is left to compute
      }
      Plan p = Planner.plan(c, lost, strategy,
          options.withNoCompute(taken.stream().mapToInt(Integer::intValue).toArray()));
      computed++;
      if (!asGoodAs(p, first)) {
        break;
      }
      put(key(code, lost, alt), p, code, lost);
      last = p;
    }
    return computed;
  }

  /** Whether an alternative is worth keeping beside the first plan of its lost index. */
  static boolean asGoodAs(Plan alternative, Plan first) {
    return alternative.computingNodes().length > 0
        && alternative.point().maxLoad() <= first.point().maxLoad()
        && alternative.point().bandwidth() <= ALTERNATIVE_BANDWIDTH * first.point().bandwidth();
  }

  /** The stored plan, from memory, the directory or (for {@link #withShippedPlans}) the jar; never searches. */
  public Optional<Plan> lookup(CodeSpec code, int... lost) {
    return lookup(code, lost, 0);
  }

  /**
   * The stored plan of {@code lost} (one or several blocks) and its stored alternatives (first
   * the plan itself; empty if none is stored); never searches.
   */
  public java.util.List<Plan> lookupAll(CodeSpec code, int... lost) {
    java.util.List<Plan> all = new java.util.ArrayList<>();
    for (int alt = 0; alt <= alternatives; alt++) {
      Optional<Plan> p = lookup(code, lost, alt);
      if (p.isEmpty()) {
        break;
      }
      all.add(p.get());
    }
    return all;
  }

  private Optional<Plan> lookup(CodeSpec code, int[] lost, int alt) {
    String key = key(code, lost, alt);
    Plan p = plans.get(key);
    if (p == null && shippedPlans) {
      p = shipped(key);
    }
    if (p == null && dir != null) {
      Path f = dir.resolve(key + ".json");
      if (Files.isRegularFile(f)) {
        try {
          @SuppressWarnings("unchecked")
          Map<String, Object> j = JSON.readValue(f.toFile(), Map.class);
          p = PlanJson.fromJson(j);
          plans.put(key, p);
        } catch (IOException | RuntimeException e) {
          throw new IllegalStateException("stored plan " + f + " is unreadable: " + e.getMessage(), e);
        }
      }
    }
    return Optional.ofNullable(p);
  }

  private Plan shipped(String key) {
    String name = "/io/ecrepair/plans/" + key + ".json.gz";
    try (java.io.InputStream in = PlanStore.class.getResourceAsStream(name)) {
      if (in == null) {
        return null;
      }
      @SuppressWarnings("unchecked")
      Map<String, Object> j = JSON.readValue(new java.util.zip.GZIPInputStream(in), Map.class);
      Plan p = PlanJson.fromJson(j);
      plans.put(key, p);
      return p;
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException("shipped plan " + name + " is unreadable: " + e.getMessage(), e);
    }
  }

  /** The stored plan, or the centralized one (computed on the spot: no search) if none is stored. */
  public Plan planFor(CodeSpec code, int lost) {
    return lookup(code, lost).orElseGet(() -> Planner.plan(code.create(RegionCoders.best()), lost, "centralized",
        options));
  }

  public int size() {
    return plans.size();
  }

  private void put(String key, Plan p, CodeSpec code, int[] lost) {
    plans.put(key, p);
    if (dir != null) {
      try {
        Files.createDirectories(dir);
        Path tmp = dir.resolve(key + ".json.tmp");
        JSON.writeValue(tmp.toFile(), PlanJson.toJson(p, code.codec().toUpperCase(java.util.Locale.ROOT) + "-" + code.k()
            + "-" + code.m(), lost));
        Files.move(tmp, dir.resolve(key + ".json"), java.nio.file.StandardCopyOption.REPLACE_EXISTING,
            java.nio.file.StandardCopyOption.ATOMIC_MOVE);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot store plan " + key + " in " + dir, e);
      }
    }
  }

  private String key(CodeSpec code, int[] lost, int alt) {
    int[] sorted = RepairProblem.checkedLost(lost, code.n());
    return code.codec() + "-" + code.k() + "-" + code.m() + "_" + strategy + "_lost"
        + java.util.stream.IntStream.of(sorted).mapToObj(Integer::toString).collect(java.util.stream.Collectors.joining("-"))
        + (options.outsideRequestor() ? "_outside" : "") + "_seed" + options.seed()
        + (options.transform() == null ? "" : "_" + options.transform().replace('+', '-'))
        + (alt == 0 ? "" : "_alt" + alt);
  }
}
