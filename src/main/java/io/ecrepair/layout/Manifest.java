package io.ecrepair.layout;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code manifest.json} beside the internal block files that {@code ec-repair encode} wrote:
 * the policy, the file length and every internal block with the SHA-256 digest of its file, in
 * the JSON shape docs/architecture.md#command-line-contract fixes (the digests are an added field). Decoding and
 * repairing check every block file they use against its digest, so a swapped, flipped or
 * truncated file is refused instead of decoded into wrong bytes.
 */
public record Manifest(String policy, long fileLength, long blockSize, int groups, List<BlockEntry> blocks) {
  public static final String FILE_NAME = "manifest.json";
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  /** One internal block: its group, its index in the group, its file name, length and SHA-256 (hex). */
  public record BlockEntry(int group, int index, String file, long length, String sha256) {
    /** The same block, digest aside. */
    boolean sameBlock(BlockEntry o) {
      return group == o.group && index == o.index && file.equals(o.file) && length == o.length;
    }
  }

  /** The manifest HDFS's layout implies for a file of this length, without digests yet. */
  public static Manifest of(Policy policy, StripedLayout layout, long fileLength) {
    List<BlockEntry> blocks = new ArrayList<>();
    int groups = layout.groupCount(fileLength);
    for (int g = 0; g < groups; g++) {
      long groupLength = layout.groupLength(fileLength, g);
      for (int i = 0; i < layout.totalUnits(); i++) {
        blocks.add(new BlockEntry(g, i, blockFileName(g, i), layout.internalBlockLength(groupLength, i), null));
      }
    }
    return new Manifest(policy.name(), fileLength, layout.blockSize(), groups, List.copyOf(blocks));
  }

  /** This manifest with the digest of every block, {@code digests[group][index]}. */
  Manifest withDigests(String[][] digests) {
    List<BlockEntry> withDigests = blocks.stream()
        .map(b -> new BlockEntry(b.group, b.index, b.file, b.length, digests[b.group][b.index])).toList();
    return new Manifest(policy, fileLength, blockSize, groups, withDigests);
  }

  /** The entry of one internal block (the manifest has been validated). */
  BlockEntry entry(int group, int index, int units) {
    return blocks.get(group * units + index);
  }

  /** Refuses a block file whose digest is not the manifest's. */
  static void checkDigest(BlockEntry b, String actual, String use) {
    if (!b.sha256.equals(actual)) {
      throw new IllegalArgumentException("internal block " + b.file + " does not match its SHA-256 in the manifest "
          + "(swapped or damaged); move it away to " + use + " without it");
    }
  }

  public static String blockFileName(int group, int index) {
    return "g" + group + "_b" + index;
  }

  public void write(Path dir) throws IOException {
    JSON.writeValue(dir.resolve(FILE_NAME).toFile(), this);
  }

  public static Manifest read(Path dir) throws IOException {
    Path file = dir.resolve(FILE_NAME);
    if (!Files.isRegularFile(file)) {
      throw new IllegalArgumentException("no " + FILE_NAME + " in " + dir + " (was it written by 'ec-repair encode'?)");
    }
    try {
      return JSON.readValue(file.toFile(), Manifest.class);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException(file + " is not a valid manifest: " + e.getOriginalMessage());
    }
  }

  /**
   * The parsed policy and layout; checks that the numbers add up (no overflow), that the listed
   * blocks are exactly those HDFS would store, and that each has a digest.
   */
  public StripedLayout validatedLayout() {
    Policy p = Policy.parse(policy);
    if (fileLength < 0) {
      throw new IllegalArgumentException("manifest: negative file length " + fileLength);
    }
    if (blockSize <= 0 || blockSize % p.cellSize() != 0 || blockSize / p.cellSize() > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("manifest: block size " + blockSize + " is not a positive multiple of the "
          + p.cellSize() + "-byte cell with at most " + Integer.MAX_VALUE + " cells");
    }
    int n = p.code().n();
    long expectedGroups;
    try {
      long capacity = Math.multiplyExact(blockSize, (long) p.code().k());
      expectedGroups = fileLength / capacity + (fileLength % capacity == 0 ? 0 : 1);
      Math.addExact(fileLength, capacity); // the layout's group arithmetic stays in range
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException("manifest: file length " + fileLength + " and block size " + blockSize
          + " do not add up (overflow)");
    }
    // Before anything is built from these numbers: they must agree with the blocks listed.
    if (expectedGroups != groups || blocks == null || (long) groups * n != blocks.size()) {
      throw new IllegalArgumentException("manifest does not match its own policy and file length: expected "
          + expectedGroups + " groups of " + n + " blocks");
    }
    StripedLayout layout = new StripedLayout(p, blockSize);
    List<BlockEntry> expected = of(p, layout, fileLength).blocks;
    for (int i = 0; i < expected.size(); i++) {
      BlockEntry b = blocks.get(i);
      if (b == null || !expected.get(i).sameBlock(b)) {
        throw new IllegalArgumentException("manifest does not match its own policy and file length: expected "
            + expected.get(i).file + " of " + expected.get(i).length + " bytes as block " + i);
      }
      if (b.sha256 == null || !b.sha256.matches("[0-9a-f]{64}")) {
        throw new IllegalArgumentException("manifest has no SHA-256 for " + b.file + " (written by an older "
            + "ec-repair encode?); encode the file again");
      }
    }
    return layout;
  }
}
