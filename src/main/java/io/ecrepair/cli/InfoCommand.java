package io.ecrepair.cli;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.layout.Policy;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

@Command(name = "info", mixinStandardHelpOptions = true,
    description = "Show a policy's parameters: n, k, m, sub-packetization, sub-chunk size, repair read per lost block, "
        + "fault tolerance, storage overhead.")
final class InfoCommand implements Callable<Integer> {
  /** Below this, sub-chunk reads get small and slow (docs/architecture.md#cell-layout). */
  static final int MIN_SUBCHUNK = 4096;

  @Spec
  CommandSpec spec;

  @Option(names = "--policy", required = true, description = "Policy name, e.g. RS-6-3-1024k.")
  String policyName;

  @Option(names = "--cell", description = "Cell size in bytes (default: the policy's).")
  Integer cell;

  @Mixin
  JsonOption json;

  @Override
  public Integer call() {
    Policy policy = Policy.parse(policyName);
    if (cell != null) {
      policy = policy.withCellSize(cell);
    }
    CodeSpec code = policy.code();
    int alpha = code.subPacketization();
    Map<String, Object> info = new LinkedHashMap<>();
    info.put("policy", policy.name());
    info.put("codec", code.codec());
    info.put("n", code.n());
    info.put("k", code.k());
    info.put("m", code.m());
    info.put("cellBytes", policy.cellSize());
    info.put("alpha", alpha);
    info.put("subChunkBytes", policy.cellSize() / alpha);
    info.put("repairBlocksPerLostBlock", code.repairBlocksPerLostBlock());
    info.put("faultTolerance", code.faultTolerance());
    info.put("storageOverhead", (double) code.n() / code.k());
    info.putAll(code.family().details(code));
    PrintWriter out = spec.commandLine().getOut();
    int subchunk = policy.cellSize() / alpha;
    String warning = alpha > 1 && subchunk < MIN_SUBCHUNK
        ? "sub-chunks of " + subchunk + " bytes are under 4 KiB: repair reads become small and slow; use cells of at least "
            + (long) alpha * MIN_SUBCHUNK + " bytes"
        : null;
    if (warning != null) {
      info.put("warning", warning);
      spec.commandLine().getErr().println("ec-repair info: warning: " + warning);
    }
    if (json.enabled) {
      JsonOutput.print(out, info);
      return 0;
    }
    Table table = new Table("property", "value").leftAligned()
        .row("policy", policy.name())
        .row("codec", code.codec())
        .row("n / k / m", code.n() + " / " + code.k() + " / " + code.m())
        .row("cell", policy.cellSize() + " bytes")
        .row("sub-packetization (alpha)", alpha)
        .row("sub-chunk", policy.cellSize() / alpha + " bytes")
        .row("repair read per lost block", String.format("%.2f blocks", code.repairBlocksPerLostBlock()))
        .row("fault tolerance", code.faultTolerance() + " lost blocks per group")
        .row("storage overhead", String.format("%.2fx", (double) code.n() / code.k()));
    code.family().details(code).forEach(table::row);
    table.print(out);
    return 0;
  }
}
