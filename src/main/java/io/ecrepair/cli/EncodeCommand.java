package io.ecrepair.cli;

import io.ecrepair.gf.RegionCoders;
import io.ecrepair.layout.Manifest;
import io.ecrepair.layout.Policy;
import io.ecrepair.layout.StripedFileEncoder;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

@Command(name = "encode", mixinStandardHelpOptions = true,
    description = "Lay FILE out exactly as HDFS stores it under a policy: DIR/g<group>_b<index> per internal block, "
        + "plus DIR/manifest.json.")
final class EncodeCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--policy", required = true, description = "Policy name, e.g. RS-6-3-1024k.")
  String policyName;

  @Option(names = "--input", required = true, description = "The file to encode.")
  Path input;

  @Option(names = "--output", required = true, description = "A new or empty directory.")
  Path output;

  @Option(names = "--block-size", defaultValue = "134217728",
      description = "HDFS block size in bytes (default ${DEFAULT-VALUE}); a multiple of the cell size.")
  long blockSize;

  @Mixin
  JsonOption json;

  @Override
  public Integer call() throws Exception {
    Policy policy = Policy.parse(policyName);
    RegionCoders.requireNativeIfConfigured();
    StripedFileEncoder encoder = new StripedFileEncoder(policy, blockSize, policy.code().create(RegionCoders.best()));
    long size = Files.isRegularFile(input) ? Files.size(input) : 0;
    Manifest manifest;
    try (ProgressLine progress = new ProgressLine(spec.commandLine().getErr(), "encode", size)) {
      manifest = encoder.encode(input, output, progress);
    }
    PrintWriter out = spec.commandLine().getOut();
    if (json.enabled) {
      JsonOutput.print(out, manifest);
    } else {
      out.printf("%s: %d bytes in %d block group(s) of %s, written to %s%n",
          input, manifest.fileLength(), manifest.groups(), policy.name(), output);
      Table t = new Table("group", "index", "file", "bytes");
      manifest.blocks().forEach(b -> t.row(b.group(), b.index(), b.file(), b.length()));
      t.print(out);
    }
    return 0;
  }
}
