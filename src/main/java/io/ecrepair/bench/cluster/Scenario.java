package io.ecrepair.bench.cluster;

import io.ecrepair.layout.Policy;
import java.util.ArrayList;
import java.util.List;

/**
 * One benchmark scenario: a policy, and for RS whether the DataNodes run with
 * {@code ecrepair.datanode.rebuild.rs=true} (our plugin rebuilds RS too). Written
 * {@code POLICY} or {@code POLICY+plugin}, e.g. {@code RS-10-4-1024k+plugin}.
 */
public record Scenario(String policy, boolean pluginRebuildsRs) {
  public static final String REBUILD_RS_KEY = "ecrepair.datanode.rebuild.rs";

  public static final String DEFAULTS =
      "RS-10-4-1024k,RS-10-4-1024k+plugin,CLAY-10-4-1024k,BUTTERFLY-10-2-4096k,LRC-L2-12-4-1024k";

  public Scenario {
    Policy.parse(policy);
  }

  public static Scenario parse(String text) {
    String t = text.strip();
    boolean plugin = t.endsWith("+plugin");
    String policy = plugin ? t.substring(0, t.length() - "+plugin".length()) : t;
    Scenario s = new Scenario(policy, plugin);
    if (plugin && !s.isRs()) {
      throw new IllegalArgumentException("'+plugin' is for RS policies (our plugin always rebuilds " + policy + ")");
    }
    return s;
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
    return policy + (pluginRebuildsRs ? "+plugin" : "");
  }

  /** A scenario name made safe for an HDFS path. */
  public static String pathName(String name) {
    return name.replace('+', '_');
  }
}
