package io.ecrepair.harness;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The slice of ports a test JVM picks its DataNodes' ports from when several run side by side. */
class MiniHdfsPortSliceTest {
  @Test
  void unsetMeansTheWholeRange() {
    assertArrayEquals(new int[] {0, 1}, MiniHdfs.portSlice(null));
    assertArrayEquals(new int[] {0, 1}, MiniHdfs.portSlice(" "));
  }

  @Test
  void jvmNumbersFromOneMapOntoDisjointSlices() {
    assertArrayEquals(new int[] {0, 2}, MiniHdfs.portSlice("1/2"));
    assertArrayEquals(new int[] {1, 2}, MiniHdfs.portSlice("2/2"));
    // A build with more JVMs than slices (another execution's fork count) wraps around.
    assertArrayEquals(new int[] {0, 2}, MiniHdfs.portSlice("3/2"));
  }

  @Test
  void aMalformedSliceIsRefusedByName() {
    for (String bad : new String[] {"2", "0/2", "1/0", "a/2", "1/2/3", "1/100"}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MiniHdfs.portSlice(bad), bad);
      assertTrue(e.getMessage().contains(io.ecrepair.SystemProperties.PORT_SLICE_PROPERTY), e.getMessage());
    }
  }
}
