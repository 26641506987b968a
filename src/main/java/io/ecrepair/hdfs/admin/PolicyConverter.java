package io.ecrepair.hdfs.admin;

import io.ecrepair.hdfs.ListedUnits;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Map;
import java.util.function.LongConsumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.AclStatus;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicyInfo;
import org.apache.hadoop.hdfs.protocol.SystemErasureCodingPolicies;

/**
 * Rewrites files under a new erasure coding policy (or replication) safely: each file is
 * copied to a hidden file beside it under the new policy, the copy is read back and compared
 * with the bytes read from the original (a digest of each), its parity is re-encoded and
 * checked ({@link StripeVerifier}), the original is checked to be unchanged and closed, the
 * copy takes the original's permission, owner, group, times, ACL and extended attributes, and
 * only then replaces the original in one atomic rename. On any failure the copy is deleted and
 * the original stays as it was.
 */
public final class PolicyConverter {
  /** HDFS's name for "replicated, not erasure-coded" ({@code hdfs ec -setPolicy -replicate}). */
  /** How long a converted copy's block reports may trail its close. */
  private static final long REPORT_WAIT_SECONDS = 30;
  public static final String REPLICATION = SystemErasureCodingPolicies.getReplicationPolicy().getName();

  /** One file: "converted", "unchanged" (already under the policy), "skipped" (open for write) or "failed". */
  public record Converted(String file, String from, String to, long length, String outcome, String detail) {}

  private final DistributedFileSystem fs;
  private final Configuration conf;
  private final String target;

  /**
   * @param policy an enabled erasure coding policy of the cluster, or {@link #REPLICATION}
   * @throws IllegalArgumentException when the cluster has no such enabled policy
   */
  public PolicyConverter(DistributedFileSystem fs, Configuration conf, String policy) throws IOException {
    this.fs = fs;
    this.conf = conf;
    this.target = resolve(fs, policy);
  }

  public String target() {
    return target;
  }

  private static String resolve(DistributedFileSystem fs, String policy) throws IOException {
    if (policy.equalsIgnoreCase(REPLICATION)) {
      return REPLICATION;
    }
    ErasureCodingPolicyInfo[] all = fs.getAllErasureCodingPolicies().toArray(new ErasureCodingPolicyInfo[0]);
    for (ErasureCodingPolicyInfo info : all) {
      if (info.getPolicy().getName().equalsIgnoreCase(policy)) {
        if (!info.isEnabled()) {
          throw new IllegalArgumentException("policy " + info.getPolicy().getName() + " is not enabled on this cluster "
              + "(hdfs ec -enablePolicy -policy " + info.getPolicy().getName() + ")");
        }
        return info.getPolicy().getName();
      }
    }
    throw new IllegalArgumentException("the cluster has no policy " + policy + " (see hdfs ec -listPolicies; "
        + REPLICATION + " for plain replication)");
  }

  /** Converts one file; {@code progress} gets the bytes copied and checked so far. */
  public Converted convert(FileStatus file, LongConsumer progress) throws IOException {
    Path src = file.getPath();
    String name = src.toUri().getPath();
    ErasureCodingPolicy current = fs.getErasureCodingPolicy(src);
    String from = current == null ? REPLICATION : current.getName();
    if (from.equals(target)) {
      return new Converted(name, from, target, file.getLen(), "unchanged", "already " + target);
    }
    if (!fs.isFileClosed(src)) {
      return new Converted(name, from, target, file.getLen(), "skipped", "open for write");
    }
    Path copy = new Path(src.getParent(), "." + src.getName() + ".ec-repair-convert");
    try {
      String problem = copyAndCheck(file, copy, progress);
      if (problem != null) {
        fs.delete(copy, false);
        return new Converted(name, from, target, file.getLen(), "failed", problem + "; " + name + " is unchanged");
      }
      fs.rename(copy, src, Options.Rename.OVERWRITE);
      return new Converted(name, from, target, file.getLen(), "converted", null);
    } catch (IOException | RuntimeException e) {
      deleteQuietly(copy);
      return new Converted(name, from, target, file.getLen(), "failed",
          e.getClass().getSimpleName() + ": " + e.getMessage() + "; " + name + " is unchanged");
    }
  }

  /**
   * Sets the policy on a directory, so that files created there later get it too; returns the
   * directory's earlier policy name (REPLICATION where it had none).
   */
  public String setOnDirectory(Path dir) throws IOException {
    ErasureCodingPolicy before = fs.getErasureCodingPolicy(dir);
    fs.setErasureCodingPolicy(dir, target);
    return before == null ? REPLICATION : before.getName();
  }

