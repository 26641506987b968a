package io.ecrepair.hdfs.admin;

import io.ecrepair.codes.RepairableCode;
import io.ecrepair.exec.CellRowRepair;
import io.ecrepair.gf.RegionCoders;
import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.hdfs.client.ClientConnector;
import io.ecrepair.hdfs.transfer.BlockRangeReader;
import io.ecrepair.hdfs.transfer.RangeListener;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.LongConsumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.ChecksumException;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.hdfs.DFSClient;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlocks;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.util.StripedBlockUtil;
import org.apache.hadoop.io.erasurecode.CodecUtil;
import org.apache.hadoop.io.erasurecode.ErasureCoderOptions;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureDecoder;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureEncoder;

/**
 * Re-encodes every cell row of a file's block groups from the data blocks as they are stored
 * and compares the result with the stored parity blocks, with the raw coder HDFS itself uses
 * for the policy's codec (so every codec, ours and HDFS's, is checked the same way), whole
 * cells at a time (vector codes define parity per cell). Bytes come through HDFS block reads
 * with their stored checksums verified; a replica that fails its checksum is reported to the
 * NameNode, as HDFS's own readers do.
 */
public final class StripeVerifier {
  /** Bytes read per internal block at a time (whole cells): bounds memory at about n times this. */
  private static final int BATCH_BYTES = 4 << 20;

  /** The outcome for one block group: "ok", "mismatch", "corrupt" (a checksum failed), "unreadable" or "skipped". */
  public record GroupResult(String file, String policy, int group, String block, long length, String outcome,
                            String detail) {
    public boolean ok() {
      return outcome.equals("ok");
    }

    /** Whether the check found bad bytes (as opposed to passing or being unable to look). */
    public boolean bad() {
      return outcome.equals("mismatch") || outcome.equals("corrupt");
    }
  }

  private final DistributedFileSystem fs;
  private final Configuration conf;

  public StripeVerifier(DistributedFileSystem fs, Configuration conf) {
    this.fs = fs;
    this.conf = conf;
  }

  /** Verifies every group of an erasure-coded file; {@code progress} gets the bytes read so far (cumulative). */
  public List<GroupResult> verify(FileStatus file, LongConsumer progress) throws IOException {
    DFSClient client = fs.getClient();
    String path = file.getPath().toUri().getPath();
    LocatedBlocks blocks = client.getLocatedBlocks(path, 0, file.getLen());
    ErasureCodingPolicy policy = blocks.getErasureCodingPolicy();
    if (policy == null) {
      throw new IllegalArgumentException(path + " is not erasure-coded");
    }
    ErasureCoderOptions options = new ErasureCoderOptions(policy.getNumDataUnits(), policy.getNumParityUnits());
    RawErasureEncoder encoder = CodecUtil.createRawEncoder(conf, policy.getCodecName(), options);
    RawErasureDecoder decoder = CodecUtil.createRawDecoder(conf, policy.getCodecName(), options);
    try {
      List<GroupResult> out = new ArrayList<>();
      long[] read = {0};
      LongConsumer counted = b -> progress.accept(read[0] += b);
      List<LocatedBlock> groups = blocks.getLocatedBlocks();
      for (int g = 0; g < groups.size(); g++) {
        out.add(new GroupCheck(client, path, policy, encoder, decoder, g, (LocatedStripedBlock) groups.get(g), counted)
            .run());
      }
      return out;
    } finally {
      encoder.release();
      decoder.release();
    }
  }

  /** One block group, read in batches of whole cell rows. */
  private static final class GroupCheck {
    private final DFSClient client;
    private final String path;
    private final ErasureCodingPolicy policy;
    private final RawErasureEncoder encoder;
    private final RawErasureDecoder decoder;
    private final int group;
    private final LocatedStripedBlock located;
    private final LongConsumer progress;
    private final int k;
    private final int n;
    private final int cell;
    private final long groupLength;
    private final LocatedBlock[] internal;
    /** Further replicas of a unit (the NameNode lists each on its own): their checksums are read too. */
    private final List<LocatedBlock> duplicates = new ArrayList<>();
    private final List<Integer> duplicateUnits = new ArrayList<>();

