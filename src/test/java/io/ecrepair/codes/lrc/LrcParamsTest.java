package io.ecrepair.codes.lrc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.gf.RegionCoders;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class LrcParamsTest {

  @Test
  void codecNameGivesLocalAndGlobalParities() {
    LrcCode.Params p = LrcCode.fromCodec("lrc-l2", 12, 4);
    assertEquals(new LrcCode.Params(12, 2, 2), p);
    assertEquals("lrc-l2", p.codecName());
    assertEquals(new LrcCode.Params(12, 3, 1), LrcCode.Params.fromCodec("LRC-L3", 12, 4));
    assertEquals(16, p.n());
    assertEquals(4, p.m());
    LrcCode code = new LrcCode(p, RegionCoders.java());
    assertEquals("lrc-l2", code.codecName());
    assertEquals(p, LrcCode.fromCodec(code.codecName(), code.dataUnits(), code.parityUnits()));
    assertEquals("LRC(12,2,2)", code.name());
  }

  @Test
  void badCodecNamesAndParametersAreClearErrors() {
    assertMessage("m >= 5", () -> LrcCode.fromCodec("lrc-l4", 12, 4));
    assertMessage("m >= 3", () -> LrcCode.fromCodec("lrc-l2", 12, 2));
    assertMessage("not an LRC codec", () -> LrcCode.fromCodec("rs", 6, 3));
    assertMessage("not an LRC codec", () -> LrcCode.fromCodec("lrc-l0", 6, 3));
    assertMessage("not an LRC codec", () -> LrcCode.fromCodec("lrc-lx", 6, 3));
    assertMessage("not an LRC codec", () -> LrcCode.fromCodec("lrc", 6, 3));
    assertMessage("no codec", () -> LrcCode.fromCodec(null, 6, 3));
    assertMessage("16", () -> new LrcCode.Params(12, 2, 3));
    assertMessage("16", () -> LrcCode.fromCodec("lrc-l2", 13, 4));
    assertMessage("group 3 would be empty", () -> new LrcCode.Params(6, 4, 1));
    assertMessage("1 <= l <= k", () -> new LrcCode.Params(2, 3, 1));
    assertMessage("1 <= l <= k", () -> new LrcCode.Params(4, 0, 1));
    assertMessage("global parity", () -> new LrcCode.Params(4, 2, 0));
    assertMessage("data unit", () -> new LrcCode.Params(0, 1, 1));
    assertEquals(16, LrcCode.MAX_UNITS);
  }

  @Test
  void groupsAreConsecutiveRunsWithASmallerLastGroup() {
    LrcCode.Params p = new LrcCode.Params(7, 2, 2);
    assertEquals(4, p.groupSize());
    assertEquals(0, p.groupStart(0));
    assertEquals(4, p.groupEnd(0));
    assertEquals(4, p.groupStart(1));
    assertEquals(7, p.groupEnd(1));
    LrcCode code = new LrcCode(p, RegionCoders.java());
    assertArrayEquals(new int[] {0, 0, 0, 0, 1, 1, 1, 0, 1, -1, -1},
        IntStream.range(0, 11).map(code::groupOf).toArray());
    assertEquals(7, code.localParity(0));
    assertEquals(10, code.globalParity(1));
    // the generator the code reports is the one the encoder applies
    assertEquals(LrcOracle.encodedGenerator(code, 7, 4), code.generator());
    // (10, 4, 1): groups of 3, 3, 3, 1
    LrcCode.Params q = new LrcCode.Params(10, 4, 1);
    assertEquals(9, q.groupStart(3));
    assertEquals(10, q.groupEnd(3));
  }

  private static void assertMessage(String part, org.junit.jupiter.api.function.Executable e) {
    IllegalArgumentException x = assertThrows(IllegalArgumentException.class, e);
    assertTrue(x.getMessage().contains(part), "message '" + x.getMessage() + "' lacks '" + part + "'");
  }
}
