package io.ecrepair.hdfs.task;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.Predicate;

/**
 * The last reconstruction tasks this JVM ran (all DataNodes of a MiniDFSCluster share it):
 * what {@code ec-repair demo} and the tests read to report and assert bytes read per repair.
 */
public final class ReconstructionLog {
  private static final int CAPACITY = 10_000;
  private static final Deque<TaskReport> REPORTS = new ArrayDeque<>();
  private static final java.util.Map<Long, Integer> RUNNING = new java.util.HashMap<>();

  private ReconstructionLog() {}

  public static synchronized void started(long blockGroupId) {
    RUNNING.merge(blockGroupId, 1, Integer::sum);
  }

  /** Block groups with a reconstruction task of the plugin running now. */
  public static synchronized java.util.Set<Long> running() {
    return new java.util.TreeSet<>(RUNNING.keySet());
  }

  public static synchronized void add(TaskReport r) {
    RUNNING.computeIfPresent(r.blockGroupId(), (g, c) -> c > 1 ? c - 1 : null);
    if (REPORTS.size() >= CAPACITY) {
      REPORTS.removeFirst();
    }
    REPORTS.addLast(r);
    ReconstructionLog.class.notifyAll();
  }

  public static synchronized List<TaskReport> reports() {
    return new ArrayList<>(REPORTS);
  }

  public static synchronized List<TaskReport> reports(Predicate<TaskReport> filter) {
    return REPORTS.stream().filter(filter).toList();
  }

  public static synchronized void clear() {
    REPORTS.clear();
  }
}
