package io.ecrepair.bench.thrash;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
    AgentResources base = new AgentResources(1, 0, 243);
    assertTrue(new AgentResources(1, 0, 243).within(base));
    assertTrue(new AgentResources(1, 0, 240).within(base));
    assertFalse(new AgentResources(2, 0, 243).within(base));
    assertFalse(new AgentResources(1, 1, 243).within(base));
    assertFalse(new AgentResources(1, 0, 244).within(base));
  }
}
