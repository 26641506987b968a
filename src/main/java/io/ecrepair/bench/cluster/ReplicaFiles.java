package io.ecrepair.bench.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;
import java.util.stream.Stream;

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
    try (Stream<Path> walk = Files.walk(dataDir)) {
      return walk.filter(p -> p.getFileName().toString().equals(name))
          .filter(p -> p.toString().contains("/finalized/")).findFirst();
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
