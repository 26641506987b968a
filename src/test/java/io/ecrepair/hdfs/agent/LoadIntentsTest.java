package io.ecrepair.hdfs.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class LoadIntentsTest {

  @Test
  void eachProbeSeesTheOthersUntilTheyLapse() {
    LoadIntents intents = new LoadIntents();
    assertEquals(0, intents.othersThenAdd(100, 1_000));
    assertEquals(100, intents.othersThenAdd(50, 1_500), "the first probe's intent, not its own");
    assertEquals(150, intents.othersThenAdd(0, 2_000), "a probe announcing nothing adds nothing");
    assertEquals(150, intents.othersThenAdd(0, 2_999));
    assertEquals(50, intents.othersThenAdd(0, 3_000), "the first lapsed after " + LoadIntents.LIFETIME_MS + " ms");
    assertEquals(0, intents.othersThenAdd(0, 3_500));
  }

  @Test
  void aClockGoingBackDropsWhatWasCounted() {
    LoadIntents intents = new LoadIntents();
    intents.othersThenAdd(100, 10_000);
    assertEquals(0, intents.othersThenAdd(0, 5_000));
  }

  @Test
  void aFloodKeepsTheNewest() {
    LoadIntents intents = new LoadIntents();
    for (int i = 0; i < LoadIntents.MAX_KEPT + 100; i++) {
      intents.othersThenAdd(1, 0);
    }
    assertEquals(LoadIntents.MAX_KEPT, intents.othersThenAdd(0, 0));
    assertThrows(IllegalArgumentException.class, () -> intents.othersThenAdd(-1, 0));
    assertThrows(IllegalArgumentException.class, () -> intents.othersThenAdd(LoadIntents.MAX_BYTES + 1, 0));
  }
}
