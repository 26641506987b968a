package io.ecrepair.bench.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The shape of a benchmark cluster, as {@code dev-support/cluster/cluster.sh up} takes it.
 *
 * @param rateMbit     every DataNode's uplink and downlink (tbf on both veth ends)
 * @param clientRateMbit the client namespace's link (degraded reads run there)
 * @param racks        0 = one flat bridge; else DataNodes round-robin over racks behind a router
 * @param rackRateMbit each rack gateway's rate
 * @param slowNodes    indices of the DataNodes whose links run at {@code slowRateMbit} instead
 * @param diskMiB      0 = DataNodes keep their data on this machine's disk; else each on a file
 *                     system of its own this big (a file mounted as a loop device), which a
 *                     fault can fill
 * @param dist         the distribution whose Hadoop and plugin the JVMs run (one per Hadoop
 *                     line); null = the script's default, the 3.3 build next to it
 * @param priorityLinks every shaped link sends packets marked Lower Effort (DSCP 1, what the
 *                     DataNodes mark repair traffic with) only when no other packet waits, as a
 *                     network with QoS does; false = one queue in arrival order
 */
public record ClusterOptions(int dataNodes, int racks, int rateMbit, int rackRateMbit, int clientRateMbit,
                             long blockSize, String heap, Map<String, String> dataNodeConf, List<Integer> slowNodes,
                             int slowRateMbit, int diskMiB, Path dist, boolean priorityLinks) {
  /** The cluster with one queue per link. */
  public ClusterOptions(int dataNodes, int racks, int rateMbit, int rackRateMbit, int clientRateMbit,
                        long blockSize, String heap, Map<String, String> dataNodeConf, List<Integer> slowNodes,
                        int slowRateMbit, int diskMiB, Path dist) {
    this(dataNodes, racks, rateMbit, rackRateMbit, clientRateMbit, blockSize, heap, dataNodeConf, slowNodes,
        slowRateMbit, diskMiB, dist, false);
  }

  /** The cluster on the script's default distribution. */
  public ClusterOptions(int dataNodes, int racks, int rateMbit, int rackRateMbit, int clientRateMbit, long blockSize,
                        String heap, Map<String, String> dataNodeConf, List<Integer> slowNodes, int slowRateMbit,
                        int diskMiB) {
    this(dataNodes, racks, rateMbit, rackRateMbit, clientRateMbit, blockSize, heap, dataNodeConf, slowNodes,
        slowRateMbit, diskMiB, null);
  }

  /** The cluster on this machine's disk. */
  public ClusterOptions(int dataNodes, int racks, int rateMbit, int rackRateMbit, int clientRateMbit, long blockSize,
                        String heap, Map<String, String> dataNodeConf, List<Integer> slowNodes, int slowRateMbit) {
    this(dataNodes, racks, rateMbit, rackRateMbit, clientRateMbit, blockSize, heap, dataNodeConf, slowNodes,
        slowRateMbit, 0);
  }

  /** The cluster without slow DataNodes. */
  public ClusterOptions(int dataNodes, int racks, int rateMbit, int rackRateMbit, int clientRateMbit, long blockSize,
                        String heap, Map<String, String> dataNodeConf) {
    this(dataNodes, racks, rateMbit, rackRateMbit, clientRateMbit, blockSize, heap, dataNodeConf, List.of(), rateMbit);
  }

  public ClusterOptions {
    if (dataNodes < 1 || dataNodes > 200) {
      throw new IllegalArgumentException("--datanodes must be between 1 and 200");
    }
    if (racks < 0 || racks > 50) {
      throw new IllegalArgumentException("--racks must be between 0 and 50");
    }
    if (rateMbit < 1 || rackRateMbit < 1 || clientRateMbit < 1) {
      throw new IllegalArgumentException("link rates must be at least 1 Mbit/s");
    }
    dataNodeConf = Map.copyOf(dataNodeConf);
    slowNodes = List.copyOf(slowNodes);
    if (slowNodes.stream().anyMatch(i -> i < 0 || i >= dataNodes) || slowNodes.size() >= dataNodes) {
      throw new IllegalArgumentException("--slow-nodes must be fewer than the DataNodes");
    }
    if (slowRateMbit < 1) {
      throw new IllegalArgumentException("--slow-rate must be at least 1 Mbit/s");
    }
    if (diskMiB != 0 && (diskMiB < 256 || diskMiB > 1 << 20)) {
      throw new IllegalArgumentException("a DataNode's disk must be 0 (this machine's) or 256 MiB to 1 TiB");
    }
  }

  /** The same cluster running the distribution in {@code dir}. */
  public ClusterOptions withDist(Path dir) {
    return new ClusterOptions(dataNodes, racks, rateMbit, rackRateMbit, clientRateMbit, blockSize, heap, dataNodeConf,
        slowNodes, slowRateMbit, diskMiB, dir, priorityLinks);
  }

  /** The same cluster with links that send Lower Effort packets last ({@code on}) or in arrival order. */
  public ClusterOptions withPriorityLinks(boolean on) {
    return new ClusterOptions(dataNodes, racks, rateMbit, rackRateMbit, clientRateMbit, blockSize, heap, dataNodeConf,
        slowNodes, slowRateMbit, diskMiB, dist, on);
  }

  /** The Hadoop version of {@link #dist()}, from its HDFS jar's name; null when unknown. */
  public String hadoopVersion() {
    if (dist == null) {
      return null;
    }
    try (Stream<Path> jars = Files.list(dist.resolve("lib").resolve("hadoop"))) {
      return jars.map(j -> HDFS_JAR.matcher(j.getFileName().toString())).filter(Matcher::matches)
          .map(m -> m.group(1)).findFirst().orElse(null);
    } catch (IOException e) {
      return null;
    }
  }

  private static final Pattern HDFS_JAR = Pattern.compile(
      "hadoop-hdfs-(\\d+\\.\\d+\\.\\d+)\\.jar");

  /**
   * {@code count} DataNodes spread evenly over the indices (0, 2, 5, 8, 11, 14 of 17 for 6), so
   * that a run with the same options slows the same ones.
   */
  public static List<Integer> spread(int count, int dataNodes) {
    List<Integer> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      out.add((int) ((long) i * dataNodes / count));
    }
    return out;
  }

  /** Arguments after {@code up --state DIR}. */
  public List<String> upArguments() {
    List<String> a = new ArrayList<>(List.of("--datanodes", Integer.toString(dataNodes), "--racks",
        Integer.toString(racks), "--rate", Integer.toString(rateMbit), "--rack-rate", Integer.toString(rackRateMbit),
        "--client-rate", Integer.toString(clientRateMbit), "--block-size", Long.toString(blockSize), "--heap", heap));
    if (!slowNodes.isEmpty()) {
      a.addAll(List.of("--slow", String.join(",", slowNodes.stream().map(String::valueOf).toList()), "--slow-rate",
          Integer.toString(slowRateMbit)));
    }
    if (diskMiB > 0) {
      a.addAll(List.of("--disk", Integer.toString(diskMiB)));
    }
    if (dist != null) {
      a.addAll(List.of("--dist", dist.toAbsolutePath().toString()));
    }
    if (priorityLinks) {
      a.add("--priority-links");
    }
    a.addAll(confArguments(dataNodeConf));
    return a;
  }

  static List<String> confArguments(Map<String, String> conf) {
    List<String> a = new ArrayList<>();
    conf.forEach((k, v) -> {
      a.add("--dn-conf");
      a.add(k + "=" + v);
    });
    return a;
  }
}
