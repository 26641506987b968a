package io.ecrepair.bench.cluster;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;

/**
 * Runs inside the client namespace (its own shaped link; {@code cluster.sh java client ...}):
 * reads every cell of one healthy and then one lost internal data block of a one-group file,
 * timing each and counting the bytes its interface received, and checks every byte. Prints one
 * JSON object. The lost block's DataNode is unreachable from this namespace, so the read is a
 * real degraded read while the NameNode still thinks the node is fine (no reconstruction runs).
 *
 * <p>Arguments: uri file k cellSize blockSize lostIndex healthyIndex seed stock|ec-repair; a
 * lostIndex of -1 reads only the healthy block (the single-block race's baseline).
 */
public final class DegradedReadProbe {
  /** The client FileSystem of issue 8; used when it is on the classpath. */
  public static final String ECREPAIR_FS = "io.ecrepair.hdfs.client.EcRepairDistributedFileSystem";

  private DegradedReadProbe() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 9) {
      System.err.println("usage: DegradedReadProbe uri file k cellSize blockSize lostIndex healthyIndex seed stock|ec-repair");
      System.exit(2);
    }
    String uri = args[0];
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(args[1]);
    int k = Integer.parseInt(args[2]);
    int cell = Integer.parseInt(args[3]);
    long blockSize = Long.parseLong(args[4]);
    int lost = Integer.parseInt(args[5]);
    int healthy = Integer.parseInt(args[6]);
    PatternData data = new PatternData(Long.parseLong(args[7]));
    Configuration conf = new Configuration();
    boolean ours = args[8].equals("ec-repair");
    if (ours) {
      conf.set("fs.hdfs.impl", ECREPAIR_FS);
    }
    conf.setBoolean("fs.hdfs.impl.disable.cache", true);
    Map<String, Object> out = new LinkedHashMap<>();
    try (FileSystem fs = FileSystem.get(URI.create(uri), conf)) {
      out.put("fileSystem", fs.getClass().getName());
      // warm up connections and code paths on a third block, untimed
      readBlock(fs, file, k, cell, Math.min(cell, 64 * 1024), (healthy + 1) % k == lost ? (healthy + 2) % k
          : (healthy + 1) % k, data);
      out.put("healthy", readBlock(fs, file, k, cell, blockSize, healthy, data));
      if (lost >= 0) {
        out.put("degraded", readBlock(fs, file, k, cell, blockSize, lost, data));
      }
    }
    System.out.println(new ObjectMapper().writeValueAsString(out));
  }

  /** Reads the first {@code length} bytes of internal data block {@code index} cell by cell (positional reads). */
  static Map<String, Object> readBlock(FileSystem fs, org.apache.hadoop.fs.Path file, int k, int cell, long length,
                                       int index, PatternData data) throws IOException {
    byte[] buf = new byte[cell];
    boolean ok = true;
    long rx0 = rxBytes();
    long t0 = System.nanoTime();
    try (FSDataInputStream in = fs.open(file)) {
      for (long done = 0, row = 0; done < length; row++) {
        int n = (int) Math.min(cell, length - done);
        long pos = (row * k + index) * cell;
        in.readFully(pos, buf, 0, n);
        ok &= data.matches(pos, buf, 0, n);
        done += n;
      }
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("index", index);
    m.put("bytes", length);
    m.put("seconds", seconds);
    m.put("rxBytes", rxBytes() - rx0);
    m.put("verified", ok);
    return m;
  }

  /** This namespace's interface counter (the probe runs in the client namespace). */
  private static long rxBytes() throws IOException {
    return Long.parseLong(Files.readString(Path.of("/sys/class/net/eth0/statistics/rx_bytes")).strip());
  }
}
