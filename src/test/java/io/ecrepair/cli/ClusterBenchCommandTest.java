package io.ecrepair.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** The command's checks that run before any cluster is made (the cluster itself is the smoke run's). */
class ClusterBenchCommandTest {
  private static String[] run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = EcRepairCli.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
    return new String[] {Integer.toString(code), out.toString(), err.toString()};
  }

  @Test
  void helpNamesTheScenariosAndOptions() {
    String[] r = run("bench", "cluster", "--help");
    assertEquals("0", r[0]);
    assertTrue(r[1].contains("--datanodes") && r[1].contains("--scenarios") && r[1].contains("RS-10-4-1024k+plugin"),
        r[1]);
  }

  @Test
  void badSettingsFailInOneLineBeforeAnythingStarts() {
    String[] r = run("bench", "cluster", "--block-size", "3m", "--scenarios", "BUTTERFLY-10-2-4096k");
    assertEquals(Integer.toString(EcRepairCli.USAGE), r[0]);
    assertTrue(r[2].contains("not a multiple"), r[2]);
    r = run("bench", "cluster", "--datanodes", "9", "--scenarios", "RS-10-4-1024k");
    assertEquals(Integer.toString(EcRepairCli.USAGE), r[0]);
    assertTrue(r[2].contains("needs at least 15 DataNodes"), r[2]);
    r = run("bench", "cluster", "--scenarios", "CLAY-10-4-1024k+plugin");
    assertEquals(Integer.toString(EcRepairCli.USAGE), r[0]);
  }

  @Test
  void sizes() {
    assertEquals(16L << 20, ClusterBenchCommand.parseSize("16m"));
    assertEquals(1024L << 10, ClusterBenchCommand.parseSize("1024K"));
    assertEquals(4096, ClusterBenchCommand.parseSize("4096"));
    assertThrows(IllegalArgumentException.class, () -> ClusterBenchCommand.parseSize("-1m"));
    assertThrows(IllegalArgumentException.class, () -> ClusterBenchCommand.parseSize("lots"));
  }
}
