package io.ecrepair.bench.thrash;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.FileVisitResult;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The finalized replicas on every DataNode's disk ({@code .../finalized/.../blk_<id>}): all
 * DataNodes of the benchmark cluster run on this machine, so the run sees every replica, not
 * only the ones reads happen to pick.
 */
final class ReplicaScan {
  /** A replica file and the DataNode whose data directory holds it. */
  record Replica(String node, long blockId, Path file) {}

  private ReplicaScan() {}

  /**
   * Every finalized replica under the data directories, by block id. A file or directory that
   * vanishes while listed (a DataNode deleting an excess replica) is passed over, the rest of
   * the directory still listed.
   */
  static Map<Long, List<Replica>> scan(Map<String, Path> dataDirs) throws IOException {
    Map<Long, List<Replica>> out = new HashMap<>();
    for (Map.Entry<String, Path> e : dataDirs.entrySet()) {
      if (!Files.isDirectory(e.getValue())) {
        continue;
      }
      Files.walkFileTree(e.getValue(), new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult visitFile(Path p, BasicFileAttributes attrs) {
          String name = p.getFileName().toString();
          if (name.startsWith("blk_") && !name.endsWith(".meta") && p.toString().contains("/finalized/")) {
            try {
              long id = Long.parseLong(name.substring(4));
              out.computeIfAbsent(id, x -> new ArrayList<>()).add(new Replica(e.getKey(), id, p));
            } catch (NumberFormatException ignored) {
              // not a replica
            }
          }
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path p, IOException ex) {
          return FileVisitResult.CONTINUE;
        }
      });
    }
    return out;
  }
}
