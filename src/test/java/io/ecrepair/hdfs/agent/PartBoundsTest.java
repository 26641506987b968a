package io.ecrepair.hdfs.agent;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.exec.NodePart;
import io.ecrepair.exec.SliceGeometry;
import io.ecrepair.gf.GFMatrix;
import io.ecrepair.hdfs.RepairCatalog;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.util.DataChecksum;
import org.junit.jupiter.api.Test;

/**
 * What a part may ask of a helper, against the block group it names: a genuine part of a stored
 * plan passes; each way of asking more than the group can need is refused; and what it may hold
 * grows with what it reads.
 */
class PartBoundsTest {
  private static final long GROUP = Long.MIN_VALUE + 16; // a striped block group's id (index 0)
  private static final int CELL = 1 << 20;
  private static final int MAX_CELL = 4 << 20;

  private static NodePart genuine() {
    return RepairCatalog.parts(RepairCatalog.parallelPlan(new CodeSpec("clay", 10, 4), 0).orElseThrow()).get(2);
  }

  private static Map<Integer, PlanPartRequest.Peer> peersOf(NodePart part) {
    Map<Integer, PlanPartRequest.Peer> peers = new TreeMap<>();
    part.outbound().forEach(g -> peers.put(g.peer(), new PlanPartRequest.Peer("10.0.0." + g.peer(), 9876, "dn")));
    part.inbound().forEach(g -> peers.put(g.peer(), new PlanPartRequest.Peer("10.0.0." + g.peer(), 9876, "dn")));
    return peers;
  }

  private static PlanPartRequest request(NodePart part, int unit, long blockLength, int cell, int rows, int piece) {
    ExtendedBlock block = new ExtendedBlock("BP-1", GROUP + unit, blockLength, 7);
    return new PlanPartRequest(1, 2, block, new Token<>(), Math.min(blockLength, (long) rows * cell), cell,
        cell / part.alpha(), 0, rows, piece, part, peersOf(part), false);
  }

  private static void refused(PlanPartRequest req, long replicaLength, String why) {
    IOException e = assertThrows(IOException.class, () -> PartBounds.check(req, replicaLength, MAX_CELL));
    assertTrue(e.getMessage().contains(why), e.getMessage());
  }

  @Test
  void aGenuinePartPassesAndEachExcessIsRefused() {
    NodePart part = genuine();
    long length = 4L * CELL;
    assertDoesNotThrow(() -> PartBounds.check(request(part, 2, length, CELL, 4, 4096), length, MAX_CELL));
    // A data block up to a cell shorter than the group, of cells up to MAX_CELL: rows ending
    // at most that far past its own bytes.
    assertDoesNotThrow(() -> PartBounds.check(request(part, 2, length, CELL, 8, 4096), length, MAX_CELL));
    refused(request(part, 2, length, CELL, 9, 4096), length, "past the end of a group");
    // Rows finer than the group's cells (a client's window of an RS or LRC cell): the same slack in bytes.
    NodePart scalar = RepairCatalog.scalarChain(
        RepairCatalog.plan(new CodeSpec("rs", 6, 3), new int[] {0}, new int[] {1, 2, 3, 4, 5, 6})).parts().get(2);
    long shortBlock = 3L * CELL;
    assertDoesNotThrow(() -> PartBounds.check(request(scalar, 2, shortBlock, 4096, (3 * CELL + MAX_CELL) / 4096, 4096),
        shortBlock, MAX_CELL));
    refused(request(scalar, 2, shortBlock, 4096, (3 * CELL + MAX_CELL) / 4096 + 1, 4096), shortBlock,
        "past the end of a group");
    refused(request(part, 3, length, CELL, 4, 4096), length, "node 2 of a plan");
    refused(request(part, 2, length, 8 << 20, 1, 4096), length, "multiples of 1024");
    refused(request(part, 2, length, CELL + 256 * 3, 4, 4096), length, "multiples of 1024");
    refused(request(part, 2, length, CELL, 4, 512), length, "finer than");
  }

  @Test
  void aPartThatSendsNothingOrComputesMoreThanAGroupCanNeedIsRefused() {
    int alpha = 4;
    NodePart idle = new NodePart(1, alpha, new int[][] {{0, 0}}, List.of(), List.of(), List.of(), List.of());
    refused(request(idle, 1, 4L * CELL, CELL, 4, 4096), 4L * CELL, "sends its values on");
    // A part computing 200 values of one sub-chunk each, per row of 4 sub-chunks.
    List<NodePart.Step> steps = new ArrayList<>();
    int[] outputs = new int[200];
    for (int i = 0; i < outputs.length; i++) {
      outputs[i] = 100 + i;
    }
    byte[] m = new byte[200];
    java.util.Arrays.fill(m, (byte) 1);
    steps.add(new NodePart.Step(1, new int[] {0}, outputs, new GFMatrix(200, 1, m)));
    NodePart busy = new NodePart(1, alpha, new int[][] {{0, 0}}, List.of(),
        List.of(new NodePart.Group(2, 1, new int[] {100})), steps, List.of());
    refused(request(busy, 1, 4L * CELL, CELL, 4, 4096), 4L * CELL, "can need");
  }

  @Test
  void whatAPartHoldsGrowsWithTheRangesItReads() {
    NodePart part = genuine();
    DataChecksum crc = DataChecksum.newDataChecksum(DataChecksum.Type.CRC32C, 512);
    long few = PartBounds.bytesHeld(request(part, 2, 4L * CELL, CELL, 4, 4096),
        new LocalRangeServer.Replica(4L * CELL, crc));
    long many = PartBounds.bytesHeld(request(part, 2, 4096L * 65536, 65536, 4096, 1024),
        new LocalRangeServer.Replica(4096L * 65536, crc));
    assertTrue(few > 0 && many > few, few + " bytes for 4 rows, " + many + " for 4096");
    int[] leaves = part.leafSubchunks();
    long rangesOf4096Rows = LeafRows.bytesHeld(leaves, new SliceGeometry(0, 4096, 256, 256))
        - LeafRows.bytesHeld(leaves, new SliceGeometry(0, 1, 256, 256));
    assertTrue(rangesOf4096Rows >= 4095L * 48, "the ranges of 4095 more rows cost " + rangesOf4096Rows + " bytes");
  }
}
