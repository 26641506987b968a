package io.ecrepair.hdfs.agent;

import io.ecrepair.exec.NodePart;
import io.ecrepair.exec.PartRunner;
import io.ecrepair.exec.SliceGeometry;
import java.io.IOException;
import org.apache.hadoop.hdfs.server.blockmanagement.BlockIdManager;
import org.apache.hadoop.hdfs.server.common.HdfsServerConstants;

/**
 * What a part request may ask of a helper, checked against the block group it names before
 * anything is allocated for it: its node is the internal block the helper holds, its rows end
 * where that block's group ends, its cells are no larger than HDFS allows, its slices are not
 * cut finer than a piece, and its plan is no larger than a repair of the group can need (a group
 * has at most 16 blocks; a stored plan of Clay or Butterfly computes at most about 7 values per
 * sub-chunk of a cell, so 32 leaves room for any search). And what it may then hold in memory.
 */
final class PartBounds {
  /** Values a part may hold and coefficients it may apply, per sub-chunk of a cell row. */
  static final int PER_SUBCHUNK = 2 * PlanPartRequest.MAX_NODES;

  private PartBounds() {}

  /**
   * Refuses (an IOException saying why) a part that asks more than its block group can need.
   *
   * @param replicaLength the length of this DataNode's finalized replica of the part's block
   */
  static void check(PlanPartRequest req, long replicaLength, int maxCellBytes) throws IOException {
    NodePart part = req.part();
    long blockId = req.block().getBlockId();
    if (!BlockIdManager.isStripedBlockID(blockId)
        || part.node() != (int) (blockId & HdfsServerConstants.BLOCK_GROUP_INDEX_MASK)) {
      refuse("it is node " + part.node() + " of a plan but holds " + req.block());
    }
    if (req.cellSize() > maxCellBytes || req.cellSize() % 1024 != 0) {
      refuse("cells of " + req.cellSize() + " bytes: HDFS's are multiples of 1024 up to " + maxCellBytes);
    }
    if (req.pieceBytes() < Math.min(PlanPartRequest.MIN_PIECE, req.subchunkBytes())) {
      refuse("pieces of " + req.pieceBytes() + " bytes, finer than " + PlanPartRequest.MIN_PIECE);
    }
    // A data block of a group may be up to one of the group's cells shorter than its rows; a
    // request's rows may be finer than those cells (a client's window of an RS or LRC cell runs
    // over 4 KiB rows), so the slack is the largest cell, in bytes.
    if (((long) req.firstRow() + req.rows()) * req.cellSize() > replicaLength + maxCellBytes) {
      refuse("rows " + req.firstRow() + "+" + req.rows() + " of " + req.cellSize() + " bytes, past the end of a group "
          + "whose block here holds " + replicaLength + " bytes");
    }
    if (!part.results().isEmpty() || part.outbound().isEmpty()) {
      refuse("a helper's part sends its values on and rebuilds nothing itself");
    }
    long perRow = (long) PER_SUBCHUNK * part.alpha();
    if (part.slots() > perRow || part.coefficients() > perRow || part.valuesOut() > perRow) {
      refuse(part.slots() + " values, " + part.coefficients() + " coefficients and " + part.valuesOut()
          + " values sent per slice, more than a group of " + PlanPartRequest.MAX_NODES + " blocks with "
          + part.alpha() + " sub-chunks can need");
    }
    for (int peer : req.peers().keySet()) {
      if (peer == part.node()) {
        refuse("it names itself as a peer");
      }
    }
  }

  /**
   * The most memory the part's run holds: its rows of sub-chunks and the ranges it reads them
   * with (from {@code replica}), its runner's buffers and compiled steps, and its streams' queues full.
   */
  static long bytesHeld(PlanPartRequest req, LocalRangeServer.Replica replica) {
    NodePart part = req.part();
    SliceGeometry geometry = new SliceGeometry(req.firstRow(), req.rows(), req.subchunkBytes(), req.pieceBytes());
    int piece = geometry.pieceBytes();
    return LeafRows.bytesHeld(part.leafSubchunks(), geometry) + replica.readBufferBytes()
        + PartRunner.bytesHeld(part, piece) + PlanSession.bytesHeld(part, piece) + PeerSenders.bytesHeld(part, piece);
  }

  private static void refuse(String why) throws IOException {
    throw new IOException("a part that asks too much: " + why);
  }
}
