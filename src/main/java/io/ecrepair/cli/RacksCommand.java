package io.ecrepair.cli;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.layout.Policy;
import io.ecrepair.plan.CombinedLocality;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "racks", mixinStandardHelpOptions = true,
    description = {"Combined locality (ECWide) for LRC policies: how a block group is placed on racks so that a lost "
        + "block is rebuilt with one partial sum per other rack of its local group, what each repair sends across "
        + "racks against one block per rack, and the fault tolerance. For RS, Clay and Butterfly policies: topology "
        + "locality (the group m blocks to a rack), which the NameNode gives the policies named in "
        + "ecrepair.namenode.topology-locality.policies.",
        "With --search: the LRC (k, l, g) and rack count that need the least cross-rack repair bandwidth for k data "
            + "blocks, a fault tolerance and the largest storage overhead allowed, within HDFS's 16 blocks per group."})
final class RacksCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--policy", description = "An EC policy, e.g. LRC-L2-12-4-1024k or RS-10-4-1024k.")
  String policyName;

  @Option(names = "--per-rack", description = "Blocks of a group per rack, at most the fault tolerance "
      + "(default: the fault tolerance, which needs the fewest racks).")
  Integer perRack;

  @Option(names = "--search", description = "Search the parameters instead (needs --k, --faults, --max-overhead).")
  boolean search;

  @Option(names = "--k", description = "Data blocks per group, for --search.")
  Integer k;

  @Option(names = "--faults", description = "Lost blocks every group must survive (f >= 2), for --search.")
  Integer faults;

  @Option(names = "--max-overhead", description = "Largest storage overhead n/k allowed, for --search (e.g. 1.5).")
  Double maxOverhead;

  @Option(names = "--cell", defaultValue = "1048576", description = "Cell size of the policy names --search prints "
      + "(default ${DEFAULT-VALUE}).")
  int cell;

  @Mixin
  JsonOption json;

  @Override
  public Integer call() {
    if (search) {
      if (k == null || faults == null || maxOverhead == null || policyName != null) {
        throw new IllegalArgumentException("--search needs --k, --faults and --max-overhead (and no --policy)");
      }
      return searchParameters();
    }
    if (policyName == null) {
      throw new IllegalArgumentException("give --policy (an LRC policy) or --search");
    }
    return showPlacement();
  }

  private int showPlacement() {
    CodeSpec code = Policy.parse(policyName).code();
    CombinedLocality.Code shape = CombinedLocality.codeOf(code).orElseThrow(() -> new IllegalArgumentException(
        policyName + " has neither local groups nor the fault tolerance of an MDS code: no rack layout for it"));
    int f = code.faultTolerance();
    CombinedLocality c = CombinedLocality.place(shape, perRack == null ? f : perRack);
    boolean lrc = shape instanceof CombinedLocality.Lrc;
    List<Map<String, Object>> rows = new ArrayList<>();
    double combined = 0;
    double spread = 0;
    for (int u = 0; u < code.n(); u++) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("index", u);
      row.put("kind", u < code.k() ? "data" : !lrc ? "parity" : shape.isLocalParity(u) ? "local parity"
          : "global parity");
      row.put("rack", c.rackOf(u));
      row.put("crossRackBlocks", c.crossRackBlocks(u));
      row.put("spreadCrossRackBlocks", c.spreadCrossRackBlocks(u));
      rows.add(row);
      combined += c.crossRackBlocks(u);
      spread += c.spreadCrossRackBlocks(u);
    }
    PrintWriter out = spec.commandLine().getOut();
    if (json.enabled) {
      Map<String, Object> j = new LinkedHashMap<>();
      j.put("policy", policyName);
      j.put("perRack", c.perRack());
      j.put("racks", c.racks());
      j.put("fewestRacks", c.fewestRacks());
      j.put("faultTolerance", Map.of("blocks", f, "racks", c.mostInOneRack() <= f ? 1 : 0));
      j.put("locality", lrc ? "combined" : "topology");
      j.put("meanCrossRackBlocks", combined / code.n());
      j.put("spreadMeanCrossRackBlocks", spread / code.n());
      j.put("blocks", rows);
      JsonOutput.print(out, j);
      return 0;
    }
    out.printf("%s: %d blocks on %d racks, at most %d per rack: survives any %d lost blocks or any one rack%n",
        policyName, code.n(), c.racks().size(), c.mostInOneRack(), f);
    if (lrc) {
      out.printf("fits on %d racks or more (racks holding the last blocks of different groups share); the NameNode's "
          + "CombinedLocalityPlacementPolicy places it so on a cluster with that many racks%n", c.fewestRacks());
    } else {
      out.printf("topology locality: the NameNode's CombinedLocalityPlacementPolicy places it so on %d racks or more "
          + "when ecrepair.namenode.topology-locality.policies names it; a repair reads any %d blocks, summed inside "
          + "each rack (RS chains with ecrepair.datanode.rebuild.rs)%n", c.fewestRacks(), code.k());
    }
    Table racks = new Table("rack", "blocks").leftAligned();
    for (int r = 0; r < c.racks().size(); r++) {
      racks.row(r, c.racks().get(r));
    }
    racks.print(out);
    Table t = new Table("index", "kind", "rack", "cross-rack blocks", "one block per rack");
    rows.forEach(r -> t.row(r.get("index"), r.get("kind"), r.get("rack"), r.get("crossRackBlocks"),
        r.get("spreadCrossRackBlocks")));
    t.print(out);
    out.printf("mean cross-rack repair bandwidth: %.2f blocks, against %.2f with one block per rack%n",
        combined / code.n(), spread / code.n());
    return 0;
  }

  private int searchParameters() {
    List<CombinedLocality.Choice> choices = CombinedLocality.search(k, faults, maxOverhead);
    if (choices.isEmpty()) {
      throw new IllegalArgumentException("no LRC with k=" + k + " and fault tolerance " + faults + " fits "
          + "overhead " + maxOverhead + " within 16 blocks per group (and f >= 2: an LRC has a global parity)");
    }
    PrintWriter out = spec.commandLine().getOut();
    if (json.enabled) {
      List<Map<String, Object>> list = new ArrayList<>();
      for (CombinedLocality.Choice ch : choices) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("policy", ch.policyName(cell));
        m.put("n", ch.code().n());
        m.put("l", ch.code().l());
        m.put("r", ch.code().groupSize());
        m.put("g", ch.code().g());
        m.put("racks", ch.racks());
        m.put("overhead", ch.overhead());
        m.put("meanCrossRackBlocks", ch.meanCrossRack());
        m.put("worstCrossRackBlocks", ch.worstCrossRack());
        list.add(m);
      }
      Map<String, Object> j = new LinkedHashMap<>();
      j.put("k", k);
      j.put("faults", faults);
      j.put("maxOverhead", maxOverhead);
      j.put("best", list.get(0).get("policy"));
      j.put("choices", list);
      JsonOutput.print(out, j);
      return 0;
    }
    Table t = new Table("policy", "n", "r", "racks", "overhead", "mean cross-rack", "worst cross-rack");
    for (CombinedLocality.Choice ch : choices) {
      t.row(ch.policyName(cell), ch.code().n(), ch.code().groupSize(), ch.racks(), String.format("%.2fx", ch.overhead()),
          String.format("%.2f", ch.meanCrossRack()), ch.worstCrossRack());
    }
    t.print(out);
    out.printf("best: %s (combined locality, %d blocks per rack)%n", choices.get(0).policyName(cell), faults);
    return 0;
  }
}
