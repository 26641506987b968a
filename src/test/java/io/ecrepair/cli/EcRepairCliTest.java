package io.ecrepair.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EcRepairCliTest {
  @TempDir
  Path tmp;

  record Run(int code, String out, String err) {
    JsonNode json() throws Exception {
      return new ObjectMapper().readTree(out);
    }
  }

  static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = EcRepairCli.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
    return new Run(code, out.toString(), err.toString());
  }

  /** Bad input: non-zero exit, exactly one line on stderr, nothing on stdout. */
  static void assertOneLineError(Run r, String expectedFragment) {
    assertNotEquals(0, r.code());
    assertEquals("", r.out());
    String[] lines = r.err().strip().split("\n");
    assertEquals(1, lines.length, "one line, got: " + r.err());
    assertTrue(lines[0].contains(expectedFragment), lines[0]);
  }

  @Test
  void infoPrintsTheParameters() throws Exception {
    Run r = run("info", "--policy", "RS-10-4-1024k", "--json");
    assertEquals(0, r.code(), r.err());
    JsonNode j = r.json();
    assertEquals("RS-10-4-1024k", j.get("policy").asText());
    assertEquals(14, j.get("n").asInt());
    assertEquals(10, j.get("k").asInt());
    assertEquals(4, j.get("m").asInt());
    assertEquals(1, j.get("alpha").asInt());
    assertEquals(1048576, j.get("subChunkBytes").asInt());
    assertEquals(10.0, j.get("repairBlocksPerLostBlock").asDouble());
    assertEquals(4, j.get("faultTolerance").asInt());
    assertEquals(1.4, j.get("storageOverhead").asDouble(), 1e-9);
    Run text = run("info", "--policy", "RS-6-3-1024k", "--cell", "65536");
    assertEquals(0, text.code());
    assertTrue(text.out().contains("RS-6-3-64k"), text.out());
  }

  @Test
  void badPoliciesAreOneLineErrors() {
    assertOneLineError(run("info", "--policy", "NOPE-6-3-1024k"), "unknown codec");
    assertOneLineError(run("info", "--policy", "RS-12-5-1024k"), "exceeds 16");
    assertOneLineError(run("info", "--policy", "RS-6-3-1024k", "--cell", "1000"), "multiple of 1024");
    assertOneLineError(run("info", "--policy", "RS-6-3"), "CODEC-k-m");
    assertOneLineError(run("info"), "--policy");
    assertOneLineError(run("frobnicate"), "Unmatched argument");
    assertOneLineError(run("bench", "coder", "--op", "explode"), "unknown --op");
  }

  @Test
  void encodeThenDecodeWithLostBlocks() throws Exception {
    byte[] data = new byte[300_000];
    new Random(9).nextBytes(data);
    Path in = tmp.resolve("in.bin");
    Files.write(in, data);
    Path dir = tmp.resolve("enc");
    Run enc = run("encode", "--policy", "RS-6-3-64k", "--input", in.toString(), "--output", dir.toString(),
        "--block-size", "131072", "--json");
    assertEquals(0, enc.code(), enc.err());
    JsonNode j = enc.json();
    assertEquals("RS-6-3-64k", j.get("policy").asText());
    assertEquals(300_000, j.get("fileLength").asLong());
    assertEquals(1, j.get("groups").asInt()); // 6 x 128 KiB = 768 KiB per group
    assertEquals(9, j.get("blocks").size());
    Set<String> fields = new HashSet<>();
    j.get("blocks").get(0).fieldNames().forEachRemaining(fields::add);
    assertEquals(Set.of("group", "index", "file", "length", "sha256"), fields);
    for (JsonNode b : j.get("blocks")) {
      assertEquals(b.get("length").asLong(), Files.size(dir.resolve(b.get("file").asText())));
      assertEquals(sha256(dir.resolve(b.get("file").asText())), b.get("sha256").asText());
    }

    Files.delete(dir.resolve("g0_b0"));
    Files.delete(dir.resolve("g0_b3"));
    Files.delete(dir.resolve("g0_b7"));
    Path out = tmp.resolve("out.bin");
    Run dec = run("decode", "--input", dir.toString(), "--output", out.toString(), "--json");
    assertEquals(0, dec.code(), dec.err());
    assertArrayEquals(data, Files.readAllBytes(out));
    assertEquals(3, dec.json().get("missing").size());
    assertEquals(6, dec.json().get("blocks").size());

    // A fourth loss is beyond RS-6-3: one line, and the existing output is left alone.
    Files.delete(dir.resolve("g0_b1"));
    Run bad = run("decode", "--input", dir.toString(), "--output", out.toString(), "--force");
    assertOneLineError(bad, "cannot rebuild them");
    assertArrayEquals(data, Files.readAllBytes(out));
  }

  @Test
  void repairRebuildsTheLostBlockAndReportsWhatItRead() throws Exception {
    // RS-6-3-64k, block 128 KiB: 2 full groups and a partial third one.
    byte[] data = new byte[2 * 6 * 131072 + 70_000];
    new Random(17).nextBytes(data);
    Path in = tmp.resolve("in.bin");
    Files.write(in, data);
    Path dir = tmp.resolve("enc");
    assertEquals(0, run("encode", "--policy", "RS-6-3-64k", "--input", in.toString(), "--output", dir.toString(),
        "--block-size", "131072").code());
    for (int lost : new int[] {1, 7}) {
      byte[][] original = new byte[3][];
      for (int g = 0; g < 3; g++) {
        original[g] = Files.readAllBytes(dir.resolve("g" + g + "_b" + lost));
        Files.delete(dir.resolve("g" + g + "_b" + lost));
      }
      Run r = run("repair", "--input", dir.toString(), "--lost", "" + lost, "--json");
      assertEquals(0, r.code(), r.err());
      JsonNode j = r.json();
      long lostBytes = 0;
      for (int g = 0; g < 3; g++) {
        assertArrayEquals(original[g], Files.readAllBytes(dir.resolve("g" + g + "_b" + lost)), "group " + g);
        lostBytes += original[g].length;
      }
      assertEquals(lostBytes, j.get("lostBytes").asLong());
      assertEquals("centralized", j.get("strategy").asText());
      // Full groups: RS reads exactly k = 6 helpers' whole blocks.
      for (int g = 0; g < 2; g++) {
        JsonNode group = j.get("groups").get(g);
        assertEquals(6L * original[g].length, group.get("bytesRead").asLong());
        long summed = 0;
        var helpers = group.get("reads").fieldNames();
        int count = 0;
        while (helpers.hasNext()) {
          String h = helpers.next();
          assertNotEquals(String.valueOf(lost), h, "never reads the lost block");
          for (JsonNode range : group.get("reads").get(h)) {
            summed += range.get(1).asLong();
          }
          count++;
        }
        assertEquals(6, count);
        assertEquals(group.get("bytesRead").asLong(), summed, "ranges add up");
      }
    }
    // Refusals: an existing block without --force, a bad index.
    assertOneLineError(run("repair", "--input", dir.toString(), "--lost", "1"), "exists");
    assertOneLineError(run("repair", "--input", dir.toString(), "--lost", "9", "--force"), "not an internal block index");
    assertOneLineError(run("repair", "--input", dir.toString(), "--lost", "1", "--strategy", "magic"), "unknown --strategy");
  }

  @Test
  void lrcRepairReadsItsLocalGroupOnly() throws Exception {
    Run info = run("info", "--policy", "LRC-L2-12-4-1024k", "--json");
    assertEquals(0, info.code(), info.err());
    assertEquals(6.0, info.json().get("repairBlocksPerLostBlock").asDouble());
    assertEquals(3, info.json().get("faultTolerance").asInt());
    assertEquals(2, info.json().get("localGroups").asInt());
    assertEquals(6, info.json().get("groupSize").asInt());
    assertEquals(2, info.json().get("globalParities").asInt());

    // LRC(12,2,2) with 64 KiB cells, block 128 KiB: one full group of 12 x 128 KiB.
    byte[] data = new byte[12 * 131072];
    new Random(23).nextBytes(data);
    Path in = tmp.resolve("in.bin");
    Files.write(in, data);
    Path dir = tmp.resolve("lrc");
    assertEquals(0, run("encode", "--policy", "LRC-L2-12-4-64k", "--input", in.toString(), "--output", dir.toString(),
        "--block-size", "131072").code());
    byte[] original = Files.readAllBytes(dir.resolve("g0_b3"));
    Files.delete(dir.resolve("g0_b3"));
    Run r = run("repair", "--input", dir.toString(), "--lost", "3", "--json");
    assertEquals(0, r.code(), r.err());
    assertArrayEquals(original, Files.readAllBytes(dir.resolve("g0_b3")));
    JsonNode g = r.json().get("groups").get(0);
    // r = 6 reads: the five other data blocks of group 0 and its local parity (index 12).
    assertEquals(6L * original.length, r.json().get("bytesRead").asLong());
    Set<String> helpers = new HashSet<>();
    g.get("reads").fieldNames().forEachRemaining(helpers::add);
    assertEquals(Set.of("0", "1", "2", "4", "5", "12"), helpers);

    // Four lost blocks: {0, 1, 6, 7} decode with LRC(12,2,2), {0, 1, 2, 3} do not.
    for (int i : new int[] {0, 1, 6, 7}) {
      Files.delete(dir.resolve("g0_b" + i));
    }
    Run ok = run("decode", "--input", dir.toString(), "--output", tmp.resolve("back").toString());
    assertEquals(0, ok.code(), ok.err());
    assertArrayEquals(data, Files.readAllBytes(tmp.resolve("back")));
    Path dir2 = tmp.resolve("lrc2");
    assertEquals(0, run("encode", "--policy", "LRC-L2-12-4-64k", "--input", in.toString(), "--output", dir2.toString(),
        "--block-size", "131072").code());
    for (int i : new int[] {0, 1, 2, 3}) {
      Files.delete(dir2.resolve("g0_b" + i));
    }
    assertOneLineError(run("decode", "--input", dir2.toString(), "--output", tmp.resolve("back2").toString()),
        "cannot rebuild them");
  }

  @Test
  void clayRepairReadsThirteenQuartersOfTheLostBlock() throws Exception {
    Run info = run("info", "--policy", "CLAY-10-4-1024k", "--json");
    assertEquals(0, info.code(), info.err());
    assertEquals(256, info.json().get("alpha").asInt());
    assertEquals(3.25, info.json().get("repairBlocksPerLostBlock").asDouble());

    // CLAY-10-4 with 64 KiB cells (sub-chunks of 256 bytes), blocks of two cells, one full group.
    byte[] data = new byte[10 * 131072];
    new Random(29).nextBytes(data);
    Path in = tmp.resolve("in.bin");
    Files.write(in, data);
    Path dir = tmp.resolve("clay");
    assertEquals(0, run("encode", "--policy", "CLAY-10-4-64k", "--input", in.toString(), "--output", dir.toString(),
        "--block-size", "131072").code());
    for (int lost : new int[] {0, 5, 11}) {
      byte[] original = Files.readAllBytes(dir.resolve("g0_b" + lost));
      Files.delete(dir.resolve("g0_b" + lost));
      Run r = run("repair", "--input", dir.toString(), "--lost", "" + lost, "--json");
      assertEquals(0, r.code(), r.err());
      assertArrayEquals(original, Files.readAllBytes(dir.resolve("g0_b" + lost)), "unit " + lost);
      assertEquals(original.length * 13L / 4, r.json().get("bytesRead").asLong(), "13/4 of the lost block");
      JsonNode reads = r.json().get("groups").get(0).get("reads");
      assertEquals(13, reads.size(), "d = 13 helpers");
      for (JsonNode ranges : reads) {
        long sum = 0;
        for (JsonNode range : ranges) {
          sum += range.get(1).asLong();
        }
        assertEquals(original.length / 4, sum, "each helper sends a quarter of its block");
      }
    }
  }

  @Test
  void clayRepairsTwoLostBlocksOfOneSectionTogether() throws Exception {
    // CLAY-10-4: units 2 and 3 share a y-section; together they read 12 helpers x 1/2 block
    // (Appendix A: beta = 256 - 2*64 = 128 of 256 sub-chunks) instead of 10 whole blocks.
    byte[] data = new byte[10 * 131072];
    new Random(37).nextBytes(data);
    Path in = tmp.resolve("in.bin");
    Files.write(in, data);
    Path dir = tmp.resolve("clay2");
    assertEquals(0, run("encode", "--policy", "CLAY-10-4-64k", "--input", in.toString(), "--output", dir.toString(),
        "--block-size", "131072").code());
    byte[] b2 = Files.readAllBytes(dir.resolve("g0_b2"));
    byte[] b3 = Files.readAllBytes(dir.resolve("g0_b3"));
    Files.delete(dir.resolve("g0_b2"));
    Files.delete(dir.resolve("g0_b3"));
    Run r = run("repair", "--input", dir.toString(), "--lost", "2,3", "--json");
    assertEquals(0, r.code(), r.err());
    assertArrayEquals(b2, Files.readAllBytes(dir.resolve("g0_b2")));
    assertArrayEquals(b3, Files.readAllBytes(dir.resolve("g0_b3")));
    assertEquals(2, r.json().get("lost").size());
    assertEquals(12, r.json().get("groups").get(0).get("reads").size(), "12 helpers");
    assertEquals(12L * b2.length / 2, r.json().get("bytesRead").asLong(), "half of each helper");
  }

  @Test
  void butterflyDataRepairReadsHalfOfEveryHelper() throws Exception {
    assertOneLineError(run("info", "--policy", "BUTTERFLY-10-3-1024k"), "exactly 2 parity units");
    Run info = run("info", "--policy", "BUTTERFLY-10-2-1024k", "--json");
    assertEquals(0, info.code());
    assertEquals(512, info.json().get("alpha").asInt());
    assertTrue(info.json().get("warning").asText().contains("under 4 KiB"), "2 KiB sub-chunks are warned about");

    // BUTTERFLY-10-2 with 512 KiB cells (1 KiB sub-chunks), one full group of one-cell blocks.
    byte[] data = new byte[10 * 524288];
    new Random(31).nextBytes(data);
    Path in = tmp.resolve("in.bin");
    Files.write(in, data);
    Path dir = tmp.resolve("bf");
    assertEquals(0, run("encode", "--policy", "BUTTERFLY-10-2-512k", "--input", in.toString(), "--output", dir.toString(),
        "--block-size", "524288").code());
    for (int lost : new int[] {0, 4, 9}) {
      byte[] original = Files.readAllBytes(dir.resolve("g0_b" + lost));
      Files.delete(dir.resolve("g0_b" + lost));
      Run r = run("repair", "--input", dir.toString(), "--lost", "" + lost, "--json");
      assertEquals(0, r.code(), r.err());
      assertArrayEquals(original, Files.readAllBytes(dir.resolve("g0_b" + lost)), "unit " + lost);
      assertEquals(original.length * 11L / 2, r.json().get("bytesRead").asLong(), "(n-1)/2 blocks");
      JsonNode reads = r.json().get("groups").get(0).get("reads");
      assertEquals(11, reads.size(), "all n-1 helpers");
      for (JsonNode ranges : reads) {
        long sum = 0;
        for (JsonNode range : ranges) {
          sum += range.get(1).asLong();
        }
        assertEquals(original.length / 2, sum, "half of each helper");
      }
    }
  }

  private static String sha256(Path file) throws Exception {
    return java.util.HexFormat.of().formatHex(
        java.security.MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
  }

  private static void flipByte(Path file, long offset) throws Exception {
    try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(file.toFile(), "rw")) {
      f.seek(offset);
      int b = f.read();
      f.seek(offset);
      f.write(b ^ 0x40);
    }
  }

  /** Every file in {@code dir} and its bytes, to show a refused command wrote nothing. */
  private static java.util.Map<String, String> snapshot(Path dir) throws Exception {
    java.util.Map<String, String> m = new java.util.TreeMap<>();
    try (var files = Files.list(dir)) {
      for (Path f : files.toList()) {
        m.put(f.getFileName().toString(), sha256(f));
      }
    }
    return m;
  }

  @Test
  void decodeAndRepairRefuseTamperedBlockFilesAndWriteNothing() throws Exception {
    // CLAY-4-2-64k (alpha 8), blocks of two cells: two groups, the second partial.
    byte[] data = new byte[4 * 131072 + 150_000];
    new Random(41).nextBytes(data);
    Path in = tmp.resolve("in.bin");
    Files.write(in, data);
    Path dir = tmp.resolve("enc");
    assertEquals(0, run("encode", "--policy", "CLAY-4-2-64k", "--input", in.toString(), "--output", dir.toString(),
        "--block-size", "131072").code());
    Path clean = tmp.resolve("clean");
    Files.createDirectories(clean);
    for (Path f : Files.list(dir).toList()) {
      Files.copy(f, clean.resolve(f.getFileName()));
    }
    Path out = tmp.resolve("out.bin");

    // A flipped byte in a block the decode reads: refused, naming the file; no output appears.
    flipByte(dir.resolve("g1_b2"), 1000);
    assertOneLineError(run("decode", "--input", dir.toString(), "--output", out.toString()), "g1_b2 does not match");
    assertFalse(Files.exists(out));
    try (var files = Files.list(tmp)) {
      assertEquals(0, files.filter(f -> f.getFileName().toString().startsWith(".out.bin")).count(), "no temporary left");
    }

    // The same flip where a repair of block 0 reads it: refused, naming the helper, block 0 of
    // neither group written (the first group repairs cleanly, and still nothing appears).
    Files.delete(dir.resolve("g0_b0"));
    Files.delete(dir.resolve("g1_b0"));
    Run probe = run("repair", "--input", clean.toString(), "--lost", "0", "--force", "--json");
    assertEquals(0, probe.code(), probe.err());
    long readAt = probe.json().get("groups").get(1).get("reads").get("2").get(0).get(0).asLong();
    Files.copy(clean.resolve("g1_b2"), dir.resolve("g1_b2"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    flipByte(dir.resolve("g1_b2"), readAt + 5);
    java.util.Map<String, String> before = snapshot(dir);
    assertOneLineError(run("repair", "--input", dir.toString(), "--lost", "0"), "g1_b2 does not match");
    assertEquals(before, snapshot(dir), "a refused repair writes nothing");

    // Two block files swapped (same length): decode and repair refuse.
    Files.copy(clean.resolve("g1_b2"), dir.resolve("g1_b2"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    Files.move(dir.resolve("g0_b1"), dir.resolve("swap"));
    Files.move(dir.resolve("g0_b3"), dir.resolve("g0_b1"));
    Files.move(dir.resolve("swap"), dir.resolve("g0_b3"));
    assertOneLineError(run("decode", "--input", dir.toString(), "--output", out.toString()), "does not match its SHA-256");
    assertOneLineError(run("repair", "--input", dir.toString(), "--lost", "0"), "does not match its SHA-256");
    assertFalse(Files.exists(out));
    assertFalse(Files.exists(dir.resolve("g0_b0")));

    // Truncated: refused by its length.
    Files.copy(clean.resolve("g0_b1"), dir.resolve("g0_b1"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    Files.copy(clean.resolve("g0_b3"), dir.resolve("g0_b3"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    try (java.nio.channels.FileChannel f = java.nio.channels.FileChannel.open(dir.resolve("g0_b3"),
        java.nio.file.StandardOpenOption.WRITE)) {
      f.truncate(1000);
    }
    assertOneLineError(run("repair", "--input", dir.toString(), "--lost", "0"), "truncated");
    Files.copy(clean.resolve("g0_b3"), dir.resolve("g0_b3"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);

    // Restored, both work and give the original bytes.
    assertEquals(0, run("repair", "--input", dir.toString(), "--lost", "0").code());
    assertArrayEquals(Files.readAllBytes(clean.resolve("g1_b0")), Files.readAllBytes(dir.resolve("g1_b0")));
    assertEquals(0, run("decode", "--input", dir.toString(), "--output", out.toString()).code());
    assertArrayEquals(data, Files.readAllBytes(out));
  }

  @Test
  void manifestsWhoseNumbersDoNotAddUpAreRefused() throws Exception {
    Path in = tmp.resolve("in.bin");
    Files.write(in, new byte[300_000]);
    Path dir = tmp.resolve("enc");
    assertEquals(0, run("encode", "--policy", "RS-6-3-64k", "--input", in.toString(), "--output", dir.toString(),
        "--block-size", "131072").code());
    String manifest = Files.readString(dir.resolve("manifest.json"));
    String[][] tampered = {
        {"\"fileLength\" : 300000", "\"fileLength\" : 9223372036854775807", "overflow"},
        {"\"blockSize\" : 131072", "\"blockSize\" : 4611686018427387904", "block size"},
        {"\"blockSize\" : 131072", "\"blockSize\" : -131072", "block size"},
        {"\"fileLength\" : 300000", "\"fileLength\" : 3000000", "does not match"},
        {"\"groups\" : 1", "\"groups\" : 2147483647", "does not match"},
        {"\"length\" : 65536", "\"length\" : 65537", "does not match"},
        {"\"sha256\" : \"", "\"sha256\" : \"0", "no SHA-256"},
    };
    Path out = tmp.resolve("out.bin");
    for (String[] t : tampered) {
      assertTrue(manifest.contains(t[0]), t[0]);
      Files.writeString(dir.resolve("manifest.json"), manifest.replaceFirst(java.util.regex.Pattern.quote(t[0]), t[1]));
      assertOneLineError(run("decode", "--input", dir.toString(), "--output", out.toString()), t[2]);
      assertOneLineError(run("repair", "--input", dir.toString(), "--lost", "0", "--force"), t[2]);
      assertFalse(Files.exists(out));
    }
  }

  @Test
  void encodeRefusesBadInputWithoutTouchingAnything() throws Exception {
    Path in = tmp.resolve("in.bin");
    Files.write(in, new byte[5000]);
    Path dir = tmp.resolve("full");
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("mine"), "keep");
    assertOneLineError(run("encode", "--policy", "RS-3-2-64k", "--input", in.toString(), "--output", dir.toString()),
        "not empty");
    assertEquals("keep", Files.readString(dir.resolve("mine")));
    assertOneLineError(run("encode", "--policy", "RS-3-2-64k", "--input", tmp.resolve("absent").toString(),
        "--output", tmp.resolve("o").toString()), "not a readable file");
    assertOneLineError(run("encode", "--policy", "RS-3-2-64k", "--input", in.toString(),
        "--output", tmp.resolve("o2").toString(), "--block-size", "100000"), "multiple of the cell size");
    assertFalse(Files.exists(tmp.resolve("o2")));
    assertOneLineError(run("decode", "--input", tmp.resolve("nowhere").toString(), "--output", tmp.resolve("x").toString()),
        "manifest");
  }

  @Test
  void benchCoderComparesAllImplementationsInOneRun() throws Exception {
    Run r = run("bench", "coder", "--policy", "RS-3-2-64k", "--threads", "1", "--seconds", "0.05", "--json");
    assertEquals(0, r.code(), r.err());
    JsonNode results = r.json().get("results");
    Set<String> impls = new HashSet<>();
    for (JsonNode x : results) {
      impls.add(x.get("impl").asText());
      assertEquals("coder", x.get("suite").asText());
      assertEquals("rs", x.get("codec").asText());
      assertEquals(65536, x.get("cellBytes").asInt());
      assertTrue(x.get("mbPerSec").asDouble() > 0, x.toString());
    }
    assertTrue(impls.containsAll(Set.of("java", "hadoop-rs_java")), impls.toString());
    if (io.ecrepair.gf.RegionCoders.nativeRequired()) {
      assertTrue(impls.containsAll(Set.of("native", "isal-c")), impls.toString());
    }
    // encode, decode with 1 and 2 lost, repair
    assertEquals(4, r.json().get("ratios").size());
    for (JsonNode x : results) {
      if (x.get("op").asText().equals("repair")) {
        assertTrue(Set.of("native", "java").contains(x.get("impl").asText()), "repair is ours only: " + x);
      }
    }
  }
}
