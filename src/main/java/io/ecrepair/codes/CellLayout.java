package io.ecrepair.codes;

/**
 * How a vector code splits one cell of length L (docs/architecture.md#cell-layout): alpha sub-chunks of
 * s = floor(L / alpha) bytes, sub-chunk j = bytes [j*s, (j+1)*s), then a tail of
 * L - alpha*s bytes coded byte-wise by the code's base MDS code. A function of L alone, so
 * encode, repair and decode agree.
 */
public record CellLayout(int alpha, int length) {

  public CellLayout {
    if (alpha < 1 || length < 0) {
      throw new IllegalArgumentException("need alpha >= 1 and length >= 0, got " + alpha + ", " + length);
    }
  }

  /** s: bytes per sub-chunk (0 when L < alpha: then the whole cell is tail). */
  public int subchunkBytes() {
    return length / alpha;
  }

  /** Offset of sub-chunk j inside the cell. */
  public int subchunkOffset(int j) {
    return j * subchunkBytes();
  }

  public int tailOffset() {
    return alpha * subchunkBytes();
  }

  public int tailBytes() {
    return length - tailOffset();
  }
}
