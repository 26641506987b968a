package io.ecrepair.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.bench.cluster.ForegroundOps.Kind;
import io.ecrepair.bench.cluster.ForegroundOps.Op;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ForegroundOpsTest {
  @TempDir
  Path tmp;

  @Test
  void aLogLineReadsBackAsTheOperationItRecords() throws Exception {
    Op read = new Op(1_700_000_000_123L, Kind.READ, 12.345, 131072, "ok");
    Op write = new Op(1_700_000_000_456L, Kind.WRITE, 250.5, 524288, "failed:IOException");
    Path log = tmp.resolve("fg.log");
    Files.writeString(log, read.line() + "\n" + write.line() + "\n\n");
    List<Op> back = ForegroundOps.read(log);
    assertEquals(List.of(read, write), back);
    assertThrows(IllegalArgumentException.class, () -> Op.parse("1 read 2.0"));
  }

  @Test
  void percentilesAreNearestRankAndNoneForNoOperation() {
    double[] v = new double[1000];
    for (int i = 0; i < v.length; i++) {
      v[i] = i + 1;
    }
    assertEquals(999, ForegroundOps.percentile(v, 0.999));
    assertTrue(Double.isNaN(ForegroundOps.percentile(new double[0], 0.5)));
  }

  /**
   * Latency counts in the window an operation was due in, whenever it ended, failures with their
   * time; throughput counts in the window an operation ended in.
   */
  @Test
  void aWindowHoldsTheOperationsDueInIt() {
    List<Op> ops = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      ops.add(new Op(1000 + i * 10, Kind.READ, 10 + i, 1_000_000, "ok"));  // due 1000..1990, end 1010..2099
    }
    ops.add(new Op(1500, Kind.WRITE, 400, 2_000_000, "ok"));
    ops.add(new Op(1600, Kind.WRITE, 9000, 2_000_000, "failed:IOException"));
    ops.add(new Op(1700, Kind.READ, 5000, 1_000_000, "wrong"));
    ops.add(new Op(2000, Kind.READ, 1, 1_000_000, "ok"));  // the next window's
    ForegroundOps.Window w = ForegroundOps.window(ops, 1000, 2000);
    assertEquals(1.0, w.seconds());
    assertEquals(101, w.reads().ops());
    assertEquals(2, w.writes().ops());
    assertEquals(60, w.reads().p50Ms());      // 51st of 10..109 and 5000
    assertEquals(109, w.reads().p99Ms());
    assertEquals(5000, w.reads().p999Ms());   // the wrong read's time counts
    // ended right within it: the reads i = 0..89 (read i ends at 1010 + 11 i); the wrong one does not count
    assertEquals(90.0, w.reads().mbPerSec(), 1e-9);
    assertEquals(2.0, w.writes().mbPerSec(), 1e-9);   // the failed write moved nothing
    assertEquals(9000, w.writes().p99Ms());
    assertEquals(1, w.failed());
    assertEquals(1, w.wrong());
    ForegroundOps.Window next = ForegroundOps.window(ops, 2000, 3000);
    assertEquals(1, next.reads().ops(), "one read due in it");
    assertEquals(11.0, next.reads().mbPerSec(), 1e-9, "ten slow reads due before it ended in it, and its own");
    assertEquals(0, next.failed());
    org.junit.jupiter.api.Assertions.assertArrayEquals(new int[] {1, 1}, ForegroundOps.failures(ops, 1500));
    org.junit.jupiter.api.Assertions.assertArrayEquals(new int[] {0, 0}, ForegroundOps.failures(ops, 1800));
    ForegroundOps.Window none = ForegroundOps.window(ops, 5000, 6000);
    assertEquals(0, none.reads().ops());
    assertTrue(Double.isNaN(none.reads().p99Ms()));
    assertThrows(IllegalArgumentException.class, () -> ForegroundOps.window(ops, 2000, 2000));
  }

  @Test
  void groupsShortOfRedundancyCountFromTheFailure() {
    long t0 = 1_000_000_000L;
    FullNodeRecovery.GroupsShort g = FullNodeRecovery.groupsShort(java.util.Map.of(0, t0 + 20_000_000_000L,
        1, t0 + 30_000_000_000L, 2, t0 + 40_000_000_000L), t0, t0 + 35_000_000_000L);
    assertEquals((20 + 30 + 35) / 3.0, g.meanSeconds(), 1e-9);
    assertEquals(35.0, g.maxSeconds(), 1e-9);
    assertTrue(Double.isNaN(FullNodeRecovery.groupsShort(java.util.Map.of(), t0, t0).meanSeconds()));
  }
}
