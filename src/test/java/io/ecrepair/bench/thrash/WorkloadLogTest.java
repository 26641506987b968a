package io.ecrepair.bench.thrash;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The workload's record folds into the files that exist and what the reads saw. */
class WorkloadLogTest {
  @Test
  void deletesAndReCreatesLeaveTheLastCompletedGeneration() {
    WorkloadLog.Written a1 = new WorkloadLog.Written("/thrash/RS-6-3-64k/f0-1", "RS-6-3-64k", 100, 1, "aa");
    WorkloadLog.Written a2 = new WorkloadLog.Written("/thrash/RS-6-3-64k/f0-1", "RS-6-3-64k", 300, 2, "bb");
    WorkloadLog.Written b = new WorkloadLog.Written("/thrash/CLAY-6-3-1024k/f1-2", "CLAY-6-3-1024k", 5, 3, "cc");
    List<String> lines = List.of(
        WorkloadLog.started(1, a1.path(), a1.policy(), 100),
        WorkloadLog.written(2, a1),
        WorkloadLog.started(3, b.path(), b.policy(), 5),
        WorkloadLog.written(4, b),
        WorkloadLog.read(5, a1.path(), "whole", "stock", "ok", 100, ""),
        WorkloadLog.read(6, b.path(), "small", "ec-repair", "wrong", 7, ""),
        WorkloadLog.read(7, b.path(), "positional", "ec-repair", "failed", 0, "java.io.IOException: no\tblock"),
        WorkloadLog.deleted(8, a1.path()),
        WorkloadLog.started(9, a2.path(), a2.policy(), 300),
        WorkloadLog.written(10, a2),
        WorkloadLog.started(11, "/thrash/RS-6-3-64k/f0-3", "RS-6-3-64k", 9),
        WorkloadLog.failed(12, "/thrash/RS-6-3-64k/f0-3", "java.io.IOException: all\tstreamers\nfailed"),
        WorkloadLog.totals(13, Map.of("cellsRebuilt", 12L)),
        "W\t14\t/thrash/torn");
    WorkloadLog.Summary s = WorkloadLog.parse(lines);
    assertEquals(Map.of(a2.path(), a2, b.path(), b), s.live());
    assertEquals(3, s.written());
    assertEquals(1, s.writeFailures());
    assertEquals(1, s.deleted());
    assertEquals(4, s.started().size());
    assertEquals(Map.of("ok", 1L, "wrong", 1L, "failed", 1L), s.readsByOutcome());
    assertEquals(7, s.wrongReadBytes());
    assertEquals(12L, s.clientTotals().get("cellsRebuilt"));
  }
}
