package io.ecrepair.layout;

import io.ecrepair.codes.ErasureCode;
import io.ecrepair.gf.Buffers;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.function.LongConsumer;

/**
 * Lays a local file out exactly as HDFS stores it under a policy: one file per internal
 * block ({@code g<group>_b<index>}) plus {@link Manifest} with each block file's digest. Works one cell row at a time, so
 * memory is n cells whatever the file size.
 */
public final class StripedFileEncoder {
  private final Policy policy;
  private final StripedLayout layout;
  private final ErasureCode code;

  public StripedFileEncoder(Policy policy, long blockSize, ErasureCode code) {
    this.policy = policy;
    this.layout = new StripedLayout(policy, blockSize);
    this.code = code;
  }

  /**
   * Encodes {@code input} into the new or empty directory {@code outDir}. On failure the
   * files written so far are removed; an existing non-empty directory is never touched.
   *
   * @param progress told the number of input bytes done so far
   */
  public Manifest encode(Path input, Path outDir, LongConsumer progress) throws IOException {
    if (!Files.isRegularFile(input)) {
      throw new IllegalArgumentException("input " + input + " is not a readable file");
    }
    boolean created = OutputDirs.claimEmpty(outDir);
    try {
      Manifest manifest = write(input, outDir, progress);
      manifest.write(outDir);
      return manifest;
    } catch (IOException | RuntimeException e) {
      OutputDirs.removeWritten(outDir, created);
      throw e;
    }
  }

  private Manifest write(Path input, Path outDir, LongConsumer progress) throws IOException {
    int n = layout.totalUnits();
    int k = layout.dataUnits();
    ByteBuffer[] units = new ByteBuffer[n];
    for (int i = 0; i < n; i++) {
      units[i] = Buffers.alignedDirect(layout.cellSize());
    }
    ByteBuffer[] data = java.util.Arrays.copyOf(units, k);
    ByteBuffer[] parity = java.util.Arrays.copyOfRange(units, k, n);
    int[] dataOff = new int[k];
    int[] parityOff = new int[n - k];
    try (FileChannel in = FileChannel.open(input, StandardOpenOption.READ)) {
      long fileLength = in.size();
      Manifest manifest = Manifest.of(policy, layout, fileLength);
      String[][] digests = new String[manifest.groups()][n];
      long done = 0;
      for (int g = 0; g < layout.groupCount(fileLength); g++) {
        long groupLength = layout.groupLength(fileLength, g);
        FileChannel[] out = new FileChannel[n];
        Sha256[] sha = new Sha256[n];
        try {
          for (int i = 0; i < n; i++) {
            out[i] = FileChannel.open(outDir.resolve(Manifest.blockFileName(g, i)),
                StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            sha[i] = new Sha256();
          }
          for (int r = 0; r < layout.rowCount(groupLength); r++) {
            int codingLength = layout.codingLength(groupLength, r);
            for (int i = 0; i < k; i++) {
              int len = layout.cellLength(groupLength, r, i);
              FileChannels.readFully(in, data[i], layout.fileOffset(g, r, i), len, input);
              Buffers.zero(data[i], len, codingLength);
            }
            code.encode(data, dataOff, parity, parityOff, codingLength);
            for (int i = 0; i < n; i++) {
              int len = layout.cellLength(groupLength, r, i);
              FileChannels.writeFully(out[i], units[i], len);
              sha[i].update(units[i], len);
            }
            done += layout.rowLength(groupLength, r);
            progress.accept(done);
          }
          for (int i = 0; i < n; i++) {
            digests[g][i] = sha[i].hex();
          }
        } finally {
          FileChannels.closeAll(out);
        }
      }
      if (in.size() != fileLength) {
        throw new IOException("input " + input + " changed size while being encoded");
      }
      return manifest.withDigests(digests);
    }
  }
}
