package io.ecrepair.layout;

/**
 * Where HDFS puts the bytes of a striped file: block groups of up to k x blockSize data
 * bytes, each group striped in cell rows of k data cells (round-robin over the k data
 * internal blocks) plus m parity cells. In the last row of a group the parity cells (and the
 * coder's buffers) have length L = min(rowBytes, cellSize) and short data cells are
 * zero-padded to L for coding only (docs/architecture.md#cell-layout; HDFS DFSStripedOutputStream).
 */
public final class StripedLayout {
  private final int k;
  private final int m;
  private final int cellSize;
  private final long blockSize;

  public StripedLayout(int k, int m, int cellSize, long blockSize) {
    if (blockSize <= 0 || blockSize % cellSize != 0) {
      throw new IllegalArgumentException("block size " + blockSize + " must be a positive multiple of the cell size "
          + cellSize);
    }
    this.k = k;
    this.m = m;
    this.cellSize = cellSize;
    this.blockSize = blockSize;
  }

  public StripedLayout(Policy policy, long blockSize) {
    this(policy.code().k(), policy.code().m(), policy.cellSize(), blockSize);
  }

  public int dataUnits() {
    return k;
  }

  public int totalUnits() {
    return k + m;
  }

  public int cellSize() {
    return cellSize;
  }

  public long blockSize() {
    return blockSize;
  }

  /** Data bytes one full block group holds. */
  public long groupCapacity() {
    return k * blockSize;
  }

  public long rowCapacity() {
    return (long) k * cellSize;
  }

  public int groupCount(long fileLength) {
    return (int) ((fileLength + groupCapacity() - 1) / groupCapacity());
  }

  /** Data bytes of group g. */
  public long groupLength(long fileLength, int g) {
    return Math.min(groupCapacity(), fileLength - g * groupCapacity());
  }

  public int rowCount(long groupLength) {
    return (int) ((groupLength + rowCapacity() - 1) / rowCapacity());
  }

  /** Data bytes in row r of a group. */
  public long rowLength(long groupLength, int r) {
    return Math.min(rowCapacity(), groupLength - r * rowCapacity());
  }

  /** L: the coding length of row r, the length of its parity cells and of data cell 0. */
  public int codingLength(long groupLength, int r) {
    return (int) Math.min(cellSize, rowLength(groupLength, r));
  }

  /** Stored bytes of unit i in row r (0 for data cells past the end of the data). */
  public int cellLength(long groupLength, int r, int unit) {
    long row = rowLength(groupLength, r);
    if (unit >= k) {
      return (int) Math.min(cellSize, row);
    }
    return (int) Math.max(0, Math.min(cellSize, row - (long) unit * cellSize));
  }

  /** Length of internal block i of a group (HDFS StripedBlockUtil.getInternalBlockLength). */
  public long internalBlockLength(long groupLength, int unit) {
    int rows = rowCount(groupLength);
    if (rows == 0) {
      return 0;
    }
    return (rows - 1L) * cellSize + cellLength(groupLength, rows - 1, unit);
  }

  /** Offset in the file of data cell {@code unit} of row r of group g. */
  public long fileOffset(int g, int r, int unit) {
    return g * groupCapacity() + r * rowCapacity() + (long) unit * cellSize;
  }

  /** Offset of row r inside every internal block of its group. */
  public long blockOffset(int r) {
    return (long) r * cellSize;
  }
}
