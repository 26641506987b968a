package io.ecrepair.bench.cluster;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Bytes received and sent by every node's interface ({@code /sys/class/net/eth0/statistics}
 * inside its namespace), as {@code cluster.sh counters} prints them: one "name rx tx" a line,
 * with a fourth field on priority links: the bytes the node sent marked Lower Effort.
 */
public final class NodeCounters {
  /**
   * One node's counters (or the difference of two readings); {@code lowerEffortTx} is -1 where
   * the links do not tell Lower Effort traffic apart.
   */
  public record Bytes(long rx, long tx, long lowerEffortTx) {
    public Bytes(long rx, long tx) {
      this(rx, tx, -1);
    }
  }

  private final Map<String, Bytes> nodes;

  private NodeCounters(Map<String, Bytes> nodes) {
    this.nodes = Collections.unmodifiableMap(nodes);
  }

  public static NodeCounters parse(String text) {
    Map<String, Bytes> m = new LinkedHashMap<>();
    for (String line : text.split("\n")) {
      String t = line.strip();
      if (t.isEmpty()) {
        continue;
      }
      String[] f = t.split("\\s+");
      if (f.length != 3 && f.length != 4) {
        throw new IllegalArgumentException("not a counters line (name rx tx [lower-effort-tx]): '" + t + "'");
      }
      try {
        m.put(f[0], new Bytes(Long.parseLong(f[1]), Long.parseLong(f[2]), f.length == 4 ? Long.parseLong(f[3]) : -1));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("not a counters line (name rx tx [lower-effort-tx]): '" + t + "'", e);
      }
    }
    return new NodeCounters(m);
  }

  /** What each node received and sent since {@code before} (nodes present in both). */
  public NodeCounters since(NodeCounters before) {
    Map<String, Bytes> m = new LinkedHashMap<>();
    nodes.forEach((name, now) -> {
      Bytes then = before.nodes.get(name);
      if (then != null) {
        m.put(name, new Bytes(now.rx() - then.rx(), now.tx() - then.tx(),
            lowerEffortSince(now.lowerEffortTx(), then.lowerEffortTx())));
      }
    });
    return new NodeCounters(m);
  }

  /** -1 (unknown) when either reading lacks it or the counter went back (a link reshaped in between). */
  private static long lowerEffortSince(long now, long then) {
    return now < 0 || then < 0 || now < then ? -1 : now - then;
  }

  public Map<String, Bytes> nodes() {
    return nodes;
  }

  public Bytes get(String node) {
    Bytes b = nodes.get(node);
    if (b == null) {
      throw new IllegalArgumentException("no counters for node " + node);
    }
    return b;
  }

  /**
   * Bytes that crossed racks: what left every rack through its uplink (the router's legs,
   * named rack1, rack2, ...); 0 on a flat network.
   */
  public long crossRackBytes() {
    return nodes.entrySet().stream().filter(e -> isRackLeg(e.getKey())).mapToLong(e -> e.getValue().rx()).sum();
  }

  /** The nodes' own counters, without the router's rack legs. */
  public NodeCounters withoutRackLegs() {
    Map<String, Bytes> m = new LinkedHashMap<>(nodes);
    m.keySet().removeIf(NodeCounters::isRackLeg);
    return new NodeCounters(m);
  }

  private static boolean isRackLeg(String name) {
    return name.matches("rack[0-9]+");
  }

  /**
   * The share of what the DataNodes sent that left marked Lower Effort; NaN where the links do
   * not tell it apart (or nothing was sent).
   */
  public static double lowerEffortShare(Map<String, Bytes> nodes) {
    long tx = 0;
    long lowerEffort = 0;
    for (Map.Entry<String, Bytes> e : nodes.entrySet()) {
      if (e.getKey().startsWith("dn")) {
        if (e.getValue().lowerEffortTx() < 0) {
          return Double.NaN;
        }
        tx += e.getValue().tx();
        lowerEffort += e.getValue().lowerEffortTx();
      }
    }
    return tx == 0 ? Double.NaN : (double) lowerEffort / tx;
  }

  /** Sum over the DataNodes (names dn0, dn1, ...). */
  public Bytes dataNodeTotal() {
    long rx = 0;
    long tx = 0;
    for (Map.Entry<String, Bytes> e : nodes.entrySet()) {
      if (e.getKey().startsWith("dn")) {
        rx += e.getValue().rx();
        tx += e.getValue().tx();
      }
    }
    return new Bytes(rx, tx);
  }
}
