package io.ecrepair.hdfs.admin;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.tools.DFSck;

/**
 * The NameNode's view of every internal block's replicas under a path, as {@code hdfs fsck
 * -files -blocks -replicaDetails} reports it: the block locations a client gets leave corrupt
 * replicas out, fsck names them (CORRUPT, DECOMMISSIONING, STALE_NODE, ...).
 */
final class ReplicaStates {
  /** "blk_ID:DatanodeInfoWithStorage[HOST:PORT,STORAGE,TYPE](STATE)", one per internal block replica. */
  private static final Pattern REPLICA = Pattern.compile(
      "blk_(-?\\d+):DatanodeInfoWithStorage\\[([^,\\]]+)[^\\]]*\\]\\(([A-Z_ ]+)\\)");

  /** internal block id -> (DataNode transfer address -> state). */
  private final Map<Long, Map<String, String>> states;
  private final String error;

  private ReplicaStates(Map<Long, Map<String, String>> states, String error) {
    this.states = states;
    this.error = error;
  }

  /** Runs fsck on {@code path}; on failure (e.g. no permission) the states are unknown and {@link #error} says why. */
  static ReplicaStates of(Configuration conf, Path path) {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    try (PrintStream out = new PrintStream(buf, true, StandardCharsets.UTF_8)) {
      int rc = new DFSck(conf, out).run(new String[] {path.toString(), "-files", "-blocks", "-replicaDetails"});
      String text = buf.toString(StandardCharsets.UTF_8);
      // fsck exits 1 for an unhealthy path: the report is still there; anything else failed.
      if (rc != 0 && !text.contains("Status:")) {
        return new ReplicaStates(Map.of(), "hdfs fsck failed: " + firstLine(text));
      }
      return new ReplicaStates(parse(text), null);
    } catch (Exception e) {
      return new ReplicaStates(Map.of(), "hdfs fsck failed (it asks the NameNode's web address, "
          + "dfs.namenode.http-address): " + e.getMessage());
    }
  }

  static Map<Long, Map<String, String>> parse(String fsckReport) {
    Map<Long, Map<String, String>> out = new HashMap<>();
    Matcher m = REPLICA.matcher(fsckReport);
    while (m.find()) {
      out.computeIfAbsent(Long.parseLong(m.group(1)), x -> new HashMap<>()).put(m.group(2), m.group(3));
    }
    return out;
  }

  /** Whether fsck reported on the replicas (false: corruption cannot be told apart from a missing block). */
  boolean known() {
    return error == null;
  }

  String error() {
    return error;
  }

  /** Whether some replica of this internal block is marked corrupt. */
  boolean corrupt(long internalBlockId) {
    return states.getOrDefault(internalBlockId, Map.of()).containsValue("CORRUPT");
  }

  /** Whether this replica (DataNode transfer address "host:port") is marked corrupt. */
  boolean corrupt(long internalBlockId, String xferAddr) {
    return "CORRUPT".equals(states.getOrDefault(internalBlockId, Map.of()).get(xferAddr));
  }

  /** The DataNode addresses fsck lists for this internal block with their states. */
  Map<String, String> replicas(long internalBlockId) {
    return states.getOrDefault(internalBlockId, Map.of());
  }

  private static String firstLine(String text) {
    for (String line : text.split("\n")) {
      if (!line.isBlank() && !line.startsWith("Connecting to namenode")) {
        return line.trim();
      }
    }
    return "no output";
  }
}
