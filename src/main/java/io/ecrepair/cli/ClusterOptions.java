package io.ecrepair.cli;

import io.ecrepair.hdfs.admin.ErasureCodedFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * What a command that works on a live cluster is given: a PATH on HDFS, and how to find the
 * cluster: its configuration as {@code hdfs} reads it (core-site.xml and hdfs-site.xml on the
 * classpath: {@code $HADOOP_CONF_DIR}), plus files and settings given on the command line.
 */
final class ClusterOptions {
  /** The path, the configuration and the HDFS the path is on. */
  record Target(String name, org.apache.hadoop.fs.Path path, Configuration conf, DistributedFileSystem fs) {}

  @Parameters(paramLabel = "PATH", description = "A file or directory on HDFS.")
  String path;

  @Option(names = "-D", paramLabel = "KEY=VALUE", description = "A Hadoop setting (repeatable), e.g. -D fs.defaultFS=hdfs://nn:8020.")
  Map<String, String> settings = new LinkedHashMap<>();

  @Option(names = "--conf", paramLabel = "FILE", description = "A Hadoop configuration file to add (repeatable).")
  List<java.nio.file.Path> files = new ArrayList<>();

  /** Connects to the cluster PATH is on. */
  Target open() throws IOException {
    Configuration conf = configuration();
    org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path(path);
    return new Target(path, p, conf, ErasureCodedFiles.fileSystem(p, conf));
  }

  private Configuration configuration() {
    Configuration conf = new HdfsConfiguration();
    for (java.nio.file.Path f : files) {
      if (!Files.isReadable(f)) {
        throw new IllegalArgumentException("--conf " + f + ": no such readable file");
      }
      conf.addResource(new org.apache.hadoop.fs.Path(f.toAbsolutePath().toUri()));
    }
    settings.forEach(conf::set);
    return conf;
  }
}
