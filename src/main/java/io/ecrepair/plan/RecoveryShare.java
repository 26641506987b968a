package io.ecrepair.plan;

/**
 * Whether a rebuilding DataNode's task runs centrally as the DataNode's share of a full-node
 * recovery instead of weighing the parallel plans. All-central puts one central repair on each
 * rebuilding DataNode's downlink anyway, and a central repair costs about half the CPU per byte
 * moved of a parallel one, so the first task of each DataNode runs centrally; the tasks after it,
 * which all-central would stack on the same downlink, weigh the plans ({@link PlanChoice}). So do a
 * lone task on an idle cluster (a single-block repair: parallel plans make it cost about one
 * block), a task rebuilding several blocks, and a unit whose central repair brings in more than
 * the code's usual one (Butterfly's last parity: its parallel plans spare that downlink).
 */
public final class RecoveryShare {
  private RecoveryShare() {}

  /**
   * @param lostBlocks blocks the task rebuilds
   * @param alone whether the task sees no other repair: no other task on its DataNode and no
   *     other repair's bytes on the helpers it probed
   * @param sharesHere the DataNode's tasks already running centrally as its share
   * @param ownCentralIn sub-chunks the task's central repair brings into its DataNode
   * @param usualCentralIn sub-chunks the code's central repair of its usual unit (unit 0) brings in
   */
  public static boolean central(int lostBlocks, boolean alone, int sharesHere, long ownCentralIn, long usualCentralIn) {
    return lostBlocks == 1 && !alone && sharesHere == 0 && ownCentralIn <= usualCentralIn;
  }
}
