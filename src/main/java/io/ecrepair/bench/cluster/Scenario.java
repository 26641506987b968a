package io.ecrepair.bench.cluster;

import io.ecrepair.layout.Policy;
import java.util.ArrayList;
import java.util.List;

/**
 * One benchmark scenario: a policy, for RS whether the DataNodes run with
 * {@code ecrepair.datanode.rebuild.rs=true} (our plugin rebuilds RS too), for Clay and
 * Butterfly whether they run with {@code ecrepair.datanode.parallel=false} (the central
 * sub-chunk repair instead of the parallel plans), and whether the cost model is on (for a
 * cluster with slow DataNodes: the DataNodes get the operator's costs of the slow ones, and
 * the degraded-read client measures costs; without it neither), and for LRC whether its files
 * are placed as HDFS places them instead of with combined locality (on a cluster with racks).
 * Written {@code POLICY}, {@code POLICY+plugin} (RS), {@code POLICY+central} (Clay, Butterfly)
 * or {@code POLICY+hdfs-placement} (LRC), with {@code +costs} after, e.g.
 * {@code CLAY-10-4-4096k+central}, {@code RS-10-4-1024k+plugin+costs}; then {@code +adaptive}
 * runs the DataNodes with the adaptive repair budget, and last {@code +no-nice} with repair at the
 * DataNodes' own CPU priority ({@code ecrepair.datanode.repair.nice=0}).
 */
