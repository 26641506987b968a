package io.ecrepair.codes.clay;

/**
 * Where a node sits in the q x t grid of a Clay code: column {@code x} (0..q-1) inside
 * y-section {@code y} (0..t-1). Nodes with the same y form a y-section.
 */
public record NodeCoordinate(int x, int y) {
  @Override
  public String toString() {
    return "(" + x + "," + y + ")";
  }
}
