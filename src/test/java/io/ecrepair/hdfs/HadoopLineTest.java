package io.ecrepair.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.hadoop.util.VersionInfo;
import org.junit.jupiter.api.Test;

class HadoopLineTest {
  @Test
  void theBuildIsForTheHadoopItWasCompiledAndTestedAgainst() {
    assertEquals(VersionInfo.getVersion(), HadoopLine.builtVersion());
    assertTrue(VersionInfo.getVersion().startsWith(HadoopLine.built() + "."), HadoopLine.built());
    assertNull(HadoopLine.mismatch());
  }

  @Test
  void anotherLineIsRefusedWithBothVersionsNamed() {
    assertNull(HadoopLine.mismatch("3.3", "3.3.6", "3.3.5"));
    assertNull(HadoopLine.mismatch("3.4", "3.4.2", "3.4.1-vendor-7"));
    String why = HadoopLine.mismatch("3.3", "3.3.6", "3.4.2");
    assertNotNull(why);
    assertTrue(why.contains("Hadoop 3.3 (built against 3.3.6)") && why.contains("Hadoop 3.4.2"), why);
    assertNotNull(HadoopLine.mismatch("3.3", "3.3.6", "3.30.0"));
  }
}
