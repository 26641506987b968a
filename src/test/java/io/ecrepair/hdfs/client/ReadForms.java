package io.ecrepair.hdfs.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.Random;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FsShell;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.ToolRunner;

/**
 * Every way a client reads a file, each compared byte for byte with the original: positional
 * reads (byte[] and ByteBuffer, readFully and single reads), stateful reads after seek and skip
 * in random chunk sizes (byte[], heap and direct ByteBuffers), a whole sequential read,
 * {@code openFile()}, and the shell's {@code -cat} and {@code -get}.
 */
final class ReadForms {
  private final FileSystem fs;
  private final Random random;
  private final int cell;

  ReadForms(FileSystem fs, long seed, int cell) {
    this.fs = fs;
    this.random = new Random(seed);
    this.cell = cell;
  }

  /** Random (offset, length) reads of every form; {@code what} names the case in failures. */
  void all(Path file, byte[] data, String what) throws Exception {
    try (FSDataInputStream in = fs.open(file)) {
      for (int i = 0; i < 4; i++) {
        int[] r = range(data.length);
        byte[] got = new byte[r[1]];
        in.readFully(r[0], got);
        assertRange(data, r[0], got, what + " pread readFully");
      }
      int[] r = range(data.length);
      byte[] got = new byte[r[1]];
      int n = in.read(r[0], got, 0, got.length);
      assertRange(data, r[0], Arrays.copyOf(got, n), what + " pread read");

      ByteBuffer direct = ByteBuffer.allocateDirect(range(data.length)[1]);
      int at = range(data.length)[0];
      direct.limit(Math.min(direct.capacity(), data.length - at));
      in.readFully(at, direct);
      direct.flip();
      assertRange(data, at, bytes(direct), what + " ByteBuffer pread");

      r = range(data.length);
      in.seek(r[0]);
      assertRange(data, r[0], stateful(in, r[1], false), what + " seek + read");
      in.seek(0);
      long skip = random.nextInt(data.length);
      assertEquals(skip, in.skip(skip));
      assertRange(data, (int) skip, stateful(in, Math.min(2 * cell, data.length - (int) skip), true),
          what + " skip + ByteBuffer read");
      in.seek(0);
      byte[] whole = new byte[data.length];
      in.readFully(whole);
      assertArrayEquals(data, whole, what + " sequential readFully");
    }
    try (FSDataInputStream in = fs.openFile(file).build().get()) {
      int[] r = range(data.length);
      in.seek(r[0]);
      assertRange(data, r[0], stateful(in, r[1], false), what + " openFile()");
    }
  }

  /** {@code hdfs dfs -get} and {@code -cat} through FsShell with the client's configuration. */
  void shell(Path file, byte[] data, java.nio.file.Path localDir, String what) throws Exception {
    java.nio.file.Path local = localDir.resolve("get-" + random.nextInt(1 << 30));
    assertEquals(0, ToolRunner.run(new FsShell(fs.getConf()), new String[] {"-get", fs.makeQualified(file).toString(),
        local.toString()}), what + " -get");
    assertArrayEquals(data, Files.readAllBytes(local), what + " -get");
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream old = System.out;
    int rc;
    System.setOut(new PrintStream(captured, true));
    try {
      rc = ToolRunner.run(new FsShell(fs.getConf()), new String[] {"-cat", fs.makeQualified(file).toString()});
    } finally {
      System.setOut(old);
    }
    assertEquals(0, rc, what + " -cat");
    assertArrayEquals(data, captured.toByteArray(), what + " -cat");
  }

  /** Reads {@code length} bytes from the stream's position in random chunks. */
  private byte[] stateful(FSDataInputStream in, int length, boolean byteBuffers) throws Exception {
    byte[] out = new byte[length];
    int done = 0;
    while (done < length) {
      int chunk = Math.min(length - done, 1 + random.nextInt(Math.max(1, cell + cell / 2)));
      int n;
      if (byteBuffers) {
        ByteBuffer b = random.nextBoolean() ? ByteBuffer.allocate(chunk) : ByteBuffer.allocateDirect(chunk);
        n = in.read(b);
        b.flip();
        if (n > 0) {
          b.get(out, done, n);
        }
      } else {
        n = in.read(out, done, chunk);
      }
      if (n < 0) {
        throw new AssertionError("early end of stream at " + done + " of " + length);
      }
      done += n;
    }
    return out;
  }

  /** A random (offset, length) inside the file, lengths from 1 byte to about two cells. */
  private int[] range(int fileLength) {
    int offset = random.nextInt(fileLength);
    int maxLength = Math.min(fileLength - offset, 2 * cell + 100);
    int length = random.nextInt(4) == 0 ? 1 + random.nextInt(Math.min(maxLength, 64)) : 1 + random.nextInt(maxLength);
    return new int[] {offset, length};
  }

  static void assertRange(byte[] data, int offset, byte[] got, String what) {
    byte[] want = Arrays.copyOfRange(data, offset, offset + got.length);
    if (!Arrays.equals(want, got)) {
      int i = Arrays.mismatch(want, got);
      throw new AssertionError(what + ": wrong byte at file offset " + (offset + i) + " (read of " + got.length
          + " bytes at " + offset + ")");
    }
  }

  private static byte[] bytes(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.get(out);
    return out;
  }
}