    GroupCheck(DFSClient client, String path, ErasureCodingPolicy policy, RawErasureEncoder encoder,
               RawErasureDecoder decoder, int group, LocatedStripedBlock located, LongConsumer progress) {
      this.client = client;
      this.path = path;
      this.policy = policy;
      this.encoder = encoder;
      this.decoder = decoder;
      this.group = group;
      this.located = located;
      this.progress = progress;
      this.k = policy.getNumDataUnits();
      this.n = k + policy.getNumParityUnits();
      this.cell = policy.getCellSize();
      this.groupLength = located.getBlockSize();
      this.internal = new LocatedBlock[n];
      for (int i = 0; i < located.getBlockIndices().length && i < located.getLocations().length; i++) {
        int unit = located.getBlockIndices()[i];
        if (unit < n && internal[unit] == null) {
          internal[unit] = StripedBlockUtil.constructInternalBlock(located, i, cell, k, unit);
        } else if (unit < n) {
          duplicates.add(StripedBlockUtil.constructInternalBlock(located, i, cell, k, unit));
          duplicateUnits.add(unit);
        }
      }
    }

    GroupResult run() throws IOException {
      List<Integer> missingData = new ArrayList<>();
      List<Integer> parity = new ArrayList<>();
      for (int u = 0; u < n; u++) {
        boolean readable = internal[u] != null || length(u) == 0;
        if (u < k && !readable) {
          missingData.add(u);
        } else if (u >= k && readable) {
          parity.add(u);
        }
      }
      int[] decodeFrom = decodeFrom(missingData, parity);
      if (decodeFrom == null) {
        return result("skipped", "data block(s) " + missingData + " cannot be decoded from the readable blocks");
      }
      List<Integer> checked = new ArrayList<>(parity);
      for (int u : decodeFrom) {
        checked.remove((Integer) u);
      }
      if (checked.isEmpty()) {
        return result("skipped", missingData.isEmpty() ? "no parity block is readable"
            : "data block(s) " + missingData + " unavailable: decoding them takes every readable parity block, none "
                + "is left to check (verify again once HDFS has rebuilt them)");
      }
      Check check = check(missingData, decodeFrom, checked);
      long rows = (groupLength + (long) k * cell - 1) / ((long) k * cell);
      int batchRows = Math.max(1, BATCH_BYTES / cell);
      ByteBuffer[] batch = new ByteBuffer[n];
      for (int u = 0; u < n; u++) {
        batch[u] = ByteBuffer.allocateDirect((int) Math.min((long) batchRows * cell, rows * cell));
      }
      List<BlockRangeReader> readers = new ArrayList<>();
      try {
        BlockRangeReader[] reader = new BlockRangeReader[n];
        for (int u = 0; u < n; u++) {
          if (internal[u] != null && length(u) > 0) {
            reader[u] = new BlockRangeReader(new ClientConnector(client, internal[u]),
                internal[u].getLocations()[0], internal[u].getBlock(), counting());
            readers.add(reader[u]);
          }
        }
        for (long r0 = 0; r0 < rows; r0 += batchRows) {
          int count = (int) Math.min(batchRows, rows - r0);
          for (int u = 0; u < n; u++) {
            String failed = readBatch(reader[u], u, r0, count, batch[u]);
            if (failed != null) {
              return failed.startsWith("corrupt") ? result("corrupt", failed.substring(8)) : result("unreadable", failed);
            }
          }
          for (int r = 0; r < count; r++) {
            String mismatch = checkRow(r0 + r, r, batch, check);
            if (mismatch != null) {
              return result("mismatch", locate(r0 + r, r, batch, missingData, parity).orElse(mismatch
                  + "; which block holds the wrong bytes cannot be told from the blocks there are"));
            }
          }
        }
      } finally {
        readers.forEach(BlockRangeReader::close);
      }
      String duplicate = checkDuplicates();
      if (duplicate != null) {
        return result("corrupt", duplicate);
      }
      return result("ok", checked.size() == n - k ? null : "checked parity block(s) " + checked
          + (missingData.isEmpty() ? "" : "; data block(s) " + missingData + " unavailable, decoded from parity "
              + java.util.Arrays.toString(decodeFrom)));
    }

