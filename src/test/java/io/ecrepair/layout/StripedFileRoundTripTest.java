package io.ecrepair.layout;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.UndecodableException;
import io.ecrepair.gf.RegionCoders;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StripedFileRoundTripTest {
  @TempDir
  Path tmp;

  private static final Policy RS_3_2 = Policy.parse("RS-3-2-1k");

  private Path randomFile(String name, int size, long seed) throws IOException {
    byte[] b = new byte[size];
    new Random(seed).nextBytes(b);
    Path p = tmp.resolve(name);
    Files.write(p, b);
    return p;
  }

  private static StripedFileEncoder encoder(Policy p, long blockSize) {
    return new StripedFileEncoder(p, blockSize, p.code().create(RegionCoders.best()));
  }

  private static StripedFileDecoder decoder() {
    return new StripedFileDecoder(spec -> spec.create(RegionCoders.best()));
  }

  @Test
  void everyLossPatternUpToMDecodesEveryFileShape() throws IOException {
    // Sizes: empty, under one cell, a partial stripe, exactly one group, several groups with a partial last row.
    int[] sizes = {0, 1, 700, 1024, 2500, 3 * 1024, 4 * 3 * 1024, 4 * 3 * 1024 + 1, 30_000};
    for (int size : sizes) {
      Path in = randomFile("in" + size, size, size);
      Path dir = tmp.resolve("enc" + size);
      Manifest m = encoder(RS_3_2, 4 * 1024).encode(in, dir, x -> { });
      assertEquals(size, m.fileLength());
      for (int mask = 0; mask < 1 << 5; mask++) {
        if (Integer.bitCount(mask) > 2) {
          continue;
        }
        Path copy = tmp.resolve("copy" + size + "_" + mask);
        Files.createDirectories(copy);
        for (Path f : Files.list(dir).toList()) {
          String name = f.getFileName().toString();
          boolean lost = name.startsWith("g") && (mask & 1 << Integer.parseInt(name.substring(name.indexOf("_b") + 2))) != 0;
          if (!lost) {
            Files.copy(f, copy.resolve(name));
          }
        }
        Path out = tmp.resolve("out" + size + "_" + mask);
        StripedFileDecoder.Result r = decoder().decode(copy, out, false, x -> { });
        assertArrayEquals(Files.readAllBytes(in), Files.readAllBytes(out), "size " + size + " lost mask " + mask);
        assertEquals(Integer.bitCount(mask) * m.groups(), r.missing().size());
      }
    }
  }

  @Test
  void tooManyLossesIsAClearErrorAndWritesNothing() throws IOException {
    Path in = randomFile("in", 5000, 1);
    Path dir = tmp.resolve("enc");
    encoder(RS_3_2, 4096).encode(in, dir, x -> { });
    Files.delete(dir.resolve("g0_b0"));
    Files.delete(dir.resolve("g0_b1"));
    Files.delete(dir.resolve("g0_b4"));
    Path out = tmp.resolve("out");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> decoder().decode(dir, out, false, x -> { }));
    assertTrue(e.getMessage().contains("block group 0 has lost 3"), e.getMessage());
    assertFalse(Files.exists(out));
  }

  @Test
  void truncatedBlockIsRefusedAndExistingOutputKept() throws IOException {
    Path in = randomFile("in", 5000, 2);
    Path dir = tmp.resolve("enc");
    encoder(RS_3_2, 4096).encode(in, dir, x -> { });
    byte[] b = Files.readAllBytes(dir.resolve("g0_b2"));
    Files.write(dir.resolve("g0_b2"), java.util.Arrays.copyOf(b, b.length - 1));
    Path out = tmp.resolve("out");
    Files.writeString(out, "precious");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> decoder().decode(dir, out, true, x -> { }));
    assertTrue(e.getMessage().contains("truncated"), e.getMessage());
    assertEquals("precious", Files.readString(out));
  }

  @Test
  void existingOutputNeedsForce() throws IOException {
    Path in = randomFile("in", 3000, 3);
    Path dir = tmp.resolve("enc");
    encoder(RS_3_2, 4096).encode(in, dir, x -> { });
    Path out = tmp.resolve("out");
    Files.writeString(out, "precious");
    assertThrows(IllegalArgumentException.class, () -> decoder().decode(dir, out, false, x -> { }));
    assertEquals("precious", Files.readString(out));
    decoder().decode(dir, out, true, x -> { });
    assertArrayEquals(Files.readAllBytes(in), Files.readAllBytes(out));
  }

  @Test
  void manifestThatDoesNotMatchTheFilesIsRefused() throws IOException {
    Path in = randomFile("in", 3000, 4);
    Path dir = tmp.resolve("enc");
    encoder(RS_3_2, 4096).encode(in, dir, x -> { });
    String manifest = Files.readString(dir.resolve(Manifest.FILE_NAME));
    Files.writeString(dir.resolve(Manifest.FILE_NAME), manifest.replace("\"fileLength\" : 3000", "\"fileLength\" : 3001"));
    assertThrows(IllegalArgumentException.class, () -> decoder().decode(dir, tmp.resolve("o1"), false, x -> { }));
    Files.writeString(dir.resolve(Manifest.FILE_NAME), "{ not json");
    assertThrows(IllegalArgumentException.class, () -> decoder().decode(dir, tmp.resolve("o2"), false, x -> { }));
    Files.delete(dir.resolve(Manifest.FILE_NAME));
    assertThrows(IllegalArgumentException.class, () -> decoder().decode(dir, tmp.resolve("o3"), false, x -> { }));
    assertFalse(Files.exists(tmp.resolve("o1")) || Files.exists(tmp.resolve("o2")) || Files.exists(tmp.resolve("o3")));
  }

  @Test
  void encodeRefusesANonEmptyOutputDirectory() throws IOException {
    Path in = randomFile("in", 3000, 5);
    Path dir = tmp.resolve("enc");
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("keep"), "mine");
    assertThrows(IllegalArgumentException.class, () -> encoder(RS_3_2, 4096).encode(in, dir, x -> { }));
    assertEquals("mine", Files.readString(dir.resolve("keep")));
    assertEquals(1, Files.list(dir).count());
  }

  @Test
  void theCodeRefusesToGuessWithTooFewUnits() {
    var code = RS_3_2.code().create(RegionCoders.best());
    var units = new java.nio.ByteBuffer[5];
    units[0] = java.nio.ByteBuffer.allocate(8);
    units[4] = java.nio.ByteBuffer.allocate(8);
    assertThrows(UndecodableException.class, () -> code.decode(units, new int[5], new int[] {1},
        new java.nio.ByteBuffer[] {java.nio.ByteBuffer.allocate(8)}, new int[1], 8));
  }
}
