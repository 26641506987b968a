package io.ecrepair.harness;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.hdfs.client.DegradedReadStats;
import io.ecrepair.layout.StripedLayout;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.client.HdfsDataInputStream;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;

/**
 * Reads every cell of some internal data blocks of a file (as a reader of those byte ranges
 * would: one positional read per cell) through a client with hadoop-ec-repair's FileSystem or
 * HDFS's own, and says what it cost: the bytes received (HDFS's read statistics, which count
 * the stock path and ours, or the interface counter of the benchmark cluster's client
 * namespace), the bytes returned, the time, whether every byte is right, and how many cells the
 * degraded path rebuilt. Run once while the block is readable and once while it is lost, it
 * gives the healthy vs degraded figures of {@code ec-repair demo}, {@code bench degraded-read}
 * and (through {@link #main}, in the client namespace) {@code bench cluster}.
 */
public final class DegradedReadProbe {
  /** hadoop-ec-repair's client FileSystem. */
  public static final String ECREPAIR_FS = "io.ecrepair.hdfs.client.EcRepairDistributedFileSystem";

  /**
   * One pass over the cells.
   *
   * @param stream our client's degraded-read figures of the stream ({@link DegradedReadStats}:
   *     cells rebuilt, reads the helpers' repair agents served and their bytes, fallbacks);
   *     all zero for HDFS's own stream
   */
  public record Result(long bytesFetched, long bytesReturned, double seconds, boolean equal, PathFigures stream,
                       double cpuSeconds) {
    public Result(long bytesFetched, long bytesReturned, double seconds, boolean equal, PathFigures stream) {
      this(bytesFetched, bytesReturned, seconds, equal, stream, Double.NaN);
    }

    public double fetchedPerReturned() {
      return bytesReturned == 0 ? 0 : (double) bytesFetched / bytesReturned;
    }

    public double mbPerSec() {
      return seconds <= 0 ? 0 : bytesReturned / seconds / 1e6;
    }
  }

  /**
   * What our client's stream did on the degraded path.
   *
   * @param ours our client's degraded path served the stream (false: HDFS's own stream)
   * @param cellsRebuilt lost cells our client rebuilt (itself or through the agents)
   * @param agentReads reads whose lost cells the helpers' repair agents rebuilt for the client
   * @param bytesFromAgents bytes those reads received from the agents
   * @param agentFallbacks reads that asked the agents and fetched the read set instead
   */
  public record PathFigures(boolean ours, long cellsRebuilt, long agentReads, long bytesFromAgents,
                            long agentFallbacks) {
    static PathFigures of(DegradedReadStats s) {
      return s == null ? new PathFigures(false, 0, 0, 0, 0)
          : new PathFigures(true, s.cellsRebuilt(), s.agentReads(), s.bytesFromAgents(), s.agentFallbacks());
    }

    /** As {@link DegradedReadProbe#strategy}: {@code stock}, {@code fetch}, {@code pararc} or {@code pipeline}. */
    public String strategy(ErasureCodingPolicy policy) {
      return DegradedReadProbe.strategy(!ours, policy, agentReads);
    }
  }

  /**
   * How a degraded read was served: HDFS's decoder ({@code stock}), the helpers' repair agents
   * with the client as the requestor ({@code pararc} for codes with sub-chunks, {@code pipeline}
   * for the chains of RS and LRC), or our client fetching the code's read set itself ({@code fetch}).
   */
  public static String strategy(boolean stockClient, ErasureCodingPolicy policy, long agentReads) {
    if (stockClient) {
      return "stock";
    }
    if (agentReads == 0) {
      return "fetch";
    }
    return RepairCatalog.spec(policy).subPacketization() > 1 ? "pararc" : "pipeline";
  }

  /** The bytes the file should hold. */
  public interface Expected {
    boolean matches(long filePosition, byte[] buf, int off, int len);
  }

  /** What happens between opening the stream and reading (e.g. a DataNode stops). */
  public interface AfterOpen {
    void run(FSDataInputStream in) throws IOException;
  }

  private final Configuration conf;
  private final URI uri;

