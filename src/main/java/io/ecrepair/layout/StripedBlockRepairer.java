package io.ecrepair.layout;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.codes.RepairableCode;
import io.ecrepair.exec.CellRowRepair;
import io.ecrepair.exec.RowLoop;
import io.ecrepair.gf.Buffers;
import io.ecrepair.gf.RegionCoder;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongConsumer;

/**
 * Rebuilds one or several internal block indices of every block group of an {@code encode} directory,
 * reading only what the code's repair graph needs: per cell row, the leaf sub-chunks of the
 * graph (contiguous runs of sub-chunks read at once), plus the tail bytes where the row
 * length is not a multiple of alpha. Reports the byte ranges read from every helper.
 */
public final class StripedBlockRepairer {

  /** What one group's repair read. */
  public record GroupReport(int group, long bytesRead, Map<Integer, ByteRanges> reads) {}

  /** The whole repair; {@code lost} is sorted. */
  public record Result(Manifest manifest, int[] lost, List<GroupReport> groups, long bytesRead, long lostBytes) {}

  private final RegionCoder coder;

  public StripedBlockRepairer(RegionCoder coder) {
    this.coder = coder;
  }

  /** Rebuilds one internal block index of every group. */
  public Result repair(Path dir, int lost, boolean overwrite, LongConsumer progress) throws IOException {
    return repair(dir, new int[] {lost}, overwrite, progress);
  }

