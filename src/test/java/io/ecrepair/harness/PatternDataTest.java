package io.ecrepair.harness;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class PatternDataTest {
  @Test
  void anyRangeEqualsTheSameSliceOfTheWhole() {
    PatternData d = new PatternData(7);
    byte[] whole = new byte[3 * PatternData.CHUNK + 123];
    d.fill(0, whole, 0, whole.length);
    int from = PatternData.CHUNK - 5;
    byte[] part = new byte[PatternData.CHUNK + 50];
    d.fill(from, part, 0, part.length);
    assertArrayEquals(Arrays.copyOfRange(whole, from, from + part.length), part);
    assertTrue(d.matches(from, part, 0, part.length));
  }

  @Test
  void oneWrongByteOrAnotherSeedIsNoMatch() {
    PatternData d = new PatternData(7);
    byte[] b = new byte[4096];
    d.fill(1000, b, 0, b.length);
    b[4000] ^= 1;
    assertFalse(d.matches(1000, b, 0, b.length));
    byte[] other = new byte[4096];
    new PatternData(8).fill(1000, other, 0, other.length);
    assertFalse(d.matches(1000, other, 0, other.length));
  }
}
