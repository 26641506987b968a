package io.ecrepair.layout;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** The SHA-256 digest of a block file, taken as its cells go by, in the manifest's hex form. */
final class Sha256 {
  private final MessageDigest digest;

  Sha256() {
    try {
      digest = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JVM has no SHA-256", e);
    }
  }

  /** Adds buf[0, len). */
  void update(ByteBuffer buf, int len) {
    digest.update(buf.duplicate().position(0).limit(len));
  }

  String hex() {
    return HexFormat.of().formatHex(digest.digest());
  }

  static String ofFile(Path file) throws IOException {
    Sha256 d = new Sha256();
    ByteBuffer buf = ByteBuffer.allocate(1 << 20);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      while (ch.read(buf.clear()) >= 0) {
        d.update(buf, buf.position());
      }
    }
    return d.hex();
  }
}
