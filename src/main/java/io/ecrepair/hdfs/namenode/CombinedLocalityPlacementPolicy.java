package io.ecrepair.hdfs.namenode;

import io.ecrepair.plan.CombinedLocality;
import io.ecrepair.plan.RackAssignment;
import io.ecrepair.plan.RackedGroup;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.AddBlockFlag;
import org.apache.hadoop.hdfs.protocol.BlockStoragePolicy;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.server.blockmanagement.BlockPlacementStatus;
import org.apache.hadoop.hdfs.server.blockmanagement.DatanodeDescriptor;
import org.apache.hadoop.hdfs.server.blockmanagement.DatanodeStorageInfo;
import org.apache.hadoop.hdfs.server.namenode.FSNamesystem;
import org.apache.hadoop.net.Node;
import org.apache.hadoop.net.NodeBase;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An EC placement policy ({@code dfs.block.placement.ec.classname}, on the NameNode, with
 * {@link EcRepairNameNodePlugin} in {@code dfs.namenode.plugins}) that places LRC block
 * groups with ECWide's combined locality ({@link CombinedLocality}): each local group on as
 * few racks as the fault tolerance f = g + 1 allows, at most f blocks of a group in any rack,
 * so a lost block is rebuilt by summing inside each rack of its local group and any rack can
 * fail without loss. MDS policies (RS, Clay, Butterfly) named in
 * {@link NameNodeKeys#TOPOLOGY_LOCALITY_POLICIES_KEY} get topology locality the same way: at most m blocks of a group in any rack, on as few racks
 * as that allows. A rebuilt block goes to the rack of its rack-mates when that rack has
 * an eligible DataNode and room; a block copied off a decommissioning node, to the rack it is
 * copied from; when none of its rack-mates is left, to a rack holding none of
 * the group (so a slot lost with its whole rack is rebuilt together); else to the rack with
 * room holding most of its repair reads. Every other EC policy, and
 * every choice among the DataNodes of a rack, is the spread policy's
 * ({@link SpreadRepairPlacementPolicy}: HDFS's rack-fault-tolerant placement, least-loaded
 * repair targets). HDFS's own checks (in service, not stale, load, space, storage type) decide
 * every node.
 *
 * <p>Falls back to the spread policy, and says why once, when the cluster has fewer racks than
 * the layout needs, a rack lacks eligible nodes, or the plugin is missing.
 */
public class CombinedLocalityPlacementPolicy extends SpreadRepairPlacementPolicy {
  private static final Logger LOG = LoggerFactory.getLogger(CombinedLocalityPlacementPolicy.class);
  private static final ThreadLocal<Layout> LAYOUT = new ThreadLocal<>();
  private static final Set<String> SAID = Collections.synchronizedSet(new HashSet<>());
  private static final AtomicBoolean ANNOUNCED = new AtomicBoolean();

  private volatile List<String> hdfsPlacementPaths = List.of();
  private volatile Set<String> topologyPolicies = Set.of();

  @Override
  public void setConf(Configuration conf) {
    super.setConf(conf);
    hdfsPlacementPaths = List.copyOf(conf.getTrimmedStringCollection(NameNodeKeys.COMBINED_LOCALITY_SKIP_PATHS_KEY));
    topologyPolicies = Set.copyOf(conf.getTrimmedStringCollection(NameNodeKeys.TOPOLOGY_LOCALITY_POLICIES_KEY));
    String active = "ec-repair: EC placement policy {} active: LRC block groups placed with combined locality (each "
        + "local group on as few racks as its fault tolerance allows){}, rebuilt blocks join their rack-mates; other "
        + "policies as {} (HDFS's rack-fault-tolerant placement); every reconstruction target is the least-loaded "
        + "eligible DataNode of its scope";
    String topology = topologyPolicies.isEmpty() ? ""
        : ", " + new TreeSet<>(topologyPolicies) + " with topology locality (at most m blocks of a group per rack)";
    if (ANNOUNCED.compareAndSet(false, true)) {
      LOG.info(active, getClass().getSimpleName(), topology, SpreadRepairPlacementPolicy.class.getSimpleName());
    } else {
      LOG.debug(active, getClass().getSimpleName(), topology, SpreadRepairPlacementPolicy.class.getSimpleName());
    }
  }

  @Override
  public DatanodeStorageInfo[] chooseTarget(String srcPath, int numOfReplicas, Node writer,
                                            List<DatanodeStorageInfo> chosen, boolean returnChosenNodes,
                                            Set<Node> excludedNodes, long blocksize, BlockStoragePolicy storagePolicy,
                                            EnumSet<AddBlockFlag> flags) {
    return placed(srcPath, numOfReplicas, chosen, returnChosenNodes, () -> super.chooseTarget(srcPath, numOfReplicas,
        writer, chosen, returnChosenNodes, excludedNodes, blocksize, storagePolicy, flags));
  }

  @Override
  public DatanodeStorageInfo[] chooseTarget(String srcPath, int numOfReplicas, Node writer,
                                            List<DatanodeStorageInfo> chosen, boolean returnChosenNodes,
                                            Set<Node> excludedNodes, long blocksize, BlockStoragePolicy storagePolicy,
                                            EnumSet<AddBlockFlag> flags, EnumMap<StorageType, Integer> storageTypes) {
    return placed(srcPath, numOfReplicas, chosen, returnChosenNodes, () -> super.chooseTarget(srcPath, numOfReplicas,
        writer, chosen, returnChosenNodes, excludedNodes, blocksize, storagePolicy, flags, storageTypes));
  }

  /**
   * Runs HDFS's target choice with this group's layout at hand ({@link #chooseTargetInOrder}
   * uses it), then puts the targets in unit order: a new group's i-th target holds unit i, and
   * a rebuilding DataNode gives its targets the missing units in ascending order.
   */
  private DatanodeStorageInfo[] placed(String srcPath, int numOfReplicas, List<DatanodeStorageInfo> chosen,
                                       boolean returnChosenNodes, Supplier<DatanodeStorageInfo[]> choice) {
    Layout layout = returnChosenNodes ? null : layoutFor(srcPath, numOfReplicas, chosen);
    if (layout == null) {
      return choice.get();
    }
    Layout outer = LAYOUT.get();
    LAYOUT.set(layout);
    try {
      DatanodeStorageInfo[] targets = choice.get();
      if (!layout.fellBack) {
        Arrays.sort(targets, Comparator.comparingInt(t -> layout.unitOf.getOrDefault(t.getDatanodeDescriptor(),
            Integer.MAX_VALUE)));
      }
      return targets;
    } finally {
      LAYOUT.set(outer);
    }
  }

  private Layout layoutFor(String srcPath, int numOfReplicas, List<DatanodeStorageInfo> chosen) {
    if (srcPath == null || numOfReplicas < 1 || hdfsPlacementPaths.stream().anyMatch(srcPath::startsWith)) {
      return null;
    }
    Optional<FSNamesystem> fsn = EcRepairNameNodePlugin.namesystemOf(clusterMap);
    if (fsn.isEmpty()) {
      sayOnce("plugin", "ec-repair: combined locality is off: the NameNode plugin is not running (add "
          + EcRepairNameNodePlugin.class.getName() + " to dfs.namenode.plugins); LRC groups are placed as others");
      return null;
    }
    if (chosen == null || chosen.isEmpty()) {
      return GroupLayouts.ofFile(fsn.get(), srcPath, topologyPolicies).map(this::newGroup).orElse(null);
    }
    return GroupLayouts.ofRepair(fsn.get(), srcPath, chosen, numOfReplicas, topologyPolicies).map(Layout::rebuild)
        .orElse(null);
  }

  private Layout newGroup(CombinedLocality ideal) {
    int racks = clusterMap.getNumOfNonEmptyRacks();
    Optional<CombinedLocality> onRacks = ideal.onRacks(racks);
    if (onRacks.isEmpty()) {
      sayOnce("racks " + ideal.code(), "ec-repair: " + ideal.code() + " groups are placed as HDFS places them: "
          + "rack locality needs " + ideal.fewestRacks() + " racks (at most " + ideal.perRack()
          + " blocks of a group per rack), the cluster has " + racks);
      return null;
    }
    return new Layout(new RackedGroup(ideal, Map.of()), onRacks.get().racks(), null, Map.of());
  }

  /**
   * Where the parent would draw targets at random over the cluster, places this group's
   * layout instead: each rack of a new group's layout on a rack of its own, each rebuilt unit
   * by {@link #rackFor}. Nodes are still drawn (and checked) by the parent, inside one rack at
   * a time; if the layout cannot be met, everything drawn here is undone and the parent places.
   */
  @Override
  protected Node chooseTargetInOrder(int numOfReplicas, Node writer, Set<Node> excludedNodes, long blocksize,
                                     int maxNodesPerRack, List<DatanodeStorageInfo> results, boolean avoidStaleNodes,
                                     boolean newBlock, EnumMap<StorageType, Integer> storageTypes)
      throws NotEnoughReplicasException {
    Layout layout = LAYOUT.get();
    if (layout != null && !layout.fellBack && layout.units() != numOfReplicas) {
      layout.fellBack = true; // HDFS cut the count (fewer DataNodes than blocks): its own rules apply
    }
    if (layout != null && !layout.fellBack) {
      layout.unitOf.clear(); // HDFS may try more than once (avoiding the writer's node or rack first)
      Draw draw = new Draw(excludedNodes, blocksize, results, avoidStaleNodes, storageTypes);
      String why = layout.bins != null ? placeNewGroup(layout, draw) : placeRebuild(layout, draw);
      if (why == null) {
        return writer;
      }
      draw.undo();
      layout.fellBack = true;
      sayOnce("fallback " + why, "ec-repair: a block group is placed as HDFS places it: " + why
          + " (said once per reason)");
    }
    return super.chooseTargetInOrder(numOfReplicas, writer, excludedNodes, blocksize, maxNodesPerRack, results,
        avoidStaleNodes, newBlock, storageTypes);
  }

  /**
   * Null when placed, else why not. Each rack's eligible DataNodes are counted first (drawn by
   * the parent and put back, up to one more than a rack of the layout holds), so a rack short
   * of nodes for the moment (a DataNode re-registering, one the writer excludes) is planned
   * around; if a draw still fails (the cluster changed meanwhile: a rejoining DataNode's
   * storage is dropped and added again within a second), everything is put back and planned
   * again from fresh counts.
   */
  private String placeNewGroup(Layout layout, Draw draw) {
    List<List<Integer>> bins = new ArrayList<>(layout.bins);
    // Largest first; among equal sizes, the racks of more local groups' parities first, so that
    // they get the racks with DataNodes to spare: a block lost from a full rack is rebuilt there.
    bins.sort(Comparator.comparingInt((List<Integer> b) -> b.size())
        .thenComparingInt(b -> layout.localParities(b)).reversed());
    int[] sizes = bins.stream().mapToInt(List::size).toArray();
    String why = null;
    for (int attempt = 0; attempt < 3; attempt++) {
      Map<String, Integer> capacity = new HashMap<>();
      Map<String, Double> order = new HashMap<>(); // random, weighted by rack size (an exponential race)
      for (String r : rackNames()) {
        List<Node> inRack = clusterMap.getDatanodesInRack(r); // null if the rack emptied meanwhile
        int eligible = inRack == null ? 0 : draw.eligible(r, Math.min(layout.group.perRack() + 1, inRack.size()));
        capacity.put(r, eligible);
        order.put(r, -Math.log(1 - ThreadLocalRandom.current().nextDouble()) / Math.max(1, eligible));
      }
      Optional<List<String>> racks = RackAssignment.assign(sizes, capacity, Comparator.comparing(order::get));
      if (racks.isEmpty()) {
        return "the racks' eligible DataNodes " + new TreeMap<>(capacity) + " cannot hold racks of "
            + Arrays.toString(sizes) + " blocks";
      }
      why = null;
      layout.unitOf.clear();
      for (int i = 0; i < sizes.length && why == null; i++) {
        String rack = racks.get().get(i);
        if (draw.tryRack(rack, sizes[i], sizes[i])) {
          layout.record(bins.get(i), draw.lastDrawn());
        } else {
          why = "the eligible DataNodes kept changing while a group was placed (" + rack + " counted "
              + capacity.get(rack) + ", then could not take " + sizes[i] + ")";
          draw.undo();
        }
      }
      if (why == null) {
        return null;
      }
    }
    return why;
  }

  /** Null when placed, else why not. */
  private String placeRebuild(Layout layout, Draw draw) {
    for (int unit : layout.targetUnits) {
      String rack = rackFor(layout, unit, draw);
      if (rack == null) {
        return "no eligible DataNode in a rack holding fewer than " + layout.group.perRack() + " blocks of the group";
      }
      layout.record(List.of(unit), draw.lastDrawn());
      if (unit >= 0) {
        layout.group.placed(unit, rack);
      }
    }
    return null;
  }

  /**
   * A rebuilt unit's rack: its rack-mates' if that has room and an eligible node; the rack it
   * is copied from (a decommissioning node's), so the copy stays inside the rack; a rack
   * holding none of the group if none of its rack-mates is placed; else any rack with room,
   * where most of its repair reads are first; null if none.
   */
  private String rackFor(Layout layout, int unit, Draw draw) {
    RackedGroup group = layout.group;
    int cap = group.perRack();
    Optional<String> mates = unit >= 0 ? group.matesRack(unit) : Optional.empty();
    if (mates.isPresent() && draw.tryRack(mates.get(), 1, cap - group.blocksIn(mates.get()))) {
      return mates.get();
    }
    String copiedFrom = layout.leavingRacks.get(unit);
    if (copiedFrom != null && draw.tryRack(copiedFrom, 1, cap - group.blocksIn(copiedFrom))) {
      return copiedFrom;
    }
    if (unit >= 0 && mates.isEmpty()) { // its whole rack is being rebuilt (or it has no mates): start a rack afresh
      List<String> fresh = new ArrayList<>(rackNames());
      fresh.removeIf(r -> group.blocksIn(r) > 0);
      Collections.shuffle(fresh, ThreadLocalRandom.current());
      for (String r : fresh) {
        if (draw.tryRack(r, 1, cap)) {
          return r;
        }
      }
    }
    List<String> any = new ArrayList<>(rackNames());
    any.removeIf(r -> !group.hasRoom(r));
    Collections.shuffle(any, ThreadLocalRandom.current());
    if (unit >= 0) { // where most of its repair reads are first
      any.sort(Comparator.comparingInt((String r) -> group.repairReadsIn(unit, r)).reversed());
    }
    for (String r : any) {
      if (draw.tryRack(r, 1, cap - group.blocksIn(r))) {
        return r;
      }
    }
    return null;
  }

  /** The racks that hold DataNodes now. */
  private List<String> rackNames() {
    Set<String> racks = new TreeSet<>();
    for (DatanodeDescriptor dn : dataNodes()) {
      racks.add(dn.getNetworkLocation());
    }
    return new ArrayList<>(racks);
  }

  /**
   * Satisfied if HDFS's rule is, or if the group could be one this policy placed on racks (an
   * LRC, or a policy with topology locality): at most F blocks in any rack, F the least fault tolerance among the enabled
   * policies a group of this width could belong to (the block is not passed, so an RS group
   * of the same width is held to its own tolerance too). Without this the NameNode would see
   * a combined-locality group on a cluster with more racks than it uses as misplaced and copy
   * its blocks onto other racks. Locations beyond the group's width are second copies of a
   * unit, about to be deleted (a Balancer move inside a rack, a rebuilt block's stale copy):
   * they are not counted, else a move inside a full rack would look like a misplaced group and
   * the NameNode would copy one of its blocks out of the rack. Once they are deleted the
   * NameNode checks the group again.
   */
  @Override
  public BlockPlacementStatus verifyBlockPlacement(DatanodeInfo[] locs, int numberOfReplicas) {
    BlockPlacementStatus hdfs = super.verifyBlockPlacement(locs, numberOfReplicas);
    if (hdfs.isPlacementPolicySatisfied() || locs == null) {
      return hdfs;
    }
    Optional<FSNamesystem> fsn = EcRepairNameNodePlugin.namesystemOf(clusterMap);
    if (fsn.isEmpty()) {
      return hdfs;
    }
    int tolerance = toleranceOfWidth(fsn.get().getErasureCodingPolicyManager().getEnabledPolicies(),
        numberOfReplicas, topologyPolicies);
    if (tolerance < 1) {
      return hdfs;
    }
    Map<String, Integer> perRack = new HashMap<>();
    for (DatanodeInfo dn : locs) {
      perRack.merge(dn.getNetworkLocation(), 1, Integer::sum);
    }
    int most = mostPerRackWithoutCopies(perRack, locs.length - numberOfReplicas);
    return most <= tolerance ? new RackFaultTolerant(perRack.size(), most, tolerance) : hdfs;
  }

  /** The most blocks in one rack once {@code copies} locations are taken from the fullest racks. */
  static int mostPerRackWithoutCopies(Map<String, Integer> perRack, int copies) {
    List<Integer> counts = new ArrayList<>(perRack.values());
    for (int i = 0; i < copies && !counts.isEmpty(); i++) {
      int fullest = counts.indexOf(Collections.max(counts));
      counts.set(fullest, counts.get(fullest) - 1);
    }
    return counts.isEmpty() ? 0 : Collections.max(counts);
  }

  /**
   * The least fault tolerance among enabled policies whose groups can have {@code width}
   * blocks (a short last group has fewer data blocks), if one of them is placed on racks by
   * this policy (an LRC, or one of {@code topologyPolicies}); 0 otherwise.
   */
  static int toleranceOfWidth(ErasureCodingPolicy[] enabled, int width, Set<String> topologyPolicies) {
    int least = Integer.MAX_VALUE;
    boolean racked = false;
    for (ErasureCodingPolicy p : enabled) {
      int m = p.getNumParityUnits();
      if (width <= m || width > p.getNumDataUnits() + m) {
        continue;
      }
      Optional<CombinedLocality> layout = GroupLayouts.layoutOf(p, topologyPolicies);
      racked |= layout.isPresent();
      least = Math.min(least, layout.map(l -> l.code().faultTolerance()).orElse(m));
    }
    return racked ? least : 0;
  }

  private static void sayOnce(String key, String message) {
    if (SAID.add(key)) {
      LOG.info(message);
    } else {
      LOG.debug(message);
    }
  }

  /** A placement that keeps every rack within the fault tolerance. */
  private record RackFaultTolerant(int racks, int most, int tolerance) implements BlockPlacementStatus {
    @Override
    public boolean isPlacementPolicySatisfied() {
      return true;
    }

    @Override
    public String getErrorDescription() {
      return null;
    }

    @Override
    public int getAdditionalReplicasRequired() {
      return 0;
    }

    @Override
    public String toString() {
      return "combined locality: " + racks + " racks, at most " + most + " blocks per rack (tolerates " + tolerance
          + ")";
    }
  }

  /** One group's layout while its targets are chosen. */
  private static final class Layout {
    final RackedGroup group;
    /** A new group: its racks, each a list of units. */
    final List<List<Integer>> bins;
    /** A rebuild: the unit of each target, in target order (-1: any rack with room). */
    final List<Integer> targetUnits;
    /** A rebuild: the rack of each unit a leaving node holds (its copy's source). */
    final Map<Integer, String> leavingRacks;
    final Map<DatanodeDescriptor, Integer> unitOf = new HashMap<>();
    boolean fellBack;

    Layout(RackedGroup group, List<List<Integer>> bins, List<Integer> targetUnits, Map<Integer, String> leavingRacks) {
      this.group = group;
      this.bins = bins;
      this.targetUnits = targetUnits;
      this.leavingRacks = leavingRacks;
    }

    /** Local parities among {@code units}. */
    int localParities(List<Integer> units) {
      return (int) units.stream().filter(group.layout().code()::isLocalParity).count();
    }

    int units() {
      return bins != null ? bins.stream().mapToInt(List::size).sum() : targetUnits.size();
    }

    static Layout rebuild(GroupLayouts.Rebuild r) {
      return new Layout(new RackedGroup(r.layout(), r.liveRacks()), null, r.targetUnits(), r.leavingRacks());
    }

    /** Units of {@code units} go to the nodes just drawn, in order; -1 sorts after every unit. */
    void record(List<Integer> units, List<DatanodeStorageInfo> drawn) {
      for (int i = 0; i < drawn.size(); i++) {
        int unit = units.get(i);
        unitOf.put(drawn.get(i).getDatanodeDescriptor(), unit < 0 ? Integer.MAX_VALUE - 1 : unit);
      }
    }
  }

  /**
   * The parent's draws, one rack at a time, with what is needed to take back a failed rack or
   * the whole attempt (a failed draw leaves its tried nodes excluded and its storage types
   * used).
   */
  private final class Draw {
    private final Set<Node> excludedNodes;
    private final long blocksize;
    private final List<DatanodeStorageInfo> results;
    private final boolean avoidStaleNodes;
    private final EnumMap<StorageType, Integer> storageTypes;
    private final Mark start;
    private int lastFrom;

    Draw(Set<Node> excludedNodes, long blocksize, List<DatanodeStorageInfo> results, boolean avoidStaleNodes,
         EnumMap<StorageType, Integer> storageTypes) {
      this.excludedNodes = excludedNodes;
      this.blocksize = blocksize;
      this.results = results;
      this.avoidStaleNodes = avoidStaleNodes;
      this.storageTypes = storageTypes;
      this.start = mark();
    }

    /**
     * Draws {@code count} nodes in {@code rack}, where at most {@code room} more of the group
     * fit; on failure puts everything back as it was before this draw.
     */
    boolean tryRack(String rack, int count, int room) {
      if (count > room) {
        return false;
      }
      Mark mark = mark();
      if (drawUpTo(rack, count) < count) {
        restore(mark);
        return false;
      }
      lastFrom = mark.size();
      return true;
    }

    /** How many eligible DataNodes {@code rack} has, counting up to {@code atMost}; draws nothing. */
    int eligible(String rack, int atMost) {
      Mark mark = mark();
      int n = drawUpTo(rack, atMost);
      restore(mark);
      return n;
    }

    /** Draws up to {@code count} nodes of {@code rack}; how many it drew. */
    private int drawUpTo(String rack, int count) {
      int before = results.size();
      try {
        // maxNodesPerRack would count the group's live blocks (results) too; callers keep the layout's own bound
        chooseRandom(count, NodeBase.normalize(rack), excludedNodes, blocksize, Integer.MAX_VALUE, results,
            avoidStaleNodes, storageTypes);
      } catch (NotEnoughReplicasException e) {
        // fewer than count: what was drawn says how many
      }
      return results.size() - before;
    }

    List<DatanodeStorageInfo> lastDrawn() {
      return results.subList(lastFrom, results.size());
    }

    void undo() {
      restore(start);
    }

    /** What a draw changes: results, excluded nodes (tried ones too), storage types left. */
    private Mark mark() {
      return new Mark(results.size(), new HashSet<>(excludedNodes), new EnumMap<>(storageTypes));
    }

    private void restore(Mark mark) {
      results.subList(mark.size(), results.size()).clear();
      excludedNodes.clear();
      excludedNodes.addAll(mark.excluded());
      storageTypes.clear();
      storageTypes.putAll(mark.types());
    }
  }

  private record Mark(int size, Set<Node> excluded, EnumMap<StorageType, Integer> types) {}
}
