package io.ecrepair.layout;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/** Positional reads and writes of whole regions, which FileChannel leaves to callers. */
final class FileChannels {
  private FileChannels() {}

  /** Reads len bytes at position pos into buf[0, len). */
  static void readFully(FileChannel ch, ByteBuffer buf, long pos, int len, Path what) throws IOException {
    ByteBuffer b = buf.duplicate().position(0).limit(len);
    while (b.hasRemaining()) {
      int got = ch.read(b, pos + b.position());
      if (got < 0) {
        throw new EOFException(what + " ended at " + (pos + b.position()) + ", expected " + (pos + len) + " bytes");
      }
    }
  }

  /** Appends buf[0, len). */
  static void writeFully(FileChannel ch, ByteBuffer buf, int len) throws IOException {
    ByteBuffer b = buf.duplicate().position(0).limit(len);
    while (b.hasRemaining()) {
      ch.write(b);
    }
  }

  static void closeAll(FileChannel[] channels) throws IOException {
    IOException first = null;
    for (FileChannel c : channels) {
      if (c == null) {
        continue;
      }
      try {
        c.close();
      } catch (IOException e) {
        first = first == null ? e : first;
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
