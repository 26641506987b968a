package io.ecrepair.codes.clay;

import io.ecrepair.gf.GFMatrix;

/**
 * The scalar [n', k'] MDS code every layer of the uncoupled code belongs to, n' = n + nu,
 * k' = k + nu: the systematic Cauchy code of ISA-L and Hadoop over the grid positions (see
 * {@link ClayGrid}). Its systematic positions 0..k'-1 are the nu virtual nodes and the k
 * data units, so on the C side the virtual nodes are shortened message symbols (zero). Any
 * MDS code would do, since Clay encodes by decoding.
 */
final class BaseCode {
  private final int length;
  private final int dimension;
  private final GFMatrix generator;

  BaseCode(int length, int dimension) {
    this.length = length;
    this.dimension = dimension;
    this.generator = GFMatrix.systematicCauchy(length, dimension);
  }

  int length() {
    return length;
  }

  int dimension() {
    return dimension;
  }

  /**
   * The matrix giving the symbols at {@code wanted} positions from the symbols at the k'
   * {@code known} positions (rows follow {@code wanted}, columns {@code known}).
   */
  GFMatrix decodeMatrix(int[] known, int[] wanted) {
    if (known.length != dimension) {
      throw new IllegalArgumentException("the base code needs exactly " + dimension + " known positions, got "
          + known.length);
    }
    return generator.selectRows(wanted).multiply(generator.selectRows(known).invert());
  }
}
