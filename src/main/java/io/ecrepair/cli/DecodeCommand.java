package io.ecrepair.cli;

import io.ecrepair.gf.RegionCoders;
import io.ecrepair.layout.Manifest;
import io.ecrepair.layout.StripedFileDecoder;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

@Command(name = "decode", mixinStandardHelpOptions = true,
    description = "Rebuild the original file from whatever internal blocks of an 'encode' directory remain.")
final class DecodeCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--input", required = true, description = "A directory written by 'ec-repair encode'.")
  Path input;

  @Option(names = "--output", required = true, description = "The file to write.")
  Path output;

  @Option(names = "--force", description = "Replace OUTPUT if it exists (only once decoding succeeded).")
  boolean force;

  @Mixin
  JsonOption json;

  @Override
  public Integer call() throws Exception {
    RegionCoders.requireNativeIfConfigured();
    StripedFileDecoder decoder = new StripedFileDecoder(spec -> spec.create(RegionCoders.best()));
    StripedFileDecoder.Result result;
    try (ProgressLine progress = new ProgressLine(spec.commandLine().getErr(), "decode", Long.MAX_VALUE)) {
      result = decoder.decode(input, output, force, progress);
    }
    Manifest m = result.manifest();
    List<Manifest.BlockEntry> present = m.blocks().stream().filter(b -> !result.missing().contains(b)).toList();
    PrintWriter out = spec.commandLine().getOut();
    if (json.enabled) {
      Map<String, Object> j = new LinkedHashMap<>();
      j.put("policy", m.policy());
      j.put("fileLength", m.fileLength());
      j.put("groups", m.groups());
      j.put("blocks", present);
      j.put("missing", result.missing());
      j.put("bytesRead", result.bytesRead());
      j.put("output", output.toString());
      JsonOutput.print(out, j);
    } else {
      out.printf("%s: %d bytes rebuilt from %d of %d internal blocks (%d missing), %d bytes read%n",
          output, m.fileLength(), present.size(), m.blocks().size(), result.missing().size(), result.bytesRead());
    }
    return 0;
  }
}