    /** The check that decodes {@code missingData} from {@code decodeFrom} and compares {@code checked}. */
    private Check check(List<Integer> missingData, int[] decodeFrom, List<Integer> checked) {
      int[] missing = missingData.stream().mapToInt(Integer::intValue).toArray();
      CellRowRepair decode = null;
      if (missing.length > 0 && RepairCatalog.owns(policy, true)) {
        java.util.TreeSet<Integer> from = new java.util.TreeSet<>();
        for (int u = 0; u < k; u++) {
          from.add(u);
        }
        missingData.forEach(from::remove);
        java.util.Arrays.stream(decodeFrom).forEach(from::add);
        decode = CellRowRepair.plan(RepairCatalog.code(RepairCatalog.spec(policy)), missing,
            from.stream().mapToInt(Integer::intValue).toArray());
      }
      return new Check(missing, decodeFrom, checked.stream().mapToInt(Integer::intValue).toArray(), decode);
    }

    /**
     * Finds the one block whose bytes in the mismatching row disagree with all the others and
     * reports its replica to the NameNode as corrupt, so HDFS rebuilds it (its stored checksums
     * match its wrong bytes, so no reader would). A block is the culprit when the row is
     * consistent without it; when no block or several are (two blocks wrong, or too few parity
     * blocks to tell), nothing is reported.
     */
    private Optional<String> locate(long row, int r, ByteBuffer[] batch, List<Integer> missingData,
                                    List<Integer> parity) throws IOException {
      List<Integer> culprits = new ArrayList<>();
      List<Long> offsets = new ArrayList<>();
      for (int u = 0; u < n; u++) {
        if (internal[u] == null || length(u) <= row * cell) {
          continue; // not read, or holds nothing in this row
        }
        List<Integer> missingWithout = new ArrayList<>(missingData);
        List<Integer> parityWithout = new ArrayList<>(parity);
        if (u < k) {
          missingWithout.add(u);
        } else {
          parityWithout.remove((Integer) u);
        }
        int[] from = decodeFrom(missingWithout, parityWithout);
        if (from == null) {
          continue;
        }
        List<Integer> checkedWithout = new ArrayList<>(parityWithout);
        for (int p : from) {
          checkedWithout.remove((Integer) p);
        }
        Check without = check(missingWithout, from, checkedWithout);
        if (!checkedWithout.isEmpty() && checkRow(row, r, batch, without) == null) {
          culprits.add(u);
          offsets.add(row * cell + stored(row, r, batch, u).mismatch(coded(row, r, batch, without)[u]));
        }
      }
      if (culprits.size() != 1) {
        return Optional.empty();
      }
      int u = culprits.get(0);
      client.reportBadBlocks(new LocatedBlock[] {internal[u]});
      return Optional.of("internal block " + u + " on " + internal[u].getLocations()[0].getXferAddr()
          + " holds bytes the other blocks contradict in cell row " + row + " (block offset " + offsets.get(0)
          + "), though its checksums match them (reported to the NameNode as corrupt)");
    }

