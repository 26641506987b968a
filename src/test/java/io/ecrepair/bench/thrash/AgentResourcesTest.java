package io.ecrepair.bench.thrash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which threads count as the agent's, as Linux names them (the first 15 characters), and the baseline rule. */
class AgentResourcesTest {
  @Test
  void threadsThatComeWithWorkCountSingletonExecutorsDoNot() {
    assertTrue(AgentResources.agentThread("ec-repair-agent"));  // acceptor and handlers
    assertTrue(AgentResources.agentThread("ec-repair-part-"));
    assertTrue(AgentResources.agentThread("ec-repair-read-"));
    assertFalse(AgentResources.agentThread("ec-repair-plan-"));
    assertFalse(AgentResources.agentThread("ec-repair-polic"));
    assertFalse(AgentResources.agentThread("ec-repair-alarm"));
    assertFalse(AgentResources.agentThread("DataXceiver for"));
  }

  @Test
  void anyFigureAboveItsBaselineIsNotBack() {
    AgentResources base = new AgentResources(1, 0, Map.of("socket", 40, "replica files", 3));
    assertTrue(new AgentResources(1, 0, Map.of("socket", 40, "replica files", 3)).within(base));
    assertTrue(new AgentResources(1, 0, Map.of("socket", 38, "replica files", 2)).within(base));
    assertFalse(new AgentResources(2, 0, Map.of("socket", 40, "replica files", 3)).within(base));
    assertFalse(new AgentResources(1, 1, Map.of("socket", 40, "replica files", 3)).within(base));
    AgentResources oneMore = new AgentResources(1, 0, Map.of("socket", 37, "replica files", 5));
    assertFalse(oneMore.within(base), "fewer sockets do not make up for more open replica files");
    assertEquals("replica files +2", oneMore.grownDescriptors(base));
    assertFalse(new AgentResources(1, 0, Map.of("socket", 40, "replica files", 3, "pipe", 1)).within(base));
  }

  @Test
  void descriptorsTheJvmOpensOnceAreNotCounted() {
    assertEquals("", AgentResources.descriptorKind("/opt/hadoop/share/hadoop/common/lib/guava-27.0-jre.jar"));
    assertEquals("", AgentResources.descriptorKind("/dev/urandom"));
    assertEquals("socket", AgentResources.descriptorKind("socket:[123456]"));
    assertEquals("[eventpoll]", AgentResources.descriptorKind("anon_inode:[eventpoll]"));
    assertEquals("replica files",
        AgentResources.descriptorKind("/x/dn3/data/current/BP-1-127.0.0.1-1/current/finalized/subdir0/subdir0/blk_1"));
    assertEquals("/x/dn3/logs/datanode.log", AgentResources.descriptorKind("/x/dn3/logs/datanode.log"));
  }
}
