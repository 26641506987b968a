package io.ecrepair.layout;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** The rule for command outputs: never overwrite what a user already has. */
final class OutputDirs {
  private OutputDirs() {}

  /** Makes sure dir is new or empty; returns whether this call created it. */
  static boolean claimEmpty(Path dir) throws IOException {
    if (Files.exists(dir)) {
      if (!Files.isDirectory(dir)) {
        throw new IllegalArgumentException("output " + dir + " exists and is not a directory");
      }
      try (Stream<Path> s = Files.list(dir)) {
        if (s.findAny().isPresent()) {
          throw new IllegalArgumentException("output directory " + dir + " is not empty; refusing to overwrite it");
        }
      }
      return false;
    }
    Files.createDirectories(dir);
    return true;
  }

  /** Undoes a failed write into a directory that was new or empty before. */
  static void removeWritten(Path dir, boolean removeDir) {
    try (Stream<Path> s = Files.list(dir)) {
      for (Path p : (Iterable<Path>) s::iterator) {
        Files.deleteIfExists(p);
      }
      if (removeDir) {
        Files.deleteIfExists(dir);
      }
    } catch (IOException ignored) {
      // Best effort: the original error is what the user needs to see.
    }
  }
}
