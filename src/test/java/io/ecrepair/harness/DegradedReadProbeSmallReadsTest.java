package io.ecrepair.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DegradedReadProbeSmallReadsTest {
  @Test
  void smallReadsCheckEveryByteInsideTheGivenCells(@TempDir java.nio.file.Path dir) throws Exception {
    PatternData data = new PatternData(7);
    byte[] bytes = new byte[1 << 20];
    data.fill(0, bytes, 0, bytes.length);
    java.nio.file.Path f = dir.resolve("f");
    Files.write(f, bytes);
    FileSystem fs = FileSystem.getLocal(new Configuration());
    // Two cells of 256 KiB with a gap between them, and one shorter than a small read.
    List<long[]> cells = List.of(new long[] {0, 256 << 10}, new long[] {512 << 10, 256 << 10},
        new long[] {900 << 10, 10_000});
    long[] touched = new long[2];
    Map<String, Object> ok = DegradedReadProbe.smallReads(fs, new Path(f.toString()), cells, 30, new Random(1),
        (pos, buf, off, len) -> {
          boolean inside = cells.stream().anyMatch(c -> pos >= c[0] && pos + len <= c[0] + c[1]);
          touched[inside ? 0 : 1]++;
          return data.matches(pos, buf, off, len);
        });
    assertEquals(true, ok.get("verified"));
    assertEquals(30L, touched[0]);
    assertEquals(0L, touched[1], "every read lies inside one cell");
    assertTrue((double) ok.get("p50Ms") <= (double) ok.get("p99Ms"));
    Map<String, Object> wrong = DegradedReadProbe.smallReads(fs, new Path(f.toString()), cells, 5, new Random(1),
        new PatternData(8)::matches);
    assertEquals(false, wrong.get("verified"));
  }

  @Test
  void percentileIsTheNearestRank() {
    double[] v = new double[100];
    for (int i = 0; i < v.length; i++) {
      v[i] = i + 1;
    }
    assertEquals(50, DegradedReadProbe.percentile(v, 0.50));
    assertEquals(99, DegradedReadProbe.percentile(v, 0.99));
    assertEquals(7, DegradedReadProbe.percentile(new double[] {7}, 0.99));
    assertFalse(DegradedReadProbe.percentile(new double[] {1, 2}, 0.5) == 2);
  }
}
