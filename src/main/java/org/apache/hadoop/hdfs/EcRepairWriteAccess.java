package org.apache.hadoop.hdfs;

import java.io.IOException;
import java.lang.reflect.Field;
import java.util.Arrays;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;

/**
 * hadoop-ec-repair's window into HDFS's striped writer: the policy of the group being written
 * and which of its units' streamers failed (package-private members; the policy field is
 * private and read by reflection, resolved once).
 */
public final class EcRepairWriteAccess {
  private static final Field POLICY = policyField();

  private EcRepairWriteAccess() {}

  /** The stream's erasure-coding policy, or null when it does not write a striped file. */
  public static ErasureCodingPolicy stripedPolicy(DFSOutputStream out) {
    if (!(out instanceof DFSStripedOutputStream)) {
      return null;
    }
    try {
      return (ErasureCodingPolicy) POLICY.get(out);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException("cannot read DFSStripedOutputStream.ecPolicy", e);
    }
  }

  /**
   * The units of the block group being written whose streamer failed (sorted). Meaningful only
   * while the stream is open: closing it closes every streamer.
   */
  public static int[] failedUnits(DFSOutputStream out, int units) {
    DFSStripedOutputStream striped = (DFSStripedOutputStream) out;
    int[] failed = new int[units];
    int n = 0;
    for (int i = 0; i < units; i++) {
      if (!striped.getStripedDataStreamer(i).isHealthy()) {
        failed[n++] = i;
      }
    }
    return Arrays.copyOf(failed, n);
  }

  /** The path the stream writes. */
  public static String path(DFSOutputStream out) {
    return out.getSrc();
  }

  /** Whether the stream was closed (by its writer, or by HDFS when the write failed). */
  public static boolean isClosed(DFSOutputStream out) {
    return out.isClosed();
  }

  /**
   * Sends every streamer's queued packets and waits until the DataNodes acknowledged them (what
   * the stream's close does first), so failures they meet are known before the close commits.
   */
  public static void flushQueued(DFSOutputStream out) throws IOException {
    DFSStripedOutputStream striped = (DFSStripedOutputStream) out;
    synchronized (striped) {
      striped.flushAllInternals();
    }
  }

  /** Stops the stream's streamers and ends its lease, as a client whose lease expired does. */
  public static void abort(DFSOutputStream out) throws IOException {
    out.abort();
  }

  /**
   * Asks the NameNode to recover the file's lease now (the DataNodes then fix its length), if
   * the stream's path still names the file it wrote (not one renamed there since).
   */
  public static boolean recoverLease(DFSClient client, DFSOutputStream out) throws IOException {
    HdfsFileStatus now = client.getFileInfo(out.getSrc());
    if (now == null || now.getFileId() != out.getFileId()) {
      return false;
    }
    client.recoverLease(out.getSrc());
    return true;
  }

  private static Field policyField() {
    try {
      Field f = DFSStripedOutputStream.class.getDeclaredField("ecPolicy");
      f.setAccessible(true);
      return f;
    } catch (NoSuchFieldException e) {
      throw new IllegalStateException("DFSStripedOutputStream has no field ecPolicy", e);
    }
  }
}
