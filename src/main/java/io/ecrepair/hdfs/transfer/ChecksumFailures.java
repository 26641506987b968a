package io.ecrepair.hdfs.transfer;

import org.apache.hadoop.fs.ChecksumException;

/**
 * Whether a read failed because bytes did not match the checksums stored with the replica:
 * the replica is corrupt (or was corrupted on its way, which a reader cannot tell apart, and
 * HDFS's own readers treat the same). Such a replica is reported to the NameNode, never only
 * skipped.
 */
public final class ChecksumFailures {
  private ChecksumFailures() {}

  /** Whether {@code t} or one of its causes is a {@link ChecksumException}. */
  public static boolean in(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof ChecksumException) {
        return true;
      }
      if (c.getCause() == c) {
        break;
      }
    }
    return false;
  }
}