  /**
   * Rebuilds several internal block indices of every group together, from one repair graph
   * (e.g. Clay's repair of several nodes, cheaper than rebuilding them one by one).
   */
  public Result repair(Path dir, int[] lostIndices, boolean overwrite, LongConsumer progress) throws IOException {
    Manifest manifest = Manifest.read(dir);
    StripedLayout layout = manifest.validatedLayout();
    CodeSpec spec = Policy.parse(manifest.policy()).code();
    int[] lost = java.util.Arrays.stream(lostIndices).distinct().sorted().toArray();
    if (lost.length == 0) {
      throw new IllegalArgumentException("--lost names no internal block");
    }
    for (int l : lost) {
      if (l < 0 || l >= spec.n()) {
        throw new IllegalArgumentException("--lost " + l + " is not an internal block index of " + manifest.policy()
            + " (0.." + (spec.n() - 1) + ")");
      }
    }
    RepairableCode code = spec.create(coder);
    List<GroupReport> reports = new ArrayList<>();
    long bytesRead = 0;
    long lostBytes = 0;
    Map<Path, Path> rebuiltFiles = new java.util.LinkedHashMap<>(); // temporary file -> block file
    try {
      for (int g = 0; g < manifest.groups(); g++) {
        GroupReport r = repairGroup(dir, manifest, layout, code, g, lost, overwrite, rebuiltFiles);
        reports.add(r);
        bytesRead += r.bytesRead();
        for (int l : lost) {
          lostBytes += layout.internalBlockLength(layout.groupLength(manifest.fileLength(), g), l);
        }
        progress.accept(g + 1L);
      }
      // Every group rebuilt and checked: only now does any block file appear.
      for (Map.Entry<Path, Path> f : rebuiltFiles.entrySet()) {
        Files.move(f.getKey(), f.getValue(), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      }
    } finally {
      for (Path t : rebuiltFiles.keySet()) {
        Files.deleteIfExists(t);
      }
    }
    return new Result(manifest, lost, reports, bytesRead, lostBytes);
  }

  /** Rebuilds group g's lost blocks into temporary files (added to {@code rebuiltFiles}) and checks their digests. */
  private GroupReport repairGroup(Path dir, Manifest manifest, StripedLayout layout, RepairableCode code, int g,
                                  int[] lost, boolean overwrite, Map<Path, Path> rebuiltFiles) throws IOException {
    GroupLayout geometry = new GroupLayout(layout, layout.groupLength(manifest.fileLength(), g));
    Path[] targets = new Path[lost.length];
    for (int i = 0; i < lost.length; i++) {
      targets[i] = dir.resolve(Manifest.blockFileName(g, lost[i]));
      if (Files.exists(targets[i]) && !overwrite) {
        throw new IllegalArgumentException(targets[i].getFileName() + " exists; delete it or use --force to rebuild it");
      }
    }
    int[] available = availableUnits(dir, manifest, g, lost);
    CellRowRepair repair = CellRowRepair.plan(code, lost, available);
    int n = layout.totalUnits();
    Map<Integer, ByteRanges> reads = new TreeMap<>();
    FileChannel[] in = new FileChannel[n];
    ByteBuffer[] cells = new ByteBuffer[n];
    FileChannel[] out = new FileChannel[lost.length];
    ByteBuffer[] rebuilt = new ByteBuffer[lost.length];
    Sha256[] sha = new Sha256[lost.length];
    try {
      for (int i = 0; i < lost.length; i++) {
        Path tmp = Files.createTempFile(dir, "." + targets[i].getFileName(), ".ec-repair-tmp");
        rebuiltFiles.put(tmp, targets[i]);
        out[i] = FileChannel.open(tmp, StandardOpenOption.WRITE);
        rebuilt[i] = Buffers.alignedDirect(layout.cellSize());
        sha[i] = new Sha256();
      }
      runRows(geometry.rows(), new RowLoop.Rows() {
        @Override
        public RowLoop.Step gather(int r) throws IOException {
          if (!RepairReads.holdsBytes(geometry, r, lost)) {
            return null;
          }
          int codingLength = geometry.codingLength(r);
          RowReader rows = new RowReader(dir, g, r, geometry, in, cells, reads);
          for (int unit : repair.helpers()) {
            rows.read(unit, repair.ranges(unit, codingLength));
          }
          return new RowLoop.Step(repair, cells, rebuilt, codingLength);
        }

        @Override
        public void rebuilt(int r, RowLoop.Step step) throws IOException {
          for (int i = 0; i < lost.length; i++) {
            int len = geometry.cellLength(r, lost[i]);
            FileChannels.writeFully(out[i], rebuilt[i], len);
            sha[i].update(rebuilt[i], len);
          }
        }
      });
      for (FileChannel o : out) {
        o.force(false);
      }
    } finally {
      FileChannels.closeAll(in);
      FileChannels.closeAll(out);
    }
    for (int i = 0; i < lost.length; i++) {
      checkRebuilt(dir, manifest, g, n, manifest.entry(g, lost[i], n), sha[i].hex(), repair.helpers());
    }
    long total = reads.values().stream().mapToLong(ByteRanges::total).sum();
    return new GroupReport(g, total, reads);
  }

  /**
   * A rebuilt block must be the one encoded. The repair reads only parts of its helpers, so
   * their digests cannot be checked as they are read; a helper file that was swapped or damaged
   * where the repair read it makes the rebuilt block's digest wrong, and then the helpers are
   * hashed whole to name the culprit.
   */
  private static void checkRebuilt(Path dir, Manifest manifest, int g, int n, Manifest.BlockEntry target, String digest,
                                   int[] helpers) throws IOException {
    if (target.sha256().equals(digest)) {
      return;
    }
    for (int h : helpers) {
      Manifest.BlockEntry helper = manifest.entry(g, h, n);
      Manifest.checkDigest(helper, Sha256.ofFile(dir.resolve(helper.file())), "repair");
    }
    throw new IllegalStateException("rebuilt internal block " + target.file() + " does not match its SHA-256 in the "
        + "manifest though every helper does; nothing was written (please report this)");
  }

  private void runRows(int rows, RowLoop.Rows work) throws IOException {
    try {
      new RowLoop(coder).run(0, rows, work);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted while repairing");
    }
  }

  /** Every other unit whose block file is present with the length the manifest gives. */
  private static int[] availableUnits(Path dir, Manifest manifest, int g, int[] lost) throws IOException {
    List<Integer> ok = new ArrayList<>();
    for (Manifest.BlockEntry b : manifest.blocks()) {
      if (b.group() != g || java.util.Arrays.binarySearch(lost, b.index()) >= 0) {
        continue;
      }
      Path f = dir.resolve(b.file());
      if (!Files.exists(f)) {
        continue;
      }
      if (Files.size(f) != b.length()) {
        throw new IllegalArgumentException("internal block " + b.file() + " has " + Files.size(f)
            + " bytes but the manifest says " + b.length() + " (truncated or damaged); move it away to repair without it");
      }
      ok.add(b.index());
    }
    return ok.stream().mapToInt(Integer::intValue).toArray();
  }

  /**
   * Reads one cell row's needed ranges (runs of contiguous sub-chunks, CellRowRepair): one
   * positional read per range, zero beyond the stored cell.
   */
  private static final class RowReader {
    private final Path dir;
    private final int group;
    private final int row;
    private final GroupLayout layout;
    private final FileChannel[] in;
    private final ByteBuffer[] cells;
    private final Map<Integer, ByteRanges> reads;

    RowReader(Path dir, int group, int row, GroupLayout layout, FileChannel[] in, ByteBuffer[] cells,
              Map<Integer, ByteRanges> reads) {
      this.dir = dir;
      this.group = group;
      this.row = row;
      this.layout = layout;
      this.in = in;
      this.cells = cells;
      this.reads = reads;
    }

    /** Reads {@code ranges} of unit {@code block}'s cell, zero beyond the stored cell. */
    void read(int block, List<int[]> ranges) throws IOException {
      if (cells[block] == null) {
        cells[block] = Buffers.alignedDirect(layout.cellSize());
      }
      int stored = layout.cellLength(row, block);
      Path file = dir.resolve(Manifest.blockFileName(group, block));
      for (long[] r : RowLoop.storedRanges(ranges, layout.blockOffset(row), stored)) {
        if (in[block] == null) {
          in[block] = FileChannel.open(file, StandardOpenOption.READ);
        }
        int inCell = (int) (r[0] - layout.blockOffset(row));
        FileChannels.readFully(in[block], cells[block].duplicate().position(inCell).slice(), r[0], (int) r[1], file);
        reads.computeIfAbsent(block, b -> new ByteRanges()).add(r[0], r[1]);
      }
      RowLoop.zeroPastStored(cells[block], ranges, stored);
    }
  }

  /** Per-helper reads as JSON-friendly maps. */
  public static Map<String, List<long[]>> readsAsJson(Map<Integer, ByteRanges> reads) {
    Map<String, List<long[]>> m = new HashMap<>();
    reads.forEach((k, v) -> m.put(Integer.toString(k), v.ranges()));
    return new TreeMap<>(m);
  }
}