    /**
     * Reads every further replica of a unit with its checksums: a corrupt copy nobody reads
     * still holds a DataNode, and HDFS places no rebuilt unit of the group there. Null, or the
     * first that failed (reported to the NameNode). A copy that cannot be read is left to HDFS.
     */
    private String checkDuplicates() throws IOException {
      for (int i = 0; i < duplicates.size(); i++) {
        int u = duplicateUnits.get(i);
        LocatedBlock copy = duplicates.get(i);
        if (length(u) == 0) {
          continue;
        }
        BlockRangeReader reader = new BlockRangeReader(new ClientConnector(client, copy), copy.getLocations()[0],
            copy.getBlock(), counting());
        try {
          reader.read(List.of(new long[] {0, length(u)}), (offset, data) -> { });
        } catch (ChecksumException e) {
          client.reportBadBlocks(new LocatedBlock[] {copy});
          return "internal block " + u + " (another replica) on " + reader.source().getXferAddr()
              + " failed its checksum at offset " + e.getPos() + " (reported to the NameNode)";
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted while verifying " + path);
        } catch (IOException e) {
          // unreadable now (its DataNode went away): not a verdict on the group
        } finally {
          reader.close();
        }
      }
      return null;
    }

    /** Reads rows [r0, r0+count) of unit u into {@code into} (zeros past its stored bytes); null or why it failed. */
    private String readBatch(BlockRangeReader reader, int u, long r0, int count, ByteBuffer into) throws IOException {
      long from = r0 * cell;
      long to = Math.max(from, Math.min(length(u), (r0 + count) * cell));
      // Past its stored bytes a cell is zeros for coding (HDFS pads a group's last row).
      zero(into, (int) (to - from), count * cell);
      if (reader == null || to == from) {
        return null;
      }
      try {
        reader.read(List.of(new long[] {from, to - from}), (offset, data) -> {
          ByteBuffer at = into.duplicate();
          at.position((int) (offset - from));
          at.put(data);
        });
        return null;
      } catch (ChecksumException e) {
        client.reportBadBlocks(new LocatedBlock[] {internal[u]});
        return "corrupt internal block " + u + " on " + reader.source().getXferAddr()
            + " failed its checksum at offset " + e.getPos() + " (reported to the NameNode)";
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while verifying " + path);
      } catch (IOException e) {
        return "cannot read internal block " + u + " from " + reader.source().getXferAddr() + ": " + e.getMessage();
      }
    }

    /**
     * Which data blocks are decoded from which parity blocks, and which parity blocks are
     * compared. {@code decode}: for a codec of ours, its decoding of whole cells (a vector code's
     * Hadoop decoder refuses to decode, since HDFS hands it partial cells); null for HDFS's own
     * codecs, decoded by Hadoop's raw decoder.
     */
    private record Check(int[] missingData, int[] decodeFrom, int[] checked, CellRowRepair decode) {}

    /**
     * Parity blocks to decode the missing data blocks from (as many as there are missing, the
     * lowest indices that the code can decode from; empty when none is missing), or null.
     */
    private int[] decodeFrom(List<Integer> missingData, List<Integer> parity) {
      int e = missingData.size();
      if (e > parity.size()) {
        return null;
      }
      Optional<RepairableCode> code = RepairCatalog.owns(policy, true)
          ? Optional.of(RepairCatalog.code(RepairCatalog.spec(policy))) : Optional.empty();
      for (int[] chosen : subsets(parity, e)) {
        List<Integer> unused = new ArrayList<>(missingData);
        for (int u = k; u < n; u++) {
          if (!contains(chosen, u)) {
            unused.add(u);
          }
        }
        int[] lost = unused.stream().mapToInt(Integer::intValue).sorted().toArray();
        // A codec HDFS owns (RS, XOR) is MDS: any k blocks decode.
        if (code.map(c -> c.decodable(lost)).orElse(true)) {
          return chosen;
        }
      }
      return null;
    }

    /** Encodes row {@code row} (index {@code r} in the batch) and compares its parity; null or the difference. */
    private String checkRow(long row, int r, ByteBuffer[] batch, Check check) throws IOException {
      ByteBuffer[] coded = coded(row, r, batch, check);
      for (int unit : check.checked()) {
        int at = stored(row, r, batch, unit).mismatch(coded[unit]);
        if (at >= 0) {
          return "parity block " + unit + " differs from the re-encoded data in cell row " + row + " (block offset "
              + (row * cell + at) + ")";
        }
      }
      return null;
    }

