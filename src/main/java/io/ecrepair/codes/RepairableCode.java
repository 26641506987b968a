package io.ecrepair.codes;

import io.ecrepair.ecdag.Ecdag;

/**
 * A code that can say, as an {@link Ecdag}, how to rebuild lost units from surviving ones
 * while reading as little as it allows. The planner colors these graphs and the executor
 * runs them, on one machine or across DataNodes.
 *
 * <p>A cell of length L is laid out by {@link CellLayout}: {@link #repairGraph} describes the
 * alpha sub-chunks (each s bytes), {@link #tailRepairGraph} the tail (a graph with one
 * sub-chunk, index 0, standing for the tail bytes). For a scalar code alpha = 1 and there is
 * no tail.
 */
public interface RepairableCode extends ErasureCode {

  /**
   * The cheapest graph rebuilding every unit in {@code lost} from units in {@code available}
   * (sorted unit indices; {@code lost} and {@code available} are disjoint). Leaves name the
   * sub-chunks read; repaired vertices the rebuilt sub-chunks of every lost unit.
   *
   * @throws UndecodableException when the available units cannot rebuild the lost ones
   */
  Ecdag repairGraph(int[] lost, int[] available);

  /** Whether the units in {@code lost} can be rebuilt from all the others (MDS: up to m). */
  default boolean decodable(int[] lost) {
    return lost.length <= parityUnits();
  }

  /** The graph for the byte-wise tail of a cell (one sub-chunk per unit). */
  Ecdag tailRepairGraph(int[] lost, int[] available);
}
