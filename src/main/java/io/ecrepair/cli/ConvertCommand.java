package io.ecrepair.cli;

import io.ecrepair.hdfs.admin.ErasureCodedFiles;
import io.ecrepair.hdfs.admin.PolicyConverter;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "convert", mixinStandardHelpOptions = true,
    description = {"Rewrite the files under PATH with another erasure coding policy (or 'replication'), safely: each file "
        + "is copied beside itself under the new policy, the copy is read back and compared with the original, its "
        + "parity is verified, and only then does it replace the original (one atomic rename, keeping permission, "
        + "owner, group, ACL, extended attributes and times). A file open for write is skipped; on any failure the "
        + "original stays as it was.",
        "For a directory, the policy is also set on the directory so that new files get it.",
        "Exit status: 0 when every file was converted or already had the policy, 1 when some failed."})
final class ConvertCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--policy", required = true, description = "An enabled policy of the cluster (hdfs ec -listPolicies), "
      + "or 'replication'.")
  String policy;

  @Mixin
  ClusterOptions cluster;

  @Mixin
  JsonOption json;

  @Override
  public Integer call() throws Exception {
    ClusterOptions.Target target = cluster.open();
    Configuration conf = target.conf();
    Path p = target.path();
    DistributedFileSystem fs = target.fs();
    String path = target.name();
    List<FileStatus> files = ErasureCodedFiles.under(fs, p);
    PolicyConverter converter = new PolicyConverter(fs, conf, policy);
    long total = 0;
    for (FileStatus f : files) {
      total += 2 * f.getLen(); // copied, then read back
    }
    List<PolicyConverter.Converted> results = new ArrayList<>();
    try (ProgressLine progress = new ProgressLine(spec.commandLine().getErr(), "convert", total)) {
      long before = 0;
      for (FileStatus f : files) {
        long base = before;
        results.add(converter.convert(f, b -> progress.accept(base + b)));
        before += 2 * f.getLen();
      }
    }
    String directoryBefore = fs.getFileStatus(p).isDirectory() ? converter.setOnDirectory(p) : null;
    Map<String, Integer> counts = new TreeMap<>();
    results.forEach(r -> counts.merge(r.outcome(), 1, Integer::sum));
    boolean failed = counts.containsKey("failed");
    PrintWriter out = spec.commandLine().getOut();
    if (json.enabled) {
      Map<String, Object> j = new LinkedHashMap<>();
      j.put("path", path);
      j.put("policy", converter.target());
      j.put("directoryPolicyBefore", directoryBefore);
      j.put("outcomes", counts);
      j.put("ok", !failed);
      j.put("files", results);
      JsonOutput.print(out, j);
      return failed ? EcRepairCli.FAILED : 0;
    }
    out.printf("%s -> %s: %d file(s): %s%n", path, converter.target(), results.size(),
        counts.isEmpty() ? "nothing to convert" : counts.toString().replaceAll("[{}]", "").replace("=", " "));
    if (!results.isEmpty()) {
      Table t = new Table("file", "from", "to", "MiB", "outcome", "detail").leftAligned();
      results.forEach(r -> t.row(r.file(), r.from(), r.to(), String.format("%.1f", r.length() / (double) (1 << 20)),
          r.outcome(), r.detail()));
      t.print(out);
    }
    if (directoryBefore != null) {
      out.printf("directory %s: policy %s (was %s), new files get it%n", path, converter.target(), directoryBefore);
    }
    return failed ? EcRepairCli.FAILED : 0;
  }
}
