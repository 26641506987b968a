package io.ecrepair.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import picocli.CommandLine.Option;

/**
 * How a command that talks to a live cluster finds it: the cluster's configuration as
 * {@code hdfs} reads it (core-site.xml and hdfs-site.xml on the classpath: {@code
 * $HADOOP_CONF_DIR}), plus files and settings given on the command line.
 */
final class ClusterOptions {
  @Option(names = "-D", paramLabel = "KEY=VALUE", description = "A Hadoop setting (repeatable), e.g. -D fs.defaultFS=hdfs://nn:8020.")
  Map<String, String> settings = new LinkedHashMap<>();

  @Option(names = "--conf", paramLabel = "FILE", description = "A Hadoop configuration file to add (repeatable).")
  List<Path> files = new ArrayList<>();

  Configuration configuration() {
    Configuration conf = new HdfsConfiguration();
    for (Path f : files) {
      if (!Files.isReadable(f)) {
        throw new IllegalArgumentException("--conf " + f + ": no such readable file");
      }
      conf.addResource(new org.apache.hadoop.fs.Path(f.toAbsolutePath().toUri()));
    }
    settings.forEach(conf::set);
    return conf;
  }
}
