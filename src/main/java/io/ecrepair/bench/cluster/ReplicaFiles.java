package io.ecrepair.bench.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.hadoop.util.DataChecksum;

/**
 * Internal block replicas as files in a DataNode's data directory ({@code .../finalized/.../blk_<id>}).
 * All DataNodes run on this machine, so the bench compares a rebuilt replica with the lost
 * original byte for byte (through a digest) without another network read.
 */
public final class ReplicaFiles {
  private ReplicaFiles() {}

  /** The finalized replica file of block {@code blockId} under {@code dataDir}, if there is one. */
  public static Optional<Path> find(Path dataDir, long blockId) throws IOException {
    if (!Files.isDirectory(dataDir)) {
      return Optional.empty();
    }
    String name = "blk_" + blockId;
    for (int attempt = 1; ; attempt++) {
      try (Stream<Path> walk = Files.walk(dataDir)) {
        return walk.filter(p -> p.getFileName().toString().equals(name))
            .filter(p -> p.toString().contains("/finalized/")).findFirst();
      } catch (NoSuchFileException | UncheckedIOException e) {
        // The running DataNode deleted a file or directory the walk had listed; walk again.
        boolean vanished = e instanceof NoSuchFileException || e.getCause() instanceof NoSuchFileException;
        if (!vanished || attempt == 3) {
          throw e;
        }
      }
    }
  }

  /** SHA-256 of the finalized replica of {@code blockId} under {@code dataDir}; empty when there is none (or it just went). */
  public static Optional<String> digestOf(Path dataDir, long blockId) throws IOException {
    Optional<Path> file = find(dataDir, blockId);
    return file.isEmpty() ? Optional.empty() : digestIfThere(file.get());
  }

  /** SHA-256 of a replica file, hex; empty when its DataNode deleted it since it was listed. */
  public static Optional<String> digestIfThere(Path file) throws IOException {
    try {
      return Optional.of(digest(file));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }

  /**
   * Rewrites the stored checksums of a replica (its {@code blk_<id>_<stamp>.meta} beside it) to
   * match its bytes as they are now: a replica whose wrong bytes no checksum can catch.
   */
  public static void rewriteChecksums(Path blockFile) throws IOException {
    String prefix = blockFile.getFileName() + "_";
    Path meta;
    try (Stream<Path> beside = Files.list(blockFile.getParent())) {
      meta = beside.filter(p -> p.getFileName().toString().startsWith(prefix) && p.toString().endsWith(".meta"))
          .findFirst().orElseThrow(() -> new NoSuchFileException(blockFile + "'s .meta"));
    }
    byte[] bytes = Files.readAllBytes(blockFile);
    try (FileChannel ch = FileChannel.open(meta, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      // The header: a 2-byte version, then the checksum type (1 byte) and bytes per checksum (4).
      ByteBuffer header = ByteBuffer.allocate(7);
      while (header.hasRemaining() && ch.read(header) >= 0) {
        // until the header is in
      }
      DataChecksum sum = DataChecksum.newDataChecksum(header.array(), 2);
      if (sum == null) {
        throw new IOException(meta + " does not start with a checksum header");
      }
      int chunks = (bytes.length + sum.getBytesPerChecksum() - 1) / sum.getBytesPerChecksum();
      ByteBuffer sums = ByteBuffer.allocate(chunks * sum.getChecksumSize());
      sum.calculateChunkedSums(ByteBuffer.wrap(bytes), sums);
      ch.write(sums, header.capacity());
    }
  }

  /** SHA-256 of the file, hex. */
  public static String digest(Path file) throws IOException {
    MessageDigest md;
    try {
      md = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    byte[] buf = new byte[1 << 20];
    try (InputStream in = Files.newInputStream(file)) {
      int n;
      while ((n = in.read(buf)) > 0) {
        md.update(buf, 0, n);
      }
    }
    return HexFormat.of().formatHex(md.digest());
  }
}
