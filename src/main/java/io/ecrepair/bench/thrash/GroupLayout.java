package io.ecrepair.bench.thrash;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * Which internal blocks of which block groups can be read right now, as the fault injector
 * sees it: the replicas on the DataNodes' disks, the DataNodes it has taken out, the replicas
 * it corrupted that are still there. A new fault is allowed only if afterwards every group can
 * still be decoded from what stays readable.
 */
public final class GroupLayout {
  /**
   * A group whose file the injector knows.
   *
   * @param dataUnits k: units from k on are parity
   * @param units the internal blocks that exist (a short file's group has fewer data blocks)
   * @param decodable whether the code rebuilds the given lost units (sorted) from the others
   */
  public record Group(long id, String policy, int dataUnits, Set<Integer> units, Predicate<int[]> decodable) {}

  /** A replica file on one DataNode. */
  public record Replica(String node, long blockId) {}

  private final Map<Long, Group> groups = new HashMap<>();
  private final Map<Long, Set<String>> holders = new HashMap<>();
  private final Set<String> downNodes = new HashSet<>();
  private final Set<Replica> corrupted = new HashSet<>();
  private final Set<Long> silentGroups = new HashSet<>();
  private final Set<String> settlingNodes = new HashSet<>();
  private java.util.function.LongPredicate listedWhole = id -> true;
  private final Predicate<int[]> unknown;

  /** {@code unknown}: the rule for groups of files the injector has not mapped (the weakest code run). */
  public GroupLayout(Predicate<int[]> unknown) {
    this.unknown = unknown;
  }

  /** The group an internal block belongs to: HDFS numbers a group's blocks id+0 .. id+15. */
  public static long groupOf(long blockId) {
    return blockId & ~0xFL;
  }

  public static int unitOf(long blockId) {
    return (int) (blockId & 0xF);
  }

  public void addGroup(Group g) {
    groups.put(g.id(), g);
  }

  public void addReplica(String node, long blockId) {
    holders.computeIfAbsent(blockId, x -> new HashSet<>()).add(node);
  }

  public void setDown(Set<String> nodes) {
    downNodes.clear();
    downNodes.addAll(nodes);
  }

  public void setCorrupted(Set<Replica> replicas) {
    corrupted.clear();
    corrupted.addAll(replicas);
  }

  /**
   * Replicas corrupted with their checksums rewritten to match, not yet replaced. No read or
   * repair can tell them from good ones, so a group holding one takes no other fault until
   * then: a repair or degraded read of the group might decode from it.
   */
  public void setSilentlyCorrupted(Set<Replica> replicas) {
    silentGroups.clear();
    replicas.forEach(r -> silentGroups.add(groupOf(r.blockId())));
  }

  /** Nodes back from a fault a short while ago: the NameNode may still be rebuilding around them. */
  public void setSettling(Set<String> nodes) {
    settlingNodes.clear();
    settlingNodes.addAll(nodes);
  }

  /** Whether the NameNode lists every unit of a group on a live replica (asked last, it may cost a call). */
  public void setListedWhole(java.util.function.LongPredicate listedWhole) {
    this.listedWhole = listedWhole;
  }

  /** Nodes holding a finalized replica of the block. */
  public Set<String> holders(long blockId) {
    return holders.getOrDefault(blockId, Set.of());
  }

  /** Every internal block id seen on a disk. */
  public Set<Long> blocks() {
    return holders.keySet();
  }

  /** The units of group {@code id} nobody can read if {@code extraDown} also went and {@code extraCorrupt} were bad. */
  public int[] lost(long id, Set<String> extraDown, Replica extraCorrupt) {
    Group g = groups.get(id);
    Set<Integer> units = new TreeSet<>();
    if (g != null) {
      units.addAll(g.units());
    } else {
      for (int u = 0; u < 16; u++) {
        if (holders.containsKey(id + u)) {
          units.add(u);
        }
      }
    }
    List<Integer> lost = new java.util.ArrayList<>();
    for (int u : units) {
      boolean readable = false;
      for (String node : holders(id + u)) {
        Replica r = new Replica(node, id + u);
        if (!downNodes.contains(node) && !extraDown.contains(node) && !corrupted.contains(r)
            && !r.equals(extraCorrupt)) {
          readable = true;
          break;
        }
      }
      if (!readable) {
        lost.add(u);
      }
    }
    return lost.stream().mapToInt(Integer::intValue).toArray();
  }

  /** Whether every group stays decodable with {@code node} out as well. */
  public boolean allowsNodeFault(String node) {
    for (long id : groupsOn(node)) {
      if (silentGroups.contains(id) || !decodable(id, lost(id, Set.of(node), null))) {
        return false;
      }
    }
    return true;
  }

  /** Whether the replica's group stays decodable with that replica bad as well. */
  public boolean allowsCorruption(Replica r) {
    long id = groupOf(r.blockId());
    return !silentGroups.contains(id) && decodable(id, lost(id, Set.of(), r));
  }

  /**
   * Whether the replica may be corrupted silently: a parity unit (a data unit's wrong bytes
   * would go to its readers as they are, which no checksum catches) of a mapped group with
   * nothing out, on no node back from a fault lately, and whole at the NameNode: nothing is
   * rebuilt in it, so nothing reads the parity before a scrub finds it.
   */
  public boolean allowsSilentCorruption(Replica r) {
    long id = groupOf(r.blockId());
    Group g = groups.get(id);
    if (g == null || unitOf(r.blockId()) < g.dataUnits() || silentGroups.contains(id)
        || lost(id, Set.of(), null).length > 0) {
      return false;
    }
    for (int u : g.units()) {
      if (holders(id + u).stream().anyMatch(settlingNodes::contains)) {
        return false;
      }
    }
    return listedWhole.test(id);
  }

  /** Whether every group is decodable now (what the injector keeps true). */
  public boolean allDecodable() {
    Set<Long> ids = new HashSet<>(groups.keySet());
    holders.keySet().forEach(b -> ids.add(groupOf(b)));
    for (long id : ids) {
      if (!decodable(id, lost(id, Set.of(), null))) {
        return false;
      }
    }
    return true;
  }

  private boolean decodable(long id, int[] lost) {
    if (lost.length == 0) {
      return true;
    }
    Group g = groups.get(id);
    return (g != null ? g.decodable() : unknown).test(lost);
  }

  private Set<Long> groupsOn(String node) {
    Set<Long> out = new HashSet<>();
    holders.forEach((b, nodes) -> {
      if (nodes.contains(node)) {
        out.add(groupOf(b));
      }
    });
    return out;
  }
}
