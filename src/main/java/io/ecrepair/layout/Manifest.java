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
 * the policy, the file length and every internal block, in the JSON shape DESIGN.md section 6
 * fixes.
 */
public record Manifest(String policy, long fileLength, long blockSize, int groups, List<BlockEntry> blocks) {
  public static final String FILE_NAME = "manifest.json";
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  /** One internal block: its group, its index in the group, its file name and length. */
  public record BlockEntry(int group, int index, String file, long length) {}

  /** The manifest HDFS's layout implies for a file of this length. */
  public static Manifest of(Policy policy, StripedLayout layout, long fileLength) {
    List<BlockEntry> blocks = new ArrayList<>();
    int groups = layout.groupCount(fileLength);
    for (int g = 0; g < groups; g++) {
      long groupLength = layout.groupLength(fileLength, g);
      for (int i = 0; i < layout.totalUnits(); i++) {
        blocks.add(new BlockEntry(g, i, blockFileName(g, i), layout.internalBlockLength(groupLength, i)));
      }
    }
    return new Manifest(policy.name(), fileLength, layout.blockSize(), groups, List.copyOf(blocks));
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

  /** The parsed policy and layout; checks that the listed blocks are exactly those HDFS would store. */
  public StripedLayout validatedLayout() {
    Policy p = Policy.parse(policy);
    if (fileLength < 0) {
      throw new IllegalArgumentException("manifest: negative file length " + fileLength);
    }
    StripedLayout layout = new StripedLayout(p, blockSize);
    Manifest expected = of(p, layout, fileLength);
    if (expected.groups != groups || !expected.blocks.equals(blocks)) {
      throw new IllegalArgumentException("manifest does not match its own policy and file length: expected "
          + expected.groups + " groups of " + layout.totalUnits() + " blocks with HDFS's lengths");
    }
    return layout;
  }
}
