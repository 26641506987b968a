package io.ecrepair.hdfs.admin;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.codes.RepairableCode;
import io.ecrepair.codes.UndecodableException;
import io.ecrepair.exec.CellRowRepair;
import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.layout.GroupLayout;
import io.ecrepair.layout.RepairReads;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlocks;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.util.StripedBlockUtil;

/**
 * The state of every erasure-coded block group under a path, as the NameNode knows it: where
 * each internal block lives, which are missing or corrupt, and what rebuilding them reads with
 * our repair and with HDFS's own reconstruction.
 */
public final class ClusterStatus {
  /** Internal block {@code index}: "ok", "missing", "corrupt", "empty" (holds no bytes) or fsck's state of its node. */
  public record Unit(int index, String state, String datanode, String rack) {}

  /**
   * One block group. {@code lost}: its missing and corrupt internal blocks; {@code ourBytes} and
   * {@code hdfsBytes}: what rebuilding them reads (null where it cannot be worked out, see note).
   */
  public record Group(String file, String policy, int group, String block, long length, List<Unit> units, int[] lost,
                      long lostBytes, Long ourBytes, Long hdfsBytes, String note) {
    public boolean healthy() {
      return lost.length == 0;
    }
  }

  /** Every group of the erasure-coded files under the path; replicated files are only counted. */
  public record Report(List<Group> groups, int erasureCodedFiles, int replicatedFiles, String replicaStatesError) {}

  private final DistributedFileSystem fs;
  private final Configuration conf;
  private final Map<String, CellRowRepair> repairs = new HashMap<>();

  public ClusterStatus(DistributedFileSystem fs, Configuration conf) {
    this.fs = fs;
    this.conf = conf;
  }

  public Report scan(Path path) throws IOException {
    List<FileStatus> files = ErasureCodedFiles.under(fs, path);
    ReplicaStates replicas = ReplicaStates.of(conf, fs.makeQualified(path));
    List<Group> groups = new ArrayList<>();
    int coded = 0;
    int replicated = 0;
    for (FileStatus f : files) {
      if (!f.isErasureCoded()) {
        replicated++;
        continue;
      }
      coded++;
      String file = f.getPath().toUri().getPath();
      LocatedBlocks blocks = fs.getClient().getLocatedBlocks(file, 0, f.getLen());
      ErasureCodingPolicy policy = blocks.getErasureCodingPolicy();
      List<LocatedBlock> located = blocks.getLocatedBlocks();
      for (int g = 0; g < located.size(); g++) {
        groups.add(group(file, policy, g, (LocatedStripedBlock) located.get(g), replicas));
      }
    }
    return new Report(groups, coded, replicated, replicas.error());
  }

  private Group group(String file, ErasureCodingPolicy policy, int g, LocatedStripedBlock located,
                      ReplicaStates replicas) {
    int k = policy.getNumDataUnits();
    int n = k + policy.getNumParityUnits();
    int cell = policy.getCellSize();
    long groupLength = located.getBlockSize();
    long groupId = located.getBlock().getBlockId();
    Map<Integer, List<DatanodeInfo>> nodes = new TreeMap<>();
    for (int i = 0; i < located.getBlockIndices().length && i < located.getLocations().length; i++) {
      nodes.computeIfAbsent((int) located.getBlockIndices()[i], x -> new ArrayList<>()).add(located.getLocations()[i]);
    }
    List<Unit> units = new ArrayList<>();
    List<Integer> lost = new ArrayList<>();
    for (int u = 0; u < n; u++) {
      long id = groupId + u;
      List<DatanodeInfo> at = nodes.getOrDefault(u, List.of());
      if (StripedBlockUtil.getInternalBlockLength(groupLength, cell, k, u) == 0) {
        units.add(new Unit(u, "empty", null, null));
      } else if (at.isEmpty()) {
        boolean corrupt = replicas.corrupt(id);
        units.add(new Unit(u, corrupt ? "corrupt" : "missing",
            corrupt ? String.join(",", replicas.replicas(id).keySet()) : null, null));
        lost.add(u);
      } else {
        DatanodeInfo first = at.get(0);
        String state = replicas.replicas(id).getOrDefault(first.getXferAddr(), "LIVE");
        units.add(new Unit(u, "LIVE".equals(state) ? "ok" : state.toLowerCase(java.util.Locale.ROOT),
            addresses(at), first.getNetworkLocation()));
        if (at.stream().allMatch(d -> replicas.corrupt(id, d.getXferAddr()))) {
          lost.add(u);
        }
      }
    }
    int[] lostUnits = lost.stream().mapToInt(Integer::intValue).toArray();
    GroupLayout layout = GroupLayout.of(k, n - k, cell, groupLength);
    long lostBytes = RepairReads.lostBytes(layout, lostUnits);
    Long ours = null;
    Long stock = null;
    String note = null;
    if (lostUnits.length > 0) {
      int[] available = new int[n - lostUnits.length];
      for (int u = 0, j = 0; u < n; u++) {
        if (Arrays.binarySearch(lostUnits, u) < 0) {
          available[j++] = u;
        }
      }
      if (lostUnits.length > n - k) {
        note = "unrecoverable: " + lostUnits.length + " internal blocks lost, the code survives " + (n - k);
      } else {
        stock = RepairReads.stock(layout, lostUnits, available);
        if (RepairCatalog.owns(policy, true)) {
          try {
            ours = RepairReads.planned(layout, repair(RepairCatalog.spec(policy), lostUnits, available));
          } catch (UndecodableException e) {
            note = "unrecoverable: " + e.getMessage();
            stock = null;
          }
        } else {
          note = "codec " + policy.getCodecName() + " is HDFS's own: rebuilt by HDFS";
        }
      }
    }
    if (!replicas.known() && note == null && lostUnits.length > 0) {
      note = "missing may include corrupt (" + replicas.error() + ")";
    }
    return new Group(file, policy.getName(), g, located.getBlock().getLocalBlock().getBlockName(), groupLength, units,
        lostUnits, lostBytes, ours, stock, note);
  }

  private CellRowRepair repair(CodeSpec spec, int[] lost, int[] available) {
    String key = spec + Arrays.toString(lost) + Arrays.toString(available);
    CellRowRepair r = repairs.get(key);
    if (r == null) {
      RepairableCode code = RepairCatalog.code(spec);
      r = CellRowRepair.plan(code, lost, available);
      repairs.put(key, r);
    }
    return r;
  }

  private static String addresses(List<DatanodeInfo> nodes) {
    StringBuilder s = new StringBuilder();
    for (DatanodeInfo d : nodes) {
      s.append(s.length() == 0 ? "" : ",").append(d.getXferAddr());
    }
    return s.toString();
  }
}
