package io.ecrepair.hdfs.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PlanFramesTest {
  private static final int KIB = 1024;

  @Test
  void aChainsOneStreamQueuesSixteenFrames() {
    assertEquals(16, PlanFrames.window(128 * KIB, 1));
    assertEquals(16, PlanFrames.window(4 * KIB, 1));
  }

  @Test
  void streamsOfOneDirectionShareTheWindow() {
    assertEquals(8, PlanFrames.window(128 * KIB, 4)); // 1 MiB each
    assertEquals(2, PlanFrames.window(128 * KIB, 13)); // the floor: 256 KiB each
    assertEquals(16, PlanFrames.window(16 * KIB, 13));
  }

  @Test
  void aStreamHoldsTwoFramesWhateverTheirSize() {
    assertEquals(2, PlanFrames.window(4096 * KIB, 1));
    assertEquals(2, PlanFrames.window(4096 * KIB, 30));
  }

  /** What a direction's queues hold is never more than 4 MiB or 256 KiB per stream, or two frames each. */
  @Test
  void aDirectionsQueuesAreBoundedInBytes() {
    for (int streams = 1; streams <= 64; streams++) {
      for (int frame = 1; frame <= 8 * 1024 * KIB; frame = frame * 2 + 1) { // sizes between classes too
        int size = FrameBuffers.sizeClass(frame);
        long held = (long) streams * PlanFrames.window(frame, streams) * size;
        long bound = Math.max(Math.max(4096L * KIB, 256L * KIB * streams), 2L * size * streams);
        assertTrue(held <= bound, streams + " streams of " + frame + "-byte frames hold " + held);
      }
    }
  }
}
