package io.ecrepair.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

@Command(name = "bench", mixinStandardHelpOptions = true,
    description = "Benchmarks, side by side with Hadoop's own coders and raw ISA-L.",
    subcommands = {CoderBenchCommand.class, ReconstructionBenchCommand.class, DegradedReadBenchCommand.class,
        ReadChoiceBenchCommand.class, ClusterBenchCommand.class})
final class BenchCommand implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "a benchmark is required (coder)");
  }
}
