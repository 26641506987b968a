package io.ecrepair.layout;

/**
 * One block group's geometry: the striped layout and the group's data length, and what they
 * imply (rows, internal block lengths, cell and coding lengths per row). A group that knows only
 * its length gets a layout whose block size is the group's rows of cells, which gives the same
 * lengths as any larger block size.
 */
public record GroupLayout(StripedLayout layout, long groupLength) {

  /** The layout of a group of {@code groupLength} data bytes (at least one row, so an empty group has a layout too). */
  public static GroupLayout of(int k, int m, int cellSize, long groupLength) {
    long rowBytes = (long) k * cellSize;
    long rows = Math.max(1, (groupLength + rowBytes - 1) / rowBytes);
    return new GroupLayout(new StripedLayout(k, m, cellSize, rows * cellSize), groupLength);
  }

  public int cellSize() {
    return layout.cellSize();
  }

  public int dataUnits() {
    return layout.dataUnits();
  }

  public int totalUnits() {
    return layout.totalUnits();
  }

  /** Cell rows of the group (the last may be short). */
  public int rows() {
    return layout.rowCount(groupLength);
  }

  /** Rows that hold a full cell of every data unit. */
  public int fullRows() {
    return (int) (groupLength / layout.rowCapacity());
  }

  /** Bytes internal block {@code unit} holds. */
  public long blockLength(int unit) {
    return layout.internalBlockLength(groupLength, unit);
  }

  /** The longest of {@code units}' internal blocks (0 for none). */
  public long longestBlock(int[] units) {
    long max = 0;
    for (int u : units) {
      max = Math.max(max, blockLength(u));
    }
    return max;
  }

  /** Data bytes in row r. */
  public long rowLength(int r) {
    return layout.rowLength(groupLength, r);
  }

  /** Offset of row r inside every internal block of the group. */
  public long blockOffset(int r) {
    return layout.blockOffset(r);
  }

  /** Stored bytes of {@code unit} in row r. */
  public int cellLength(int r, int unit) {
    return layout.cellLength(groupLength, r, unit);
  }

  /** L: the coding length of row r. */
  public int codingLength(int r) {
    return layout.codingLength(groupLength, r);
  }
}
