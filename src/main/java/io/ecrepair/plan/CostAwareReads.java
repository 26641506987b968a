package io.ecrepair.plan;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * FastDR's enumerated greedy (EG) search (IEEE TC, section 3.4) for a degraded read of one cell
 * row that spans lost and healthy data units, generalised from XOR codes to ours: each lost unit
 * is rebuilt by one "decoding equation" (an option: the sub-chunks it reads from each helper),
 * healthy units in the request are read whole, every unit is read once for all that need it
 * (the union of sub-chunks), and the read time is that of the slowest node: the largest of
 * cost x bytes over the nodes, which are read in parallel. Given a receiver cost (ours, beyond
 * the paper's model), the reader's own downlink is one more link: every byte read crosses it,
 * so a choice that reads much more to spare one slow helper (Clay's whole-cell decode instead
 * of its sub-chunk repair) wins only when that helper really is the bottleneck.
 *
 * <p>The options of a lost unit are the code's own cheapest repair over every survivor (Clay's
 * sub-chunk repair, an LRC local group) and, over the d cheapest survivors D, its cheapest
 * repair from D and from every k-subset of D that can rebuild it (RS: any k; LRC: a global decode or a local
 * group within the subset; Clay: a whole-cell decode). EG first finds, per lost unit, the least
 * time any of its options takes alone, then walks the options again and keeps, per lost unit,
 * an option of that least time that lowers the whole solution's time (the paper's two passes).
 * {@link #exhaustive} tries every combination, for small codes.
 */
public final class CostAwareReads {

  /** The read sets of a code: what rebuilding one lost unit from some units reads. */
  public interface ReadSets {
    /** Sub-chunks per cell. */
    int subchunks();

    /** Units of the code (n). */
    int units();

    /** Data units (k). */
    int dataUnits();

    /**
     * The sub-chunks each unit is read for when {@code lost} is rebuilt from {@code available}
     * in the code's cheapest way, as bit words ({@link BitSet#toLongArray}; null for units not
     * read), or null when it cannot be. Callers do not change them.
     */
    long[][] reads(int lost, int[] available);
  }

  /**
   * One way to rebuild a lost unit: the sub-chunks read from each unit, as bit words (null:
   * none), and how many per unit.
   */
  public record Option(int lost, long[][] reads, int[] counts) {
    Option(int lost, long[][] reads) {
      this(lost, reads, counts(reads));
    }

    private static int[] counts(long[][] reads) {
      int[] c = new int[reads.length];
      for (int u = 0; u < reads.length; u++) {
        if (reads[u] != null) {
          for (long w : reads[u]) {
            c[u] += Long.bitCount(w);
          }
        }
      }
      return c;
    }

    public int[] helpers() {
      List<Integer> h = new ArrayList<>();
      for (int u = 0; u < reads.length; u++) {
        if (counts[u] > 0) {
          h.add(u);
        }
      }
      return h.stream().mapToInt(Integer::intValue).toArray();
    }
  }

  /** A solution: an option per lost unit (in the request's order) and its parallel read time. */
  public record Solution(List<Option> options, double time) {}

  private final ReadSets code;
  private final double[] cost;
  private final int[] healthy;
  private final int[] lost;
  private final List<List<Option>> optionsOf;
  private final double subchunkBytes;
  private final double receiverCost;

  /** FastDR's model: the helpers' links only. */
  public CostAwareReads(ReadSets code, double[] cost, int[] healthy, int[] lost, int[] survivors, int d, int cellBytes) {
    this(code, cost, healthy, lost, survivors, d, cellBytes, 0);
  }

  /**
   * @param cost per unit, the cost of reading a byte from its node (surviving units only)
   * @param healthy requested units that are read directly
   * @param lost requested units that must be rebuilt
   * @param survivors every unit that can be read
   * @param d how many of the cheapest survivors to consider (FastDR's d; at least k)
   * @param cellBytes bytes of a cell, so times come out in cost x bytes
   * @param receiverCost the cost of a byte into the reader (1 = a typical node's link; 0 = not counted)
   */
  public CostAwareReads(ReadSets code, double[] cost, int[] healthy, int[] lost, int[] survivors, int d, int cellBytes,
                        double receiverCost) {
    if (lost.length == 0) {
      throw new IllegalArgumentException("a degraded read rebuilds at least one unit");
    }
    this.code = code;
    this.cost = cost.clone();
    this.healthy = healthy.clone();
    this.lost = lost.clone();
    this.subchunkBytes = (double) cellBytes / code.subchunks();
    this.receiverCost = receiverCost;
    int[] cheapest = cheapest(survivors, cost, Math.max(code.dataUnits(), Math.min(d, survivors.length)));
    this.optionsOf = new ArrayList<>();
    for (int u : lost) {
      optionsOf.add(options(u, cheapest, survivors));
    }
  }

  /** FastDR's BOTTLENECKNODES: the d survivors of least cost (ties by unit). */
  static int[] cheapest(int[] survivors, double[] cost, int d) {
    return Arrays.stream(survivors).boxed()
        .sorted((a, b) -> cost[a] != cost[b] ? Double.compare(cost[a], cost[b]) : Integer.compare(a, b))
        .limit(d).mapToInt(Integer::intValue).sorted().toArray();
  }

  /**
   * The options of a lost unit over a pool of units do not depend on costs: kept per code, lost
   * unit and pool, so a search on later reads only looks them up.
   */
  private static final Map<ReadSets, Map<Long, List<Option>>> OPTIONS =
      java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

  private List<Option> options(int u, int[] pool, int[] survivors) {
    long key = u;
    for (int p : pool) {
      key |= 1L << (8 + p);
    }
    for (int p : survivors) {
      key |= 1L << (24 + p);
    }
    Map<Long, List<Option>> ofCode = OPTIONS.computeIfAbsent(code, c -> new ConcurrentHashMap<>());
    List<Option> cached = ofCode.get(key);
    if (cached == null) {
      cached = enumerate(u, pool, survivors);
      ofCode.put(key, cached);
    }
    return cached;
  }

  /**
   * The code's choice over every survivor (its least-bandwidth repair, e.g. Clay's sub-chunk
   * repair, which needs them all), over D, then its repair from every k-subset of D
   * (lexicographic, as FastDR's NEXTBITMAP).
   */
  private List<Option> enumerate(int u, int[] pool, int[] survivors) {
    List<Option> out = new ArrayList<>();
    long[][] everyone = code.reads(u, survivors);
    if (everyone != null) {
      out.add(new Option(u, everyone));
    }
    long[][] all = pool.length == survivors.length ? null : code.reads(u, pool);
    if (all != null) {
      out.add(new Option(u, all));
    }
    int k = code.dataUnits();
    if (pool.length > k) {
      int[] pick = new int[k];
      for (int i = 0; i < k; i++) {
        pick[i] = i;
      }
      do {
        int[] subset = new int[k];
        for (int i = 0; i < k; i++) {
          subset[i] = pool[pick[i]];
        }
        long[][] r = code.reads(u, subset);
        if (r != null) {
          out.add(new Option(u, r));
        }
      } while (nextCombination(pick, pool.length));
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException("unit " + u + " cannot be rebuilt from units " + Arrays.toString(pool));
    }
    return List.copyOf(out);
  }

  private static boolean nextCombination(int[] pick, int n) {
    int k = pick.length;
    int i = k - 1;
    while (i >= 0 && pick[i] == n - k + i) {
      i--;
    }
    if (i < 0) {
      return false;
    }
    pick[i]++;
    for (int j = i + 1; j < k; j++) {
      pick[j] = pick[j - 1] + 1;
    }
    return true;
  }

  /** Options considered per lost unit (the search space is their product). */
  public int[] optionCounts() {
    return optionsOf.stream().mapToInt(List::size).toArray();
  }

  /** The parallel read time of {@code chosen} (one option per lost unit) with the healthy reads. */
  public double time(List<Option> chosen) {
    return readTime(code, cost, healthy, chosen, subchunkBytes, receiverCost);
  }

  private static double readTime(ReadSets code, double[] cost, int[] healthy, List<Option> chosen,
                                 double subchunkBytes, double receiverCost) {
    int words = (code.subchunks() + 63) / 64;
    long[] union = new long[words];
    boolean[] healthyUnit = new boolean[code.units()];
    for (int h : healthy) {
      healthyUnit[h] = true;
    }
    double t = 0;
    long received = 0;
    for (int u = 0; u < code.units(); u++) {
      int bits;
      if (healthyUnit[u]) {
        bits = code.subchunks(); // read whole: it is part of the request
      } else if (chosen.size() == 1) {
        bits = chosen.get(0).counts()[u];
      } else {
        java.util.Arrays.fill(union, 0);
        boolean read = false;
        for (Option o : chosen) {
          long[] r = o.reads()[u];
          if (r != null) {
            read = true;
            for (int w = 0; w < r.length; w++) {
              union[w] |= r[w];
            }
          }
        }
        if (!read) {
          continue;
        }
        bits = 0;
        for (long w : union) {
          bits += Long.bitCount(w);
        }
      }
      t = Math.max(t, cost[u] * bits * subchunkBytes);
      received += bits;
    }
    return Math.max(t, receiverCost * received * subchunkBytes);
  }

  /** The enumerated greedy search. */
  public Solution enumeratedGreedy() {
    int l = lost.length;
    // Pass 1: per lost unit, the least time any of its options takes alone.
    double[][] alone = new double[l][];
    double[] least = new double[l];
    for (int i = 0; i < l; i++) {
      List<Option> opts = optionsOf.get(i);
      alone[i] = new double[opts.size()];
      least[i] = Double.MAX_VALUE;
      for (int j = 0; j < opts.size(); j++) {
        alone[i][j] = time(List.of(opts.get(j)));
        least[i] = Math.min(least[i], alone[i][j]);
      }
    }
    // Pass 2: among those least-time options, keep one only where it lowers the whole time.
    Option[] chosen = new Option[l];
    double current = 0; // the time of what is chosen so far
    for (int i = 0; i < l; i++) {
      List<Option> opts = optionsOf.get(i);
      for (int j = 0; j < opts.size(); j++) {
        if (alone[i][j] > least[i] + 1e-9) {
          continue;
        }
        if (chosen[i] == null) {
          chosen[i] = opts.get(j);
          current = time(present(chosen));
          continue;
        }
        Option kept = chosen[i];
        chosen[i] = opts.get(j);
        double t = time(present(chosen));
        if (t < current - 1e-9) {
          current = t;
        } else {
          chosen[i] = kept;
        }
      }
    }
    List<Option> solution = List.of(chosen);
    return new Solution(solution, time(solution));
  }

  private static List<Option> present(Option[] chosen) {
    List<Option> p = new ArrayList<>();
    for (Option o : chosen) {
      if (o != null) {
        p.add(o);
      }
    }
    return p;
  }

  /** Every combination of options: the optimum, for small codes. */
  public Solution exhaustive() {
    int l = lost.length;
    int[] at = new int[l];
    Option[] current = new Option[l];
    Solution best = null;
    while (true) {
      for (int i = 0; i < l; i++) {
        current[i] = optionsOf.get(i).get(at[i]);
      }
      List<Option> c = List.of(current.clone());
      double t = time(c);
      if (best == null || t < best.time() - 1e-9) {
        best = new Solution(c, t);
      }
      int i = 0;
      while (i < l && ++at[i] == optionsOf.get(i).size()) {
        at[i] = 0;
        i++;
      }
      if (i == l) {
        return best;
      }
    }
  }

  /** The code's own choice, blind to cost: its cheapest repair of each lost unit from every survivor. */
  public static Solution basic(ReadSets code, double[] cost, int[] healthy, int[] lost, int[] survivors, int cellBytes) {
    return basic(code, cost, healthy, lost, survivors, cellBytes, 0);
  }

  /** {@link #basic(ReadSets, double[], int[], int[], int[], int)} with the reader's downlink counted. */
  public static Solution basic(ReadSets code, double[] cost, int[] healthy, int[] lost, int[] survivors, int cellBytes,
                               double receiverCost) {
    List<Option> chosen = new ArrayList<>();
    for (int u : lost) {
      long[][] r = code.reads(u, survivors);
      if (r == null) {
        throw new IllegalArgumentException("unit " + u + " cannot be rebuilt from units " + Arrays.toString(survivors));
      }
      chosen.add(new Option(u, r));
    }
    return new Solution(chosen, readTime(code, cost, healthy, chosen, (double) cellBytes / code.subchunks(),
        receiverCost));
  }
}
