package io.ecrepair.hdfs;

import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Costs an operator gives DataNodes or racks that are slower to read from (old disks, a thin
 * uplink): {@value CostKeys#COSTS_KEY} = {@code name=factor,...}, where a name is a DataNode's host name, IP
 * address or transfer address ({@code ip:port}), or a rack ({@code /rack2}), and the factor
 * multiplies the cost of a byte from there (1 = as any other; a DataNode in a listed rack that
 * is also listed itself gets both). Clients (degraded reads) and DataNodes (reconstruction)
 * read the same setting and avoid costly helpers when the code lets them. A malformed entry is
 * skipped with a warning rather than failing reads.
 */
public final class StaticCosts {
  private static final Logger LOG = LoggerFactory.getLogger(StaticCosts.class);

  private final Map<String, Double> factors;

  private StaticCosts(Map<String, Double> factors) {
    this.factors = factors;
  }

  public static StaticCosts from(Configuration conf) {
    return parse(conf.getTrimmed(CostKeys.COSTS_KEY, CostKeys.COSTS_DEFAULT));
  }

  public static StaticCosts parse(String value) {
    Map<String, Double> f = new HashMap<>();
    for (String entry : value.split(",")) {
      String e = entry.trim();
      if (e.isEmpty()) {
        continue;
      }
      int eq = e.lastIndexOf('=');
      try {
        double factor = Double.parseDouble(e.substring(eq + 1).trim());
        if (eq <= 0 || !(factor > 0) || Double.isInfinite(factor)) {
          throw new NumberFormatException("a positive factor");
        }
        f.put(e.substring(0, eq).trim(), factor);
      } catch (RuntimeException bad) {
        LOG.warn("ec-repair: ignoring '{}' in {}: expected name=factor with a positive factor", e, CostKeys.COSTS_KEY);
      }
    }
    return new StaticCosts(Map.copyOf(f));
  }

  /** Whether any entry was given. */
  public boolean any() {
    return !factors.isEmpty();
  }

  /** The factor of a byte from {@code node}: its host's (by name, IP or transfer address) times its rack's. */
  public double of(DatanodeInfo node) {
    if (factors.isEmpty()) {
      return 1;
    }
    double host = 1;
    for (String name : new String[] {node.getXferAddr(), node.getIpAddr(), node.getHostName()}) {
      Double f = factors.get(name);
      if (f != null) {
        host = f;
        break;
      }
    }
    return host * factors.getOrDefault(node.getNetworkLocation(), 1.0);
  }
}
