package io.ecrepair.layout;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.codes.RepairableCode;
import io.ecrepair.gf.Buffers;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.LongConsumer;

/**
 * Rebuilds a file from whatever internal blocks of an {@code encode} directory remain.
 * Missing block files are treated as lost; a block file of the wrong length is refused (it
 * is damaged, and decoding from it would give wrong bytes). The output appears only when
 * the whole file decoded: it is written to a temporary file and moved into place.
 */
public final class StripedFileDecoder {

  /** What decoding found and did. */
  public record Result(Manifest manifest, List<Manifest.BlockEntry> missing, long bytesRead) {}

  private final Function<CodeSpec, RepairableCode> codes;

  public StripedFileDecoder(Function<CodeSpec, RepairableCode> codes) {
    this.codes = codes;
  }

  public Result decode(Path inDir, Path outFile, boolean overwrite, LongConsumer progress) throws IOException {
    Manifest manifest = Manifest.read(inDir);
    StripedLayout layout = manifest.validatedLayout();
    Policy policy = Policy.parse(manifest.policy());
    List<Manifest.BlockEntry> missing = findMissing(inDir, manifest);
    RepairableCode code = codes.apply(policy.code());
    checkDecodable(policy, code, manifest, missing);
    if (Files.exists(outFile) && !overwrite) {
      throw new IllegalArgumentException("output " + outFile + " exists; refusing to overwrite it (use --force)");
    }
    Path parent = outFile.toAbsolutePath().getParent();
    Files.createDirectories(parent);
    Path tmp = Files.createTempFile(parent, "." + outFile.getFileName(), ".ec-repair-tmp");
    try {
      long read = write(inDir, manifest, layout, code, missing, tmp, progress);
      Files.move(tmp, outFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      return new Result(manifest, missing, read);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  private static List<Manifest.BlockEntry> findMissing(Path dir, Manifest manifest) throws IOException {
    List<Manifest.BlockEntry> missing = new ArrayList<>();
    for (Manifest.BlockEntry b : manifest.blocks()) {
      Path f = dir.resolve(b.file());
      if (!Files.exists(f)) {
        missing.add(b);
      } else if (Files.size(f) != b.length()) {
        throw new IllegalArgumentException("internal block " + b.file() + " has " + Files.size(f) + " bytes but the manifest says "
            + b.length() + " (truncated or damaged); move it away to decode without it");
      }
    }
    return missing;
  }

  private static void checkDecodable(Policy policy, RepairableCode code, Manifest manifest,
                                     List<Manifest.BlockEntry> missing) {
    for (int g = 0; g < manifest.groups(); g++) {
      final int group = g;
      List<Manifest.BlockEntry> lost = missing.stream().filter(b -> b.group() == group).toList();
      if (!code.decodable(lost.stream().mapToInt(Manifest.BlockEntry::index).toArray())) {
        throw new IllegalArgumentException("block group " + g + " has lost " + lost.size() + " internal blocks "
            + lost.stream().map(Manifest.BlockEntry::file).toList() + "; " + policy.name() + " cannot rebuild them"
            + " (it always rebuilds " + policy.code().faultTolerance() + ")");
      }
    }
  }

  private static long write(Path dir, Manifest manifest, StripedLayout layout, RepairableCode code,
                            List<Manifest.BlockEntry> missing, Path out, LongConsumer progress) throws IOException {
    int n = layout.totalUnits();
    int k = layout.dataUnits();
    ByteBuffer[] cells = new ByteBuffer[n];
    ByteBuffer[] rebuilt = new ByteBuffer[k];
    for (int i = 0; i < n; i++) {
      cells[i] = Buffers.alignedDirect(layout.cellSize());
    }
    for (int i = 0; i < k; i++) {
      rebuilt[i] = Buffers.alignedDirect(layout.cellSize());
    }
    int[] zeros = new int[n];
    long bytesRead = 0;
    long done = 0;
    try (FileChannel output = FileChannel.open(out, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
      for (int g = 0; g < manifest.groups(); g++) {
        long groupLength = layout.groupLength(manifest.fileLength(), g);
        boolean[] lost = new boolean[n];
        for (Manifest.BlockEntry b : missing) {
          if (b.group() == g) {
            lost[b.index()] = true;
          }
        }
        int[] wanted = lostDataUnits(lost, k);
        int[] sources = unitsToRead(code, lost, wanted);
        FileChannel[] in = new FileChannel[n];
        Sha256[] sha = new Sha256[n];
        try {
          for (int i : sources) {
            in[i] = FileChannel.open(dir.resolve(Manifest.blockFileName(g, i)), StandardOpenOption.READ);
            sha[i] = new Sha256();
          }
          for (int i : wanted) {
            sha[i] = new Sha256();
          }
          for (int r = 0; r < layout.rowCount(groupLength); r++) {
            int codingLength = layout.codingLength(groupLength, r);
            ByteBuffer[] units = new ByteBuffer[n];
            for (int i : sources) {
              int len = layout.cellLength(groupLength, r, i);
              FileChannels.readFully(in[i], cells[i], layout.blockOffset(r), len, dir.resolve(Manifest.blockFileName(g, i)));
              sha[i].update(cells[i], len);
              Buffers.zero(cells[i], len, codingLength);
              units[i] = cells[i];
              bytesRead += len;
            }
            if (wanted.length > 0) {
              ByteBuffer[] outs = new ByteBuffer[wanted.length];
              for (int w = 0; w < wanted.length; w++) {
                outs[w] = rebuilt[wanted[w]];
              }
              code.decode(units, zeros, wanted, outs, new int[wanted.length], codingLength);
            }
            for (int w = 0; w < wanted.length; w++) {
              sha[wanted[w]].update(rebuilt[wanted[w]], layout.cellLength(groupLength, r, wanted[w]));
            }
            for (int i = 0; i < k; i++) {
              FileChannels.writeFully(output, lost[i] ? rebuilt[i] : cells[i], layout.cellLength(groupLength, r, i));
            }
            done += layout.rowLength(groupLength, r);
            progress.accept(done);
          }
          checkDigests(manifest, g, n, sources, wanted, sha);
        } finally {
          FileChannels.closeAll(in);
        }
      }
      output.force(false);
    }
    return bytesRead;
  }

  /**
   * Every block file read must be the one encoded (the output is still a temporary file), and so
   * must every rebuilt data block: a wrong byte from any source or the decoder stops here.
   */
  private static void checkDigests(Manifest manifest, int g, int n, int[] sources, int[] wanted, Sha256[] sha) {
    for (int i : sources) {
      Manifest.checkDigest(manifest.entry(g, i, n), sha[i].hex(), "decode");
    }
    for (int i : wanted) {
      Manifest.BlockEntry b = manifest.entry(g, i, n);
      if (!b.sha256().equals(sha[i].hex())) {
        throw new IllegalStateException("decoded internal block " + b.file() + " does not match its SHA-256 in the "
            + "manifest though every block file read did; nothing was written (please report this)");
      }
    }
  }

  /**
   * The surviving units to read whole: every present data unit (it is output), plus what
   * rebuilding the lost data units needs. A scalar code names its cheapest read set (its repair
   * graph's leaves are whole units: LRC reads a local group); a vector code decodes whole cells
   * from any k units (it is MDS), so the present data units are topped up with parity units.
   */
  private static int[] unitsToRead(RepairableCode code, boolean[] lost, int[] wanted) {
    java.util.TreeSet<Integer> read = new java.util.TreeSet<>();
    for (int i = 0; i < code.dataUnits(); i++) {
      if (!lost[i]) {
        read.add(i);
      }
    }
    if (wanted.length == 0) {
      return read.stream().mapToInt(Integer::intValue).toArray();
    }
    if (code.subPacketization() == 1) {
      int[] available = java.util.stream.IntStream.range(0, lost.length).filter(i -> !lost[i]).toArray();
      code.repairGraph(wanted, available).leaves().forEach(v -> read.add(v.block()));
    } else {
      for (int i = code.dataUnits(); i < lost.length && read.size() < code.dataUnits(); i++) {
        if (!lost[i]) {
          read.add(i);
        }
      }
    }
    return read.stream().mapToInt(Integer::intValue).toArray();
  }

  private static int[] lostDataUnits(boolean[] lost, int k) {
    return java.util.stream.IntStream.range(0, k).filter(i -> lost[i]).toArray();
  }
}