public record Scenario(String policy, boolean pluginRebuildsRs, boolean central, boolean costs,
                       boolean hdfsPlacement, boolean adaptive, boolean noNice) {
  /**
   * Where {@code +hdfs-placement} scenarios write: the benchmark cluster's NameNode places LRC
   * files under it as HDFS does ({@code ecrepair.namenode.combined-locality.skip-paths}).
   */
  public static final String HDFS_PLACEMENT_ROOT = "/bench-hdfs-placement/";
  private static final String HDFS_PLACEMENT = "+hdfs-placement";
  public static final String REBUILD_RS_KEY = io.ecrepair.hdfs.task.DataNodeKeys.REBUILD_RS_KEY;
  public static final String PARALLEL_KEY = io.ecrepair.hdfs.task.DataNodeKeys.PARALLEL_KEY;
  public static final String ADAPTIVE_KEY = io.ecrepair.hdfs.task.DataNodeKeys.REPAIR_ADAPTIVE_KEY;
  private static final String ADAPTIVE = "+adaptive";
  public static final String NICE_KEY = io.ecrepair.hdfs.task.DataNodeKeys.REPAIR_NICE_KEY;
  private static final String NO_NICE = "+no-nice";

  /**
   * CLAY-10-4 with 4 MiB cells, the top of the 1-4 MiB docs/architecture.md#cell-layout recommends: HDFS's block reads
   * serve one range per request, and its 16 KiB sub-chunks need a quarter of the requests of
   * 1 MiB cells (4 KiB sub-chunks), whose repair on this 2-core machine is bound by them.
   */
  public static final String DEFAULTS =
      "RS-10-4-1024k,RS-10-4-1024k+plugin,CLAY-10-4-4096k+central,CLAY-10-4-4096k,BUTTERFLY-10-2-4096k+central,"
          + "BUTTERFLY-10-2-4096k,LRC-L2-12-4-1024k";
  /**
   * With racks: stock RS-10-4, and LRC(12,2,2) placed as HDFS places it and with combined
   * locality (both repaired by the plugin's rack-local chains).
   */
  public static final String RACK_DEFAULTS = "RS-10-4-1024k,LRC-L2-12-4-1024k+hdfs-placement,LRC-L2-12-4-1024k";
  /** With slow DataNodes: each of RS-10-4 through the plugin and CLAY-10-4, without and with the cost model. */
  public static final String SLOW_DEFAULTS =
      "RS-10-4-1024k+plugin,RS-10-4-1024k+plugin+costs,CLAY-10-4-4096k,CLAY-10-4-4096k+costs";

  public Scenario {
    Policy.parse(policy);
  }

  public static Scenario parse(String text) {
    String t = text.strip();
    boolean noNice = t.endsWith(NO_NICE);
    if (noNice) {
      t = t.substring(0, t.length() - NO_NICE.length());
    }
    boolean adaptive = t.endsWith(ADAPTIVE);
    if (adaptive) {
      t = t.substring(0, t.length() - ADAPTIVE.length());
    }
    boolean costs = t.endsWith("+costs");
    if (costs) {
      t = t.substring(0, t.length() - "+costs".length());
    }
    boolean hdfsPlacement = t.endsWith(HDFS_PLACEMENT);
    if (hdfsPlacement) {
      t = t.substring(0, t.length() - HDFS_PLACEMENT.length());
    }
    boolean plugin = t.endsWith("+plugin");
    boolean central = t.endsWith("+central");
    String policy = plugin ? t.substring(0, t.length() - "+plugin".length())
        : central ? t.substring(0, t.length() - "+central".length()) : t;
    Scenario s = new Scenario(policy, plugin, central, costs, hdfsPlacement, adaptive, noNice);
    if (hdfsPlacement && !s.codec().startsWith(io.ecrepair.codes.lrc.LrcCode.CODEC_PREFIX)) {
      throw new IllegalArgumentException("'" + HDFS_PLACEMENT + "' is for LRC policies (every other policy is placed "
          + "as HDFS places it anyway), not " + policy);
    }
    if (plugin && !s.isRs()) {
      throw new IllegalArgumentException("'+plugin' is for RS policies (our plugin always rebuilds " + policy + ")");
    }
    if (central && !s.isVector()) {
      throw new IllegalArgumentException("'+central' is for Clay and Butterfly policies (the others have no parallel "
          + "plans), not " + policy);
    }
    if (adaptive && s.isStockRs()) {
      throw new IllegalArgumentException("'" + ADAPTIVE + "' needs our plugin for RS (" + policy + "+plugin"
          + ADAPTIVE + "): HDFS's own reconstruction does not take its bytes from our budget");
    }
    if (noNice && s.isStockRs()) {
      throw new IllegalArgumentException("'" + NO_NICE + "' needs our plugin for RS (" + policy + "+plugin" + NO_NICE
          + "): HDFS's own reconstruction always runs at the DataNode's priority");
    }
    if (costs && s.isStockRs()) {
      throw new IllegalArgumentException("'+costs' needs our plugin for RS (" + policy + "+plugin+costs): HDFS's own "
          + "reconstruction has no cost model");
    }
    return s;
  }

  /** Clay or Butterfly: codes with sub-chunks, repaired centrally or by parallel plans. */
  public boolean isVector() {
    return Policy.parse(policy).code().subPacketization() > 1;
  }

  /**
   * How the scenario's blocks are rebuilt: {@code stock} (HDFS's own repair), {@code pipeline}
   * (chains of the agents: LRC, RS through the plugin), {@code central} (the rebuilding DataNode
   * reads every helper's sub-chunks), {@code pararc} (the code's parallel plans across the agents).
   */
  public String strategy() {
    if (isStockRs()) {
      return "stock";
    }
    if (!isVector()) {
      return "pipeline";
    }
    return central ? "central" : "pararc";
  }

  /** The DataNode settings the scenario runs with (without {@code +no-nice}, the nice is the run's). */
  public java.util.Map<String, String> dataNodeConf() {
    java.util.Map<String, String> conf = new java.util.HashMap<>(java.util.Map.of(REBUILD_RS_KEY,
        Boolean.toString(pluginRebuildsRs), PARALLEL_KEY, Boolean.toString(!central), ADAPTIVE_KEY,
        Boolean.toString(adaptive)));
    if (noNice) {
      conf.put(NICE_KEY, "0");
    }
    return java.util.Map.copyOf(conf);
  }

  public static List<Scenario> parseList(String text) {
    List<Scenario> out = new ArrayList<>();
    for (String s : text.split(",")) {
      if (!s.isBlank()) {
        Scenario x = parse(s);
        if (out.contains(x)) {
          throw new IllegalArgumentException("scenario " + x.name() + " given twice");
        }
        out.add(x);
      }
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException("no scenarios given");
    }
    return out;
  }

  public boolean isRs() {
    return Policy.parse(policy).code().codec().equals("rs");
  }

  /** The RS baseline: HDFS's own client and reconstruction. */
  public boolean isStockRs() {
    return isRs() && !pluginRebuildsRs;
  }

  public String codec() {
    return Policy.parse(policy).code().codec();
  }

  public String name() {
    return policy + (pluginRebuildsRs ? "+plugin" : "") + (central ? "+central" : "")
        + (hdfsPlacement ? HDFS_PLACEMENT : "") + (costs ? "+costs" : "") + (adaptive ? ADAPTIVE : "")
        + (noNice ? NO_NICE : "");
  }

  /**
   * The placement asked for: {@code combined-locality} for LRC (the NameNode falls back to
   * HDFS's own where racks are too few, which the benchmark checks), else {@code hdfs}.
   */
  public String placement() {
    return codec().startsWith(io.ecrepair.codes.lrc.LrcCode.CODEC_PREFIX) && !hdfsPlacement ? "combined-locality"
        : "hdfs";
  }

  /** The directory a run named {@code runName} (a scenario's name, maybe with a suffix) writes to. */
  public static String benchDir(String runName) {
    return (runName.contains(HDFS_PLACEMENT) ? HDFS_PLACEMENT_ROOT : "/bench/") + pathName(runName);
  }

  /** A scenario name made safe for an HDFS path. */
  public static String pathName(String name) {
    return name.replace('+', '_');
  }
}
