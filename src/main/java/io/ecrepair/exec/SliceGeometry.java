package io.ecrepair.exec;

/**
 * How full cell rows of a block are cut into the slices a distributed repair streams: each
 * sub-chunk of {@code subchunkBytes} into pieces of {@code pieceBytes} (the last one shorter),
 * slice t being piece {@code t % pieces} of every sub-chunk of row {@code firstRow + t / pieces}.
 * Small pieces let a value flow on before its whole sub-chunk is computed.
 */
public record SliceGeometry(int firstRow, int rows, int subchunkBytes, int pieceBytes) {
  public SliceGeometry {
    if (firstRow < 0 || rows < 0 || subchunkBytes < 1 || pieceBytes < 1) {
      throw new IllegalArgumentException("rows " + firstRow + "+" + rows + ", sub-chunks of " + subchunkBytes
          + " bytes, pieces of " + pieceBytes);
    }
    pieceBytes = Math.min(pieceBytes, subchunkBytes);
  }

  /** Pieces per sub-chunk. */
  public int pieces() {
    return (subchunkBytes + pieceBytes - 1) / pieceBytes;
  }

  public int count() {
    return rows * pieces();
  }

  public int row(int slice) {
    return firstRow + slice / pieces();
  }

  /** Offset of the slice inside each sub-chunk. */
  public int offset(int slice) {
    return slice % pieces() * pieceBytes;
  }

  public int length(int slice) {
    return Math.min(pieceBytes, subchunkBytes - offset(slice));
  }

  /** Whether the slice is its row's last. */
  public boolean endsRow(int slice) {
    return slice % pieces() == pieces() - 1;
  }
}
