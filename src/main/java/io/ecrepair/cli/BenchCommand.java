package io.ecrepair.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

@Command(name = "bench", mixinStandardHelpOptions = true,
    description = "Benchmarks: each figure beside its peer (stock HDFS, Hadoop's own coders, raw ISA-L) and, where "
        + "one can be worked out, its physical floor.",
    subcommands = {CoderBenchCommand.class, ReconstructionBenchCommand.class, DegradedReadBenchCommand.class,
        ReadChoiceBenchCommand.class, ClusterBenchCommand.class,
        ThrashBenchCommand.class, UpgradeBenchCommand.class})
final class BenchCommand implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "a benchmark is required (coder)");
  }
}
