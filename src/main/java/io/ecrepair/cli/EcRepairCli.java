package io.ecrepair.cli;

import io.ecrepair.hdfs.HadoopLine;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code ec-repair}: the command line of hadoop-ec-repair (docs/cli.md; its contract,
 * docs/architecture.md#command-line-contract). Every command has --help, answers bad input
 * with one line and a non-zero exit, and prints one JSON object with --json.
 */
@Command(name = "ec-repair", mixinStandardHelpOptions = true, versionProvider = EcRepairCli.Version.class,
    description = "Fast erasure-coding repair for HDFS: inspect policies, lay files out as HDFS stores them, "
        + "rebuild them, benchmark the coders.",
    subcommands = {InfoCommand.class, EncodeCommand.class, DecodeCommand.class, RepairCommand.class, PlanCommand.class,
        RacksCommand.class, StatusCommand.class, VerifyCommand.class, ConvertCommand.class, BudgetCommand.class, BenchCommand.class,
        DemoCommand.class})
public final class EcRepairCli implements Runnable {
  /** The version, the Hadoop line the build is for, and the Hadoop it runs on. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String why = HadoopLine.mismatch();
      return new String[] {"hadoop-ec-repair 0.1.0 for Hadoop " + HadoopLine.built() + " (built against "
          + HadoopLine.builtVersion() + ")", "running on Hadoop " + org.apache.hadoop.util.VersionInfo.getVersion()
          + (why == null ? "" : ": " + why)};
    }
  }

  /** Exit code for bad arguments. */
  public static final int USAGE = 2;
  /** Exit code for a command that failed. */
  public static final int FAILED = 1;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "a command is required (info, encode, decode, repair, plan, racks, status, verify, convert, budget, bench, demo)");
  }

  public static void main(String[] args) {
    LogFile.enable();
    System.exit(run(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
  }

  /** Runs the command line with the given streams; returns the exit code. */
  public static int run(String[] args, PrintWriter out, PrintWriter err) {
    CommandLine cli = new CommandLine(new EcRepairCli());
    cli.setOut(out);
    cli.setErr(err);
    cli.setParameterExceptionHandler((ex, a) -> {
      String command = ex.getCommandLine().getCommandSpec().qualifiedName();
      err.println(command + ": " + ex.getMessage() + " (see '" + command + " --help')");
      return USAGE;
    });
    cli.setExecutionExceptionHandler((ex, cmd, parsed) -> {
      err.println(cmd.getCommandSpec().qualifiedName() + ": " + oneLine(ex)
          + LogFile.current().map(f -> " (log: " + f + ")").orElse(""));
      if (System.getenv("EC_REPAIR_DEBUG") != null) {
        ex.printStackTrace(err);
      }
      LogFile.current().ifPresent(f -> LogFile.failed(ex));
      return ex instanceof IllegalArgumentException ? USAGE : FAILED;
    });
    return cli.execute(args);
  }

  /** A reason on one line: the message, or the exception's kind where it has none. */
  static String oneLine(Throwable t) {
    String msg = t.getMessage();
    if (msg == null || msg.isBlank()) {
      msg = t.getClass().getSimpleName();
    } else if (!(t instanceof IllegalArgumentException || t instanceof IllegalStateException)) {
      msg = t.getClass().getSimpleName() + ": " + msg;
    }
    return msg.replace('\n', ' ');
  }
}
