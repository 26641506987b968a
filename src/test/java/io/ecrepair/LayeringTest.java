package io.ecrepair;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import io.ecrepair.hdfs.datanode.EcRepairDataNodePlugin;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Which of our packages may use which, checked on the compiled main classes. The codes and
 * their repair plans run without Hadoop; the plugin jar (every class outside the tools packages,
 * see pom.xml) runs in NameNodes and DataNodes, which have neither the tools jar nor picocli.
 */
class LayeringTest {
  /** Hadoop-free: the codes, their repair graphs and plans, their execution, the stripe layout. */
  static final String[] CORE = {"io.ecrepair.gf..", "io.ecrepair.ecdag..", "io.ecrepair.codes..",
      "io.ecrepair.plan..", "io.ecrepair.exec..", "io.ecrepair.layout.."};
  /** The tools jar: command line, benchmarks, in-process HDFS harness, demo. */
  static final String[] TOOLS = {"io.ecrepair.cli..", "io.ecrepair.bench..", "io.ecrepair.harness..",
      "io.ecrepair.demo.."};

  private static JavaClasses main;

  @BeforeAll
  static void importMainClasses() throws URISyntaxException {
    // Exactly the main output (target/classes), not the test classes nor any jar.
    Path classes = Path.of(EcRepairDataNodePlugin.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    main = new ClassFileImporter().importPath(classes);
    Set<String> packages = main.stream().map(c -> c.getPackageName()).collect(Collectors.toSet());
    for (String p : new String[] {"io.ecrepair.gf", "io.ecrepair.codes", "io.ecrepair.hdfs.datanode",
        "io.ecrepair.cli", "io.ecrepair.harness", "org.apache.hadoop.hdfs"}) {
      assertTrue(packages.contains(p), "imported " + classes + " holds " + p);
    }
  }

  @Test
  void coreDependsOnNeitherHadoopNorTheHdfsAdapters() {
    noClasses().that().resideInAnyPackage(CORE)
        .should().dependOnClassesThat().resideInAnyPackage("org.apache.hadoop..", "io.ecrepair.hdfs..")
        .because("the codes, plans and their execution run and are tested without Hadoop")
        .check(main);
  }

  @Test
  void theExecutorKnowsNoPlanner() {
    noClasses().that().resideInAnyPackage("io.ecrepair.exec..")
        .should().dependOnClassesThat().resideInAnyPackage("io.ecrepair.plan..")
        .because("plan decides and exec executes: plans are built from the executor's pieces, never the other way")
        .check(main);
  }

  @Test
  void hdfsAdaptersAndHadoopShimsDependOnNoTool() {
    noClasses().that().resideInAnyPackage("io.ecrepair.hdfs..", "org.apache.hadoop..")
        .should().dependOnClassesThat().resideInAnyPackage(TOOLS)
        .because("DataNodes, NameNodes and clients load them from the plugin jar, without the tools jar")
        .check(main);
  }

  @Test
  void pluginJarDependsOnNoTool() {
    noClasses().that().resideOutsideOfPackages(TOOLS)
        .should().dependOnClassesThat().resideInAnyPackage(TOOLS)
        .because("the plugin jar holds every class outside the tools packages and goes onto daemons alone")
        .check(main);
  }

  @Test
  void pluginJarNeedsNoPicocli() {
    noClasses().that().resideOutsideOfPackages(TOOLS)
        .should().dependOnClassesThat().resideInAnyPackage("picocli..")
        .because("picocli ships for the command line only, never onto a daemon's classpath")
        .check(main);
  }
}