    /** Unit {@code unit}'s stored bytes of row {@code row} (index {@code r} in the batch), as far as the row codes. */
    private ByteBuffer stored(long row, int r, ByteBuffer[] batch, int unit) {
      return slice(batch[unit], r * cell, codingLength(row));
    }

    private int codingLength(long row) {
      return (int) Math.min(cell, Math.min((long) k * cell, groupLength - row * k * cell));
    }

    /**
     * Row {@code row} as the code gives it from the check's inputs: the n cells, data as stored
     * or decoded, parity encoded from that data.
     */
    private ByteBuffer[] coded(long row, int r, ByteBuffer[] batch, Check check) throws IOException {
      int codingLength = codingLength(row);
      ByteBuffer[] cells = new ByteBuffer[n];
      for (int u = 0; u < k; u++) {
        cells[u] = stored(row, r, batch, u);
      }
      if (check.missingData().length > 0) {
        ByteBuffer[] inputs = new ByteBuffer[n];
        for (int u = 0; u < k; u++) {
          inputs[u] = contains(check.missingData(), u) ? null : stored(row, r, batch, u);
        }
        for (int u : check.decodeFrom()) {
          inputs[u] = stored(row, r, batch, u);
        }
        ByteBuffer[] decoded = new ByteBuffer[check.missingData().length];
        for (int i = 0; i < decoded.length; i++) {
          decoded[i] = ByteBuffer.allocateDirect(codingLength);
        }
        if (check.decode() != null) {
          check.decode().run(RegionCoders.best(), inputs, decoded, codingLength);
        } else {
          decoder.decode(inputs, check.missingData(), decoded);
        }
        for (int i = 0; i < decoded.length; i++) {
          cells[check.missingData()[i]] = decoded[i].position(0).limit(codingLength);
        }
      }
      ByteBuffer[] parity = new ByteBuffer[n - k];
      for (int j = 0; j < parity.length; j++) {
        parity[j] = ByteBuffer.allocateDirect(codingLength);
      }
      encoder.encode(java.util.Arrays.copyOf(cells, k), parity);
      for (int j = 0; j < parity.length; j++) {
        cells[k + j] = parity[j].position(0).limit(codingLength);
      }
      for (int u = 0; u < k; u++) {
        cells[u] = cells[u].duplicate().position(0).limit(codingLength); // the encoder moved their positions
      }
      return cells;
    }

    private static boolean contains(int[] units, int u) {
      for (int x : units) {
        if (x == u) {
          return true;
        }
      }
      return false;
    }

    /** The subsets of {@code size} of {@code from}, in lexicographic order of positions. */
    private static List<int[]> subsets(List<Integer> from, int size) {
      List<int[]> out = new ArrayList<>();
      int[] pick = new int[size];
      collect(from, size, 0, 0, pick, out);
      return out;
    }

    private static void collect(List<Integer> from, int size, int start, int depth, int[] pick, List<int[]> out) {
      if (depth == size) {
        out.add(pick.clone());
        return;
      }
      for (int i = start; i < from.size(); i++) {
        pick[depth] = from.get(i);
        collect(from, size, i + 1, depth + 1, pick, out);
      }
    }

    private static void zero(ByteBuffer b, int from, int to) {
      for (int i = from; i < to; i++) {
        b.put(i, (byte) 0);
      }
    }

    private RangeListener counting() {
      return progress::accept;
    }

    private long length(int unit) {
      return StripedBlockUtil.getInternalBlockLength(groupLength, cell, k, unit);
    }

    private static ByteBuffer slice(ByteBuffer b, int offset, int length) {
      ByteBuffer d = b.duplicate();
      d.limit(offset + length).position(offset);
      return d.slice();
    }

    private GroupResult result(String outcome, String detail) {
      return new GroupResult(path, policy.getName(), group, located.getBlock().getLocalBlock().getBlockName(),
          groupLength, outcome, detail);
    }
  }
}
