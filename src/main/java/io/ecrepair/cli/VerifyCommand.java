package io.ecrepair.cli;

import io.ecrepair.hdfs.admin.ErasureCodedFiles;
import io.ecrepair.hdfs.admin.StripeVerifier;
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
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "verify", mixinStandardHelpOptions = true,
    description = {"Re-encode every cell row of the erasure-coded files under PATH from their data blocks and compare "
        + "the result with the stored parity blocks, for every codec (with the raw coder HDFS uses for it), whole "
        + "cells at a time.",
        "Bytes are read with their stored checksums verified; a replica that fails its checksum is reported to the "
            + "NameNode. Groups missing a data block are skipped (verify again after HDFS rebuilt it).",
        "Where a row does not match, the one block the others contradict (wrong bytes under valid checksums) is "
            + "found and reported to the NameNode as corrupt, which rebuilds it.",
        "Exit status: 0 when nothing bad was found, 1 when a group mismatched, failed a checksum or could not be read."})
final class VerifyCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--all", description = "List every block group (default: those not OK).")
  boolean all;

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
    List<FileStatus> files = ErasureCodedFiles.under(fs, p).stream().filter(FileStatus::isErasureCoded).toList();
    // Progress counts every internal block's bytes, data and parity.
    long[] stored = new long[files.size()];
    for (int i = 0; i < files.size(); i++) {
      ErasureCodingPolicy policy = fs.getErasureCodingPolicy(files.get(i).getPath());
      stored[i] = files.get(i).getLen() * (policy.getNumDataUnits() + policy.getNumParityUnits())
          / policy.getNumDataUnits();
    }
    long total = java.util.Arrays.stream(stored).sum();
    StripeVerifier verifier = new StripeVerifier(fs, conf);
    List<StripeVerifier.GroupResult> results = new ArrayList<>();
    try (ProgressLine progress = new ProgressLine(spec.commandLine().getErr(), "verify", total)) {
      long before = 0;
      for (int i = 0; i < files.size(); i++) {
        long base = before;
        results.addAll(verifier.verify(files.get(i), b -> progress.accept(Math.min(total, base + b))));
        before += stored[i];
      }
    }
    boolean failed = failed(results);
    PrintWriter out = spec.commandLine().getOut();
    if (json.enabled) {
      JsonOutput.print(out, json(path, files.size(), results));
    } else {
      print(out, path, files.size(), results, all);
    }
    return failed ? EcRepairCli.FAILED : 0;
  }

  /** Whether a group mismatched, failed a checksum or could not be read. */
  static boolean failed(List<StripeVerifier.GroupResult> results) {
    return results.stream().anyMatch(r -> r.bad() || r.outcome().equals("unreadable"));
  }

  private static Map<String, Integer> outcomes(List<StripeVerifier.GroupResult> results) {
    Map<String, Integer> counts = new TreeMap<>();
    results.forEach(r -> counts.merge(r.outcome(), 1, Integer::sum));
    return counts;
  }

  static Map<String, Object> json(String path, int files, List<StripeVerifier.GroupResult> results) {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("path", path);
    j.put("files", files);
    j.put("blockGroups", results.size());
    j.put("outcomes", outcomes(results));
    j.put("ok", !failed(results));
    j.put("groups", results);
    return j;
  }

  /** The text report: totals by outcome, the groups not OK (or all), a verdict. */
  static void print(PrintWriter out, String path, int files, List<StripeVerifier.GroupResult> results, boolean all) {
    Map<String, Integer> counts = outcomes(results);
    out.printf("%s: verified %d block group(s) of %d erasure-coded file(s): %s%n", path, results.size(), files,
        counts.isEmpty() ? "nothing to verify" : counts.toString().replaceAll("[{}]", "").replace("=", " "));
    List<StripeVerifier.GroupResult> listed = results.stream().filter(r -> all || !r.ok()).toList();
    if (!listed.isEmpty()) {
      Table t = new Table("file", "group", "policy", "block", "outcome", "detail").leftAligned();
      listed.forEach(r -> t.row(r.file(), r.group(), r.policy(), r.block(), r.outcome(), r.detail()));
      t.print(out);
    }
    out.println(failed(results) ? "FAILED: bad or unreadable block groups found"
        : "OK: every verified block group matches its parity");
  }
}