  /** Writes and checks the copy; null when it may replace the original, else why not. */
  private String copyAndCheck(FileStatus file, Path copy, LongConsumer progress) throws IOException {
    Path src = file.getPath();
    DistributedFileSystem.HdfsDataOutputStreamBuilder builder = fs.createFile(copy).overwrite(true)
        .permission(file.getPermission()).blockSize(blockSize(file.getBlockSize()));
    builder = target.equals(REPLICATION) ? builder.replicate().replication(replication()) : builder.ecPolicyName(target);
    byte[] written;
    long[] done = {0};
    try (DigestInputStream in = new DigestInputStream(fs.open(src), md5());
         OutputStream out = builder.build()) {
      pump(in, out, b -> progress.accept(done[0] += b));
      written = in.getMessageDigest().digest();
    }
    FileStatus now = fs.getFileStatus(src);
    if (now.getLen() != file.getLen() || now.getModificationTime() != file.getModificationTime()
        || !fs.isFileClosed(src)) {
      return "the file changed while it was copied";
    }
    FileStatus copied = fs.getFileStatus(copy);
    if (copied.getLen() != file.getLen()) {
      return "the copy has " + copied.getLen() + " bytes, the file " + file.getLen();
    }
    // The copy closed once each group's minimum was reported: reading it back or verifying it
    // before the other reports came in would decode, or find no parity to compare.
    if (!target.equals(REPLICATION)
        && ListedUnits.await(fs.getClient(), copy.toUri().getPath(), REPORT_WAIT_SECONDS * 1000).isEmpty()) {
      return "the NameNode did not learn every internal block of the copy in " + REPORT_WAIT_SECONDS + " s";
    }
    byte[] readBack;
    try (DigestInputStream in = new DigestInputStream(fs.open(copy), md5())) {
      pump(in, OutputStream.nullOutputStream(), b -> progress.accept(done[0] += b));
      readBack = in.getMessageDigest().digest();
    }
    if (!Arrays.equals(written, readBack)) {
      return "the copy read back differs from the file";
    }
    if (!target.equals(REPLICATION)) {
      for (StripeVerifier.GroupResult g : new StripeVerifier(fs, conf).verify(copied, b -> { })) {
        if (!g.ok()) {
          return "the copy's block group " + g.group() + " did not verify (" + g.outcome() + ": " + g.detail() + ")";
        }
      }
    }
    keepAttributes(file, copy);
    return null;
  }

  /** The original's owner, group, ACL, extended attributes and times go to the copy (the permission is set at create). */
  private void keepAttributes(FileStatus file, Path copy) throws IOException {
    FileStatus c = fs.getFileStatus(copy);
    if (!c.getOwner().equals(file.getOwner()) || !c.getGroup().equals(file.getGroup())) {
      fs.setOwner(copy, file.getOwner(), file.getGroup());
    }
    fs.setPermission(copy, file.getPermission());
    if (file.hasAcl()) {
      AclStatus acl = fs.getAclStatus(file.getPath());
      fs.setAcl(copy, acl.getEntries());
    }
    Map<String, byte[]> xattrs = fs.getXAttrs(file.getPath());
    for (Map.Entry<String, byte[]> x : xattrs.entrySet()) {
      fs.setXAttr(copy, x.getKey(), x.getValue());
    }
    fs.setTimes(copy, file.getModificationTime(), file.getAccessTime());
  }

  /** A block size the new policy accepts: the original's, rounded up to whole cells. */
  private long blockSize(long original) throws IOException {
    if (target.equals(REPLICATION)) {
      return original;
    }
    int cell = policy(target).getCellSize();
    return Math.max(cell, (original + cell - 1) / cell * cell);
  }

  private ErasureCodingPolicy policy(String name) throws IOException {
    for (ErasureCodingPolicyInfo info : fs.getAllErasureCodingPolicies()) {
      if (info.getPolicy().getName().equals(name)) {
        return info.getPolicy();
      }
    }
    throw new FileNotFoundException("policy " + name + " disappeared from the cluster");
  }

  private short replication() {
    return (short) conf.getInt("dfs.replication", 3);
  }

  private static void pump(InputStream in, OutputStream out, LongConsumer bytes) throws IOException {
    byte[] buf = new byte[1 << 20];
    int n;
    while ((n = in.read(buf)) > 0) {
      out.write(buf, 0, n);
      bytes.accept(n);
    }
  }

  private void deleteQuietly(Path p) {
    try {
      fs.delete(p, false);
    } catch (IOException ignored) {
      // the original is intact; a leftover hidden copy is overwritten by the next attempt
    }
  }

  private static MessageDigest md5() {
    try {
      return MessageDigest.getInstance("MD5");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
