package io.ecrepair.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.SystemProperties;
import io.ecrepair.bench.cluster.ClusterOptions;
import io.ecrepair.hdfs.HadoopLine;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which distribution the benchmark cluster's JVMs run, per Hadoop line. */
class LineDistributionTest {
  @TempDir
  Path tmp;

  @Test
  void eachLineIsTheBuildNextToThisOne() throws Exception {
    Path here = Files.createDirectories(tmp.resolve("hadoop-ec-repair"));
    String before = System.getProperty(SystemProperties.HOME_PROPERTY);
    System.setProperty(SystemProperties.HOME_PROPERTY, here.toString());
    try {
      assertEquals(here, LineDistribution.of(null), "no line: this build");
      assertEquals(here, LineDistribution.of(HadoopLine.built()), "this build's own line");
      IllegalArgumentException missing = assertThrows(IllegalArgumentException.class, () -> LineDistribution.of("3.4"));
      assertTrue(missing.getMessage().contains("mvn -DskipTests package -Dhadoop.version=3.4.2"), missing.getMessage());
      IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class, () -> LineDistribution.of("2.10"));
      assertTrue(unknown.getMessage().contains("3.3, 3.4, 3.5"), unknown.getMessage());

      Path other = tmp.resolve("hadoop-ec-repair-hadoop3.4");
      Files.createDirectories(other.resolve("lib").resolve("hadoop"));
      Files.createFile(other.resolve("lib").resolve("hadoop-ec-repair.jar"));
      Files.createFile(other.resolve("lib").resolve("hadoop").resolve("hadoop-hdfs-client-3.4.2.jar"));
      Files.createFile(other.resolve("lib").resolve("hadoop").resolve("hadoop-hdfs-3.4.2.jar"));
      assertEquals(other, LineDistribution.of("3.4"));
      ClusterOptions on34 = new ClusterOptions(10, 0, 100, 100, 100, 1 << 20, "384m", Map.of()).withDist(other);
      assertEquals("3.4.2", on34.hadoopVersion(), "the version of the HDFS jar, not of the client jar");
      int at = on34.upArguments().indexOf("--dist");
      assertEquals(other.toString(), on34.upArguments().get(at + 1), "the cluster script is told which build to run");
    } finally {
      if (before == null) {
        System.clearProperty(SystemProperties.HOME_PROPERTY);
      } else {
        System.setProperty(SystemProperties.HOME_PROPERTY, before);
      }
    }
  }

  @Test
  void withoutADistributionTheScriptPicks() {
    ClusterOptions plain = new ClusterOptions(10, 0, 100, 100, 100, 1 << 20, "384m", Map.of());
    assertNull(plain.hadoopVersion());
    assertTrue(!plain.upArguments().contains("--dist"));
  }

  @Test
  void anUpgradeNeedsTwoLines() {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = EcRepairCli.run(new String[] {"bench", "upgrade", "--to", HadoopLine.built()},
        new PrintWriter(out, true), new PrintWriter(err, true));
    assertEquals(EcRepairCli.USAGE, code);
    assertTrue(err.toString().contains("same Hadoop line"), err.toString());
  }
}
