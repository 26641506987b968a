package io.ecrepair.layout;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.codes.RepairableCode;
import io.ecrepair.exec.CellRowRepair;
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
 * Rebuilds one internal block index of every block group of an {@code encode} directory,
 * reading only what the code's repair graph needs: per cell row, the leaf sub-chunks of the
 * graph (contiguous runs of sub-chunks read at once), plus the tail bytes where the row
 * length is not a multiple of alpha. Reports the byte ranges read from every helper.
 */
public final class StripedBlockRepairer {

  /** What one group's repair read. */
  public record GroupReport(int group, long bytesRead, Map<Integer, ByteRanges> reads) {}

  /** The whole repair. */
  public record Result(Manifest manifest, int lost, List<GroupReport> groups, long bytesRead, long lostBytes) {}

  private final RegionCoder coder;

  public StripedBlockRepairer(RegionCoder coder) {
    this.coder = coder;
  }

  public Result repair(Path dir, int lost, boolean overwrite, LongConsumer progress) throws IOException {
    Manifest manifest = Manifest.read(dir);
    StripedLayout layout = manifest.validatedLayout();
    CodeSpec spec = Policy.parse(manifest.policy()).code();
    if (lost < 0 || lost >= spec.n()) {
      throw new IllegalArgumentException("--lost " + lost + " is not an internal block index of " + manifest.policy()
          + " (0.." + (spec.n() - 1) + ")");
    }
    RepairableCode code = spec.create(coder);
    List<GroupReport> reports = new ArrayList<>();
    long bytesRead = 0;
    long lostBytes = 0;
    for (int g = 0; g < manifest.groups(); g++) {
      GroupReport r = repairGroup(dir, manifest, layout, code, g, lost, overwrite);
      reports.add(r);
      bytesRead += r.bytesRead();
      lostBytes += layout.internalBlockLength(layout.groupLength(manifest.fileLength(), g), lost);
      progress.accept(g + 1L);
    }
    return new Result(manifest, lost, reports, bytesRead, lostBytes);
  }

  private GroupReport repairGroup(Path dir, Manifest manifest, StripedLayout layout, RepairableCode code, int g,
                                  int lost, boolean overwrite) throws IOException {
    long groupLength = layout.groupLength(manifest.fileLength(), g);
    Path target = dir.resolve(Manifest.blockFileName(g, lost));
    if (Files.exists(target) && !overwrite) {
      throw new IllegalArgumentException(target.getFileName() + " exists; delete it or use --force to rebuild it");
    }
    int[] available = availableUnits(dir, manifest, layout, g, lost);
    CellRowRepair repair = CellRowRepair.plan(code, new int[] {lost}, available);
    int n = layout.totalUnits();
    Map<Integer, ByteRanges> reads = new TreeMap<>();
    FileChannel[] in = new FileChannel[n];
    ByteBuffer[] cells = new ByteBuffer[n];
    Path tmp = Files.createTempFile(dir, "." + target.getFileName(), ".ec-repair-tmp");
    try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
      ByteBuffer rebuilt = Buffers.alignedDirect(layout.cellSize());
      ByteBuffer[] outputs = {rebuilt};
      for (int r = 0; r < layout.rowCount(groupLength); r++) {
        int lostLength = layout.cellLength(groupLength, r, lost);
        if (lostLength == 0) {
          continue;
        }
        int codingLength = layout.codingLength(groupLength, r);
        RowReader rows = new RowReader(dir, g, r, layout, groupLength, in, cells, reads);
        for (int unit : repair.helpers()) {
          for (int[] range : repair.ranges(unit, codingLength)) {
            rows.readRun(unit, range[0], range[1]);
          }
        }
        repair.run(coder, cells, outputs, codingLength);
        BlockFiles.writeFully(out, rebuilt, lostLength);
      }
      out.force(false);
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(tmp);
      throw e;
    } finally {
      BlockFiles.closeAll(in);
    }
    Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    long total = reads.values().stream().mapToLong(ByteRanges::total).sum();
    return new GroupReport(g, total, reads);
  }

  /** Every other unit whose block file is present with the length the manifest gives. */
  private static int[] availableUnits(Path dir, Manifest manifest, StripedLayout layout, int g, int lost)
      throws IOException {
    List<Integer> ok = new ArrayList<>();
    for (Manifest.BlockEntry b : manifest.blocks()) {
      if (b.group() != g || b.index() == lost) {
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
    private final StripedLayout layout;
    private final long groupLength;
    private final FileChannel[] in;
    private final ByteBuffer[] cells;
    private final Map<Integer, ByteRanges> reads;

    RowReader(Path dir, int group, int row, StripedLayout layout, long groupLength, FileChannel[] in,
              ByteBuffer[] cells, Map<Integer, ByteRanges> reads) {
      this.dir = dir;
      this.group = group;
      this.row = row;
      this.layout = layout;
      this.groupLength = groupLength;
      this.in = in;
      this.cells = cells;
      this.reads = reads;
    }

    /** Reads [from, from + length) of unit {@code block}'s cell, zero beyond the stored cell. */
    void readRun(int block, int from, int length) throws IOException {
      if (cells[block] == null) {
        cells[block] = Buffers.alignedDirect(layout.cellSize());
      }
      int stored = layout.cellLength(groupLength, row, block);
      int readable = Math.max(0, Math.min(length, stored - from));
      if (readable > 0) {
        if (in[block] == null) {
          in[block] = FileChannel.open(dir.resolve(Manifest.blockFileName(group, block)), StandardOpenOption.READ);
        }
        ByteBuffer dst = cells[block].duplicate().position(from).slice();
        long fileOffset = layout.blockOffset(row) + from;
        BlockFiles.readFully(in[block], dst, fileOffset, readable, dir.resolve(Manifest.blockFileName(group, block)));
        reads.computeIfAbsent(block, b -> new ByteRanges()).add(fileOffset, readable);
      }
      BlockFiles.zero(cells[block], from + readable, from + length);
    }
  }

  /** Per-helper reads as JSON-friendly maps. */
  public static Map<String, List<long[]>> readsAsJson(Map<Integer, ByteRanges> reads) {
    Map<String, List<long[]>> m = new HashMap<>();
    reads.forEach((k, v) -> m.put(Integer.toString(k), v.ranges()));
    return new TreeMap<>(m);
  }
}