  /**
   * A client of the cluster at {@code uri} with our FileSystem, or HDFS's own when
   * {@code stockClient} (each read opens a new stream: its own dead-node view).
   */
  public DegradedReadProbe(Configuration clusterConf, URI uri, boolean stockClient) {
    this.conf = new Configuration(clusterConf);
    conf.set("fs.hdfs.impl", stockClient ? DistributedFileSystem.class.getName() : ECREPAIR_FS);
    conf.setBoolean("fs.hdfs.impl.disable.cache", true);
    this.uri = uri;
  }

  /**
   * Reads the cells of internal block {@code units.get(g)} of every group g of {@code file} listed
   * in {@code units} (data blocks) and compares them with {@code data}.
   */
  public Result readBlocks(Path file, ErasureCodingPolicy policy, long blockSize, byte[] data,
                           Map<Integer, Integer> units) throws IOException {
    return readBlocks(file, policy, blockSize, data, units, in -> { });
  }

  /** As {@link #readBlocks(Path, ErasureCodingPolicy, long, byte[], Map)}, with {@code afterOpen} run first. */
  public Result readBlocks(Path file, ErasureCodingPolicy policy, long blockSize, byte[] data,
                           Map<Integer, Integer> units, AfterOpen afterOpen) throws IOException {
    StripedLayout layout = new StripedLayout(policy.getNumDataUnits(), policy.getNumParityUnits(),
        policy.getCellSize(), blockSize);
    List<long[]> cells = new ArrayList<>();
    for (Map.Entry<Integer, Integer> e : new TreeMap<>(units).entrySet()) {
      cells.addAll(cells(layout, layout.groupLength(data.length, e.getKey()), e.getKey(), e.getValue(), Long.MAX_VALUE));
    }
    Expected expected = (pos, buf, off, len) -> java.util.Arrays.equals(buf, off, off + len, data, (int) pos,
        (int) pos + len);
    return read(file, cells, expected, afterOpen, null);
  }

  /**
   * The cells {offset in the file, length} of internal data block {@code unit} of group
   * {@code g} (of {@code groupLength} data bytes), up to {@code limit} bytes of the block.
   */
  public static List<long[]> cells(StripedLayout layout, long groupLength, int g, int unit, long limit) {
    List<long[]> cells = new ArrayList<>();
    long taken = 0;
    for (int r = 0; r < layout.rowCount(groupLength) && taken < limit; r++) {
      int length = (int) Math.min(layout.cellLength(groupLength, r, unit), limit - taken);
      if (length > 0) {
        cells.add(new long[] {layout.fileOffset(g, r, unit), length});
        taken += length;
      }
    }
    return cells;
  }

  /**
   * Reads {@code cells} of {@code file} in order, one positional read each, on one stream.
   *
   * @param received counts the bytes received (e.g. an interface counter); null for the stream's
   *     HDFS read statistics
   */
  public Result read(Path file, List<long[]> cells, Expected expected, AfterOpen afterOpen, LongSupplier received)
      throws IOException {
    try (FileSystem fs = newFileSystem()) {
      return read(fs, file, cells, expected, afterOpen, received);
    }
  }

  /** A client FileSystem of this probe's kind (ours or HDFS's), not shared with anyone. */
  public FileSystem newFileSystem() throws IOException {
    return FileSystem.newInstance(uri, conf);
  }

