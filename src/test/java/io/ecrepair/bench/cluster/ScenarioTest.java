package io.ecrepair.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ScenarioTest {
  @Test
  void defaultsAreTheIssuesFiveScenarios() {
    List<Scenario> s = Scenario.parseList(Scenario.DEFAULTS);
    assertEquals(5, s.size());
    assertTrue(s.get(0).isStockRs());
    assertTrue(s.get(1).pluginRebuildsRs());
    assertFalse(s.get(1).isStockRs());
    assertEquals("RS-10-4-1024k_plugin", Scenario.pathName(s.get(1).name()));
    assertEquals("clay", s.get(2).codec());
    assertEquals("lrc-l2", s.get(4).codec());
  }

  @Test
  void pluginSuffixOnlyForRsAndNoDuplicates() {
    assertThrows(IllegalArgumentException.class, () -> Scenario.parse("CLAY-10-4-1024k+plugin"));
    assertThrows(IllegalArgumentException.class, () -> Scenario.parseList("RS-6-3-1024k,RS-6-3-1024k"));
    assertThrows(IllegalArgumentException.class, () -> Scenario.parseList(" , "));
    assertThrows(IllegalArgumentException.class, () -> Scenario.parse("NOPE-1-1"));
  }
}
