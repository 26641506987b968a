package io.ecrepair.hdfs.task;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.function.Supplier;
import io.ecrepair.hdfs.transfer.RepairBudget;
import org.apache.hadoop.util.DataChecksum;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The targets of one task, a writer per rebuilt block, as HDFS's own reconstruction treats
 * them: a target whose write fails is closed and skipped from then on, and the task goes on
 * while another remains (the NameNode schedules the missing one again).
 */
final class TargetSet {
  private static final Logger LOG = LoggerFactory.getLogger(TargetSet.class);

  private final TargetWriter[] writers;
  private final int[] lost;
  private final boolean[] ok;
  private final Object task;

  /** @param lost the internal block index each writer writes */
  TargetSet(TargetWriter[] writers, int[] lost, Object task) {
    this.writers = writers;
    this.lost = lost;
    this.ok = new boolean[writers.length];
    java.util.Arrays.fill(ok, true);
    this.task = task;
  }

  int size() {
    return writers.length;
  }

  TargetWriter writer(int i) {
    return writers[i];
  }

  boolean ok(int i) {
    return ok[i];
  }

  /** Gives target i up (closing its writer), for example when it cannot commit. */
  void fail(int i, String why) {
    LOG.warn("ec-repair: target {} failed for internal block {} of {}: {}", writers[i].target(), lost[i], task, why);
    ok[i] = false;
    writers[i].close();
  }

  /**
   * Appends the first {@code len} bytes of {@code cell} to target i (opened with
   * {@code checksum} on its first cell) unless it was given up; returns the bytes written.
   *
   * @throws IOException when no target is left
   */
  long write(int i, ByteBuffer cell, int len, Supplier<DataChecksum> checksum, RepairBudget budget)
      throws IOException {
    if (ok[i] && len > 0) {
      try {
        if (!writers[i].isOpen()) {
          writers[i].open(checksum.get(), budget);
        }
        budget.sending(len);
        writers[i].write(cell.slice(0, len));
        return len;
      } catch (IOException e) {
        fail(i, e.toString());
      }
    }
    if (!anyOk()) {
      throw new IOException("every target failed for " + task);
    }
    return 0;
  }

  boolean anyOk() {
    for (boolean x : ok) {
      if (x) {
        return true;
      }
    }
    return false;
  }

  void closeAll() {
    for (TargetWriter w : writers) {
      w.close();
    }
  }
}
