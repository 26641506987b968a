package io.ecrepair.hdfs.client;

import io.ecrepair.codes.RepairableCode;
import io.ecrepair.hdfs.RepairCatalog;
import java.io.IOException;
import java.util.Arrays;
import org.apache.hadoop.crypto.CryptoOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.DFSClient;
import org.apache.hadoop.hdfs.DFSOutputStream;
import org.apache.hadoop.hdfs.EcRepairDfsClient;
import org.apache.hadoop.hdfs.EcRepairWriteAccess;
import org.apache.hadoop.hdfs.client.HdfsDataOutputStream;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stops a write that the code could not read back. HDFS's striped writer goes on while at most
 * m of the group's streamers fail, and the NameNode completes a group from any k units: right
 * for an MDS code, but an LRC that loses a local group's data units and its local parity while
 * they are written would complete a group nobody can read. Streams of our policies are checked
 * after every write (cut at stripe ends, where HDFS ends a group) and before close; once the
 * failed units are more than the code can rebuild, the stream is aborted, the file's lease is
 * recovered (the DataNodes keep the stripes the code can rebuild) and the writer gets an error.
 * For an MDS code HDFS's own limit is the same and nothing changes.
 */
final class DecodableWriteGuard implements EcRepairDfsClient.OutputGuard {
  private static final Logger LOG = LoggerFactory.getLogger(DecodableWriteGuard.class);

  @Override
  public HdfsDataOutputStream wrap(DFSOutputStream dfsos, HdfsDataOutputStream hdfs, FileSystem.Statistics statistics,
                                   long startPosition, DFSClient client) throws IOException {
    ErasureCodingPolicy policy = EcRepairWriteAccess.stripedPolicy(dfsos);
    if (policy == null || !RepairCatalog.owns(policy, false)) {
      return hdfs;
    }
    RepairableCode code = RepairCatalog.code(RepairCatalog.spec(policy));
    Check check = new Check(dfsos, client, code, policy);
    long stripe = (long) policy.getNumDataUnits() * policy.getCellSize();
    if (hdfs.getWrappedStream() instanceof CryptoOutputStream crypto) {
      return new Guarded(crypto, statistics, startPosition, stripe, check);
    }
    return new Guarded(dfsos, statistics, startPosition, stripe, check);
  }

  /** Whether the units failed so far still leave a group the code can read. */
  private static final class Check {
    private final DFSOutputStream dfsos;
    private final DFSClient client;
    private final RepairableCode code;
    private final ErasureCodingPolicy policy;
    private IOException failure;

    Check(DFSOutputStream dfsos, DFSClient client, RepairableCode code, ErasureCodingPolicy policy) {
      this.dfsos = dfsos;
      this.client = client;
      this.code = code;
      this.policy = policy;
    }

    void run() throws IOException {
      if (failure != null) {
        throw failure;
      }
      int[] failed = EcRepairWriteAccess.failedUnits(dfsos, code.totalUnits());
      if (failed.length == 0 || code.decodable(failed)) {
        return;
      }
      String why = "writing " + EcRepairWriteAccess.path(dfsos) + " (" + policy.getName() + ") failed: the DataNodes of units "
          + Arrays.toString(failed) + " of the block group being written failed, and " + code.name()
          + " cannot rebuild those from the others";
      LOG.warn("ec-repair: {}; aborting the stream and recovering the file's lease", why);
      try {
        EcRepairWriteAccess.abort(dfsos);
      } catch (IOException e) {
        LOG.debug("aborting {}", EcRepairWriteAccess.path(dfsos), e);
      }
      try {
        if (!EcRepairWriteAccess.recoverLease(client, dfsos)) {
          LOG.warn("ec-repair: {} now names another file; the NameNode recovers the aborted one when its lease "
              + "expires", EcRepairWriteAccess.path(dfsos));
        }
      } catch (IOException e) {
        LOG.warn("ec-repair: could not start the lease recovery of {} ({}); the NameNode recovers it when the "
            + "lease expires", EcRepairWriteAccess.path(dfsos), e.toString());
      }
      failure = new IOException(why + "; the file keeps the stripes written before that can be rebuilt");
      throw failure;
    }

    boolean failed() {
      return failure != null;
    }

    void rethrow() throws IOException {
      if (failure != null) {
        throw failure;
      }
    }

    boolean streamClosed() {
      return EcRepairWriteAccess.isClosed(dfsos);
    }

    void flushQueued() throws IOException {
      EcRepairWriteAccess.flushQueued(dfsos);
    }
  }

  /** HDFS's output stream, checked after each piece it writes and before it closes. */
  private static final class Guarded extends HdfsDataOutputStream {
    private final long stripe;
    private final Check check;
    private boolean closed;

    Guarded(DFSOutputStream out, FileSystem.Statistics stats, long start, long stripe, Check check)
        throws IOException {
      super(out, stats, start);
      this.stripe = stripe;
      this.check = check;
    }

    Guarded(CryptoOutputStream out, FileSystem.Statistics stats, long start, long stripe, Check check)
        throws IOException {
      super(out, stats, start);
      this.stripe = stripe;
      this.check = check;
    }

    @Override
    public synchronized void write(int b) throws IOException {
      check.rethrow();
      super.write(b);
      if (getPos() % stripe == 0) {
        check.run();
      }
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) throws IOException {
      check.rethrow();
      while (len > 0) {
        int piece = (int) Math.min(len, stripe - getPos() % stripe);
        super.write(b, off, piece);
        check.run();
        off += piece;
        len -= piece;
      }
    }

    @Override
    public synchronized void close() throws IOException {
      if (check.failed()) {
        // Aborted by the check, which already threw why: close still frees the stream's threads
        // and coder, and says nothing more.
        try {
          super.close();
        } catch (IOException alreadyReported) {
          // the abort's own "lease timeout"
        }
        return;
      }
      if (closed || check.streamClosed()) {
        // Closed before (by the writer, or failed by HDFS): HDFS's close of a closed stream says
        // whether it failed, every time it is asked.
        super.close();
        return;
      }
      closed = true;
      // Packets still queued can meet failures: have them acknowledged before checking, so the
      // close only commits what the check saw (its last partial stripe's parity excepted).
      try {
        check.flushQueued();
        check.run();
      } catch (IOException e) {
        try {
          super.close();
        } catch (IOException alsoFailed) {
          e.addSuppressed(alsoFailed);
        }
        throw e;
      }
      super.close();
    }
  }
}
