package io.ecrepair.demo;

import io.ecrepair.hdfs.client.DegradedReadStats;
import io.ecrepair.hdfs.client.EcRepairDistributedFileSystem;
import io.ecrepair.layout.StripedLayout;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.client.HdfsDataInputStream;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;

/**
 * Reads every cell of some internal data blocks of a file (as a reader of those byte ranges
 * would: one positional read per cell) through a client with hadoop-ec-repair's FileSystem, and says
 * what it cost: the bytes fetched from DataNodes (HDFS's read statistics, which count the
 * stock path and ours), the bytes returned, the time, whether they equal the original, and how
 * many cells the degraded path rebuilt. Run once while the block is readable and once while it
 * is lost, it gives the healthy vs degraded figures of {@code ec-repair demo} and {@code bench
 * degraded-read}.
 */
public final class DegradedReadProbe {
  /** One pass over the block's cells. */
  public record Result(long bytesFetched, long bytesReturned, double seconds, boolean equal, long cellsRebuilt) {
    public double fetchedPerReturned() {
      return bytesReturned == 0 ? 0 : (double) bytesFetched / bytesReturned;
    }

    public double mbPerSec() {
      return seconds <= 0 ? 0 : bytesReturned / seconds / 1e6;
    }
  }

  private final Configuration conf;
  private final URI uri;

  /**
   * A client of the cluster at {@code uri} with our FileSystem, or HDFS's own when
   * {@code stockClient} (each read opens a new stream: its own dead-node view).
   */
  public DegradedReadProbe(Configuration clusterConf, URI uri, boolean stockClient) {
    this.conf = new Configuration(clusterConf);
    conf.set("fs.hdfs.impl", stockClient ? DistributedFileSystem.class.getName()
        : EcRepairDistributedFileSystem.class.getName());
    conf.setBoolean("fs.hdfs.impl.disable.cache", true);
    this.uri = uri;
  }

  /**
   * Reads the cells of internal block {@code units.get(g)} of every group g of {@code file} listed
   * in {@code units} (data blocks) and compares them with {@code data}.
   */
  public Result readBlocks(Path file, ErasureCodingPolicy policy, long blockSize, byte[] data,
                           java.util.Map<Integer, Integer> units) throws IOException {
    return readBlocks(file, policy, blockSize, data, units, in -> { });
  }

  /** What happens between opening the stream and reading (e.g. a DataNode stops). */
  public interface AfterOpen {
    void run(FSDataInputStream in) throws IOException;
  }

  /** As {@link #readBlocks(Path, ErasureCodingPolicy, long, byte[], java.util.Map)}, with {@code afterOpen} run first. */
  public Result readBlocks(Path file, ErasureCodingPolicy policy, long blockSize, byte[] data,
                           java.util.Map<Integer, Integer> units, AfterOpen afterOpen) throws IOException {
    StripedLayout layout = new StripedLayout(policy.getNumDataUnits(), policy.getNumParityUnits(),
        policy.getCellSize(), blockSize);
    List<long[]> cells = new ArrayList<>();
    for (java.util.Map.Entry<Integer, Integer> e : new java.util.TreeMap<>(units).entrySet()) {
      int g = e.getKey();
      long groupLength = layout.groupLength(data.length, g);
      for (int r = 0; r < layout.rowCount(groupLength); r++) {
        int length = layout.cellLength(groupLength, r, e.getValue());
        if (length > 0) {
          cells.add(new long[] {layout.fileOffset(g, r, e.getValue()), length});
        }
      }
    }
    try (FileSystem fs = FileSystem.newInstance(uri, conf); FSDataInputStream in = fs.open(file)) {
      afterOpen.run(in);
      long returned = 0;
      boolean equal = true;
      long t0 = System.nanoTime();
      for (long[] c : cells) {
        byte[] got = new byte[(int) c[1]];
        in.readFully(c[0], got);
        returned += got.length;
        equal &= Arrays.equals(got, 0, got.length, data, (int) c[0], (int) (c[0] + c[1]));
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      long fetched = ((HdfsDataInputStream) in).getReadStatistics().getTotalBytesRead();
      DegradedReadStats stats = DegradedReadStats.of(in);
      return new Result(fetched, returned, seconds, equal, stats == null ? 0 : stats.cellsRebuilt());
    }
  }
}