  /** As {@link #read(Path, List, Expected, AfterOpen, LongSupplier)}, through {@code fs}. */
  public static Result read(FileSystem fs, Path file, List<long[]> cells, Expected expected, AfterOpen afterOpen,
                            LongSupplier received) throws IOException {
    int largest = cells.stream().mapToInt(c -> (int) c[1]).max().orElse(0);
    byte[] buf = new byte[largest];
    try (FSDataInputStream in = fs.open(file)) {
      afterOpen.run(in);
      long returned = 0;
      boolean equal = true;
      long rx0 = received == null ? 0 : received.getAsLong();
      long cpu0 = processCpuNanos();
      long t0 = System.nanoTime();
      for (long[] c : cells) {
        in.readFully(c[0], buf, 0, (int) c[1]);
        returned += c[1];
        equal &= expected.matches(c[0], buf, 0, (int) c[1]);
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      double cpuSeconds = cpu0 < 0 ? Double.NaN : (processCpuNanos() - cpu0) / 1e9;
      long fetched = received == null ? ((HdfsDataInputStream) in).getReadStatistics().getTotalBytesRead()
          : received.getAsLong() - rx0;
      DegradedReadStats stats = DegradedReadStats.of(in);
      return new Result(fetched, returned, seconds, equal, PathFigures.of(stats), cpuSeconds);
    }
  }

  /** CPU nanoseconds this JVM has spent (every thread: the stream's readers too); -1 where the JVM does not say. */
  private static long processCpuNanos() {
    return java.lang.management.ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os ? os.getProcessCpuTime() : -1;
  }

  /**
   * The benchmark cluster's client (run in the client namespace, on its own shaped link, by
   * {@code cluster.sh java client ...}): reads every cell of one healthy and then one lost
   * internal data block of a one-group file, timing each and counting the bytes its interface
   * received, and checks every byte. Prints one JSON object. The lost block's DataNode is
   * unreachable from this namespace, so the read is a real degraded read while the NameNode
   * still thinks the node is fine (no reconstruction runs).
   *
   * <p>Arguments: uri file k cellSize blockSize lostIndex healthyIndex seed stock|ec-repair
   * [--conf KEY=VALUE]... [--whole-group]; a lostIndex of -1 reads only the healthy block (the
   * single-block race's baseline); {@code --conf} sets the client's configuration;
   * {@code --whole-group} makes the degraded read one of the whole group, row by row (each
   * read spans every data block, the lost one included), instead of the lost block's cells.
   */
  public static void main(String[] args) throws Exception {
    if (args.length < 9) {
      System.err.println("usage: DegradedReadProbe uri file k cellSize blockSize lostIndex healthyIndex seed "
          + "stock|ec-repair [--conf KEY=VALUE]... [--whole-group]");
      System.exit(2);
    }
    Configuration clientConf = new Configuration();
    boolean wholeGroup = false;
    for (int i = 9; i < args.length; i++) {
      if (args[i].equals("--whole-group")) {
        wholeGroup = true;
      } else if (args[i].equals("--conf") && i + 1 < args.length && args[i + 1].indexOf('=') > 0) {
        String kv = args[++i];
        clientConf.set(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
      } else {
        System.err.println("DegradedReadProbe: unknown argument " + args[i]);
        System.exit(2);
      }
    }
    URI uri = URI.create(args[0]);
    Path file = new Path(args[1]);
    int k = Integer.parseInt(args[2]);
    int cell = Integer.parseInt(args[3]);
    long blockSize = Long.parseLong(args[4]);
    int lost = Integer.parseInt(args[5]);
    int healthy = Integer.parseInt(args[6]);
    PatternData data = new PatternData(Long.parseLong(args[7]));
    boolean stock = !args[8].equals("ec-repair");
    DegradedReadProbe probe = new DegradedReadProbe(clientConf, uri, stock);
    // Blocks of one cell row's width: the layout of a one-group file whatever its m.
    StripedLayout layout = new StripedLayout(k, 1, cell, blockSize);
    long groupLength = (long) k * blockSize;
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("fileSystem", stock ? DistributedFileSystem.class.getName() : ECREPAIR_FS);
    try (FileSystem fs = probe.newFileSystem()) {
      // warm up connections and code paths on a third block, untimed
      int warm = (healthy + 1) % k == lost ? (healthy + 2) % k : (healthy + 1) % k;
      read(fs, file, cells(layout, groupLength, 0, warm, Math.min(cell, 64 * 1024)), data::matches, in -> { },
          DegradedReadProbe::rxBytes);
      if (lost >= 0) {
        // and the degraded path too, on the first cell of the lost block: each timed read follows one of its
        // kind (a read of part of a lost cell takes another route, see the small reads below)
        read(fs, file, cells(layout, groupLength, 0, lost, cell), data::matches, in -> { },
            DegradedReadProbe::rxBytes);
      }
      out.put("healthy", json(healthy, blockSize, read(fs, file, cells(layout, groupLength, 0, healthy, blockSize),
          data::matches, in -> { }, DegradedReadProbe::rxBytes)));
      if (lost >= 0 && wholeGroup) {
        List<long[]> rows = new ArrayList<>();
        for (long at = 0; at < groupLength; at += (long) k * cell) {
          rows.add(new long[] {at, Math.min((long) k * cell, groupLength - at)});
        }
        out.put("degraded", json(lost, groupLength, read(fs, file, rows, data::matches, in -> { },
            DegradedReadProbe::rxBytes)));
      } else if (lost >= 0) {
        out.put("degraded", json(lost, blockSize, read(fs, file, cells(layout, groupLength, 0, lost, blockSize),
            data::matches, in -> { }, DegradedReadProbe::rxBytes)));
        // An application's random reads: small reads inside the healthy block, then inside the lost one.
        java.util.Random rnd = new java.util.Random(Long.parseLong(args[7]));
        put(out, "healthy", "smallReads", smallReads(fs, file, cells(layout, groupLength, 0, healthy, blockSize),
            SMALL_READS, rnd, data::matches));
        put(out, "degraded", "smallReads", smallReads(fs, file, cells(layout, groupLength, 0, lost, blockSize),
            SMALL_READS, rnd, data::matches));
      }
    }
    System.out.println(new ObjectMapper().writeValueAsString(out));
  }

  /** Small reads timed per block read. */
  static final int SMALL_READS = 100;
  /** Bytes of each small read. */
  public static final int SMALL_READ_BYTES = 64 * 1024;

  /**
   * {@code count} positional reads of {@link #SMALL_READ_BYTES} at random offsets inside the
   * cells {@code cells} (one block's), each checked, through one stream: their latency's p50 and
   * p99 in ms, and whether every byte matched.
   */
  static Map<String, Object> smallReads(FileSystem fs, Path file, List<long[]> cells, int count, java.util.Random rnd,
                                        Expected expected) throws IOException {
    double[] ms = new double[count];
    boolean equal = true;
    byte[] buf = new byte[SMALL_READ_BYTES];
    try (FSDataInputStream in = fs.open(file)) {
      for (int i = 0; i < count; i++) {
        long[] c = cells.get(rnd.nextInt(cells.size()));
        int len = (int) Math.min(SMALL_READ_BYTES, c[1]);
        long at = c[0] + (c[1] == len ? 0 : (long) (rnd.nextDouble() * (c[1] - len)));
        long t0 = System.nanoTime();
        in.readFully(at, buf, 0, len);
        ms[i] = (System.nanoTime() - t0) / 1e6;
        equal &= expected.matches(at, buf, 0, len);
      }
    }
    java.util.Arrays.sort(ms);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("count", count);
    m.put("bytes", SMALL_READ_BYTES);
    m.put("p50Ms", percentile(ms, 0.50));
    m.put("p99Ms", percentile(ms, 0.99));
    m.put("verified", equal);
    return m;
  }

  /** The nearest-rank percentile of sorted values (at least one). */
  public static double percentile(double[] sorted, double p) {
    return sorted[Math.max(0, (int) Math.ceil(p * sorted.length) - 1)];
  }

  @SuppressWarnings("unchecked")
  private static void put(Map<String, Object> out, String read, String key, Object value) {
    ((Map<String, Object>) out.get(read)).put(key, value);
  }

  private static Map<String, Object> json(int index, long bytes, Result r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("index", index);
    m.put("bytes", bytes);
    m.put("seconds", r.seconds());
    m.put("rxBytes", r.bytesFetched());
    m.put("agentReads", r.stream().agentReads());
    m.put("verified", r.equal() && r.bytesReturned() == bytes);
    m.put("cpuSeconds", Double.isNaN(r.cpuSeconds()) ? null : r.cpuSeconds());
    return m;
  }

  /** This namespace's interface counter (the probe runs in the client namespace). */
  private static long rxBytes() {
    try {
      return Long.parseLong(Files.readString(java.nio.file.Path.of("/sys/class/net/eth0/statistics/rx_bytes")).strip());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException("cannot read the client interface's counter", e);
    }
  }
}
